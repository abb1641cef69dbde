/* proto.c - small helpers over protobuf-c's ONNX messages for src/quant:
 * lookups (initializer, producer, readers), attributes, new tensors and
 * nodes, and dropping the initializers nothing reads. */
#include <string.h>

#include "quant_internal.h"

int qp_is_op(const Onnx__NodeProto *n, const char *op)
{
    return (!n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx")) && n->op_type &&
           !strcmp(n->op_type, op);
}

int qp_find_init(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (gp->initializer[i]->name && !strcmp(gp->initializer[i]->name, name)) return (int)i;
    return -1;
}

int qp_producer(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_output; k++)
            if (!strcmp(gp->node[i]->output[k], name)) return (int)i;
    return -1;
}

int qp_is_graph_output(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_output; i++)
        if (gp->output[i]->name && !strcmp(gp->output[i]->name, name)) return 1;
    return 0;
}

static int sub_reads(const Onnx__GraphProto *gp, const char *name);

/* Does node n's subgraph (If, Loop, Scan) read name from the outer scope? */
static int node_sub_reads(const Onnx__NodeProto *n, const char *name)
{
    for (size_t a = 0; a < n->n_attribute; a++) {
        const Onnx__AttributeProto *at = n->attribute[a];
        if (at->g && sub_reads(at->g, name)) return 1;
        for (size_t j = 0; j < at->n_graphs; j++)
            if (sub_reads(at->graphs[j], name)) return 1;
    }
    return 0;
}

static int sub_reads(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        for (size_t k = 0; k < gp->node[i]->n_input; k++)
            if (!strcmp(gp->node[i]->input[k], name)) return 1;
        if (node_sub_reads(gp->node[i], name)) return 1;
    }
    return 0;
}

/* Nodes reading name (each input slot counts; a subgraph reading it counts
 * twice, so that it is never the only reader), plus one if it is an output;
 * *only: the last reader found. */
int qp_readers(const Onnx__GraphProto *gp, const char *name, int *only)
{
    int n = qp_is_graph_output(gp, name);
    for (size_t i = 0; i < gp->n_node; i++) {
        for (size_t k = 0; k < gp->node[i]->n_input; k++)
            if (!strcmp(gp->node[i]->input[k], name)) {
                n++;
                if (only) *only = (int)i;
            }
        if (gp->node[i]->n_attribute && node_sub_reads(gp->node[i], name)) n += 2;
    }
    return n;
}

const Onnx__AttributeProto *qp_attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
    return NULL;
}

int64_t qp_attr_i(const Onnx__NodeProto *n, const char *name, int64_t dflt)
{
    const Onnx__AttributeProto *a = qp_attr(n, name);
    return a ? a->i : dflt;
}

float qp_attr_f(const Onnx__NodeProto *n, const char *name, float dflt)
{
    const Onnx__AttributeProto *a = qp_attr(n, name);
    return a ? a->f : dflt;
}

char *qp_cat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = pz_xmalloc(la + lb + 1);
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    return s;
}

/* Replaces tp's data (whatever field held it) by a raw_data copy of data. */
void qp_tp_set_raw(Onnx__TensorProto *tp, int dtype, const void *data, size_t nbytes)
{
    free(tp->float_data), tp->float_data = NULL, tp->n_float_data = 0;
    free(tp->int32_data), tp->int32_data = NULL, tp->n_int32_data = 0;
    free(tp->int64_data), tp->int64_data = NULL, tp->n_int64_data = 0;
    free(tp->double_data), tp->double_data = NULL, tp->n_double_data = 0;
    free(tp->uint64_data), tp->uint64_data = NULL, tp->n_uint64_data = 0;
    for (size_t i = 0; i < tp->n_external_data; i++)
        onnx__string_string_entry_proto__free_unpacked(tp->external_data[i], NULL);
    free(tp->external_data), tp->external_data = NULL, tp->n_external_data = 0;
    tp->has_data_location = 0;
    tp->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
    free(tp->raw_data.data);
    tp->raw_data.data = pz_xmalloc(nbytes ? nbytes : 1);
    if (nbytes) memcpy(tp->raw_data.data, data, nbytes);
    tp->raw_data.len = nbytes;
    tp->has_raw_data = 1;
    tp->data_type = dtype;
    tp->has_data_type = 1;
}

Onnx__TensorProto *qp_tp_new(const char *name, int dtype, const int64_t *dims, int rank,
                             const void *data, size_t nbytes)
{
    Onnx__TensorProto *tp = pz_xmalloc(sizeof *tp);
    onnx__tensor_proto__init(tp);
    tp->name = pz_xstrdup(name);
    tp->n_dims = (size_t)rank;
    tp->dims = rank ? pz_xmalloc((size_t)rank * sizeof *tp->dims) : NULL;
    if (rank) memcpy(tp->dims, dims, (size_t)rank * sizeof *dims);
    qp_tp_set_raw(tp, dtype, data, nbytes);
    return tp;
}

/* Reads float initializer idx into t (owned data) and leaves the proto
 * intact (its data as raw_data). Fails if it is not float32. */
pz_status qp_init_f32(Onnx__GraphProto *gp, int idx, const char *dir, ir_tensor *t, pz_err *err)
{
    Onnx__TensorProto *tp = gp->initializer[idx];
    char what[300];
    snprintf(what, sizeof what, "initializer \"%.200s\"", tp->name);
    memset(t, 0, sizeof *t);
    if (onnx_tensor_from_proto(tp, what, dir, t, err)) return err->code;
    qp_tp_set_raw(tp, t->dtype, t->data, t->nbytes);
    if (t->dtype != IR_F32) {
        ir_tensor_free_data(t);
        return PZ_ERR_UNSUPPORTED;   /* not an error: left as it is */
    }
    return PZ_OK;
}

void qp_push_init(Onnx__GraphProto *gp, Onnx__TensorProto *tp)
{
    gp->initializer = pz_xrealloc(gp->initializer, (gp->n_initializer + 1) * sizeof *gp->initializer);
    gp->initializer[gp->n_initializer++] = tp;
}

Onnx__NodeProto *qp_node_new(const char *op, const char *name, const char *const *in, int nin,
                             const char *out)
{
    Onnx__NodeProto *n = pz_xmalloc(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = pz_xstrdup(op);
    n->name = pz_xstrdup(name);
    n->domain = pz_xstrdup("");
    n->n_input = (size_t)nin;
    n->input = pz_xmalloc((size_t)nin * sizeof *n->input);
    for (int i = 0; i < nin; i++) n->input[i] = pz_xstrdup(in[i]);
    n->n_output = 1;
    n->output = pz_xmalloc(sizeof *n->output);
    n->output[0] = pz_xstrdup(out);
    return n;
}

void qp_node_set_axis(Onnx__NodeProto *n, int64_t axis)
{
    Onnx__AttributeProto *a = pz_xmalloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = pz_xstrdup("axis");
    a->has_type = 1;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a->has_i = 1;
    a->i = axis;
    n->attribute = pz_xrealloc(n->attribute, (n->n_attribute + 1) * sizeof *n->attribute);
    n->attribute[n->n_attribute++] = a;
}

/* Removes initializers that no node reads and no graph output names (and
 * their entries among the graph inputs). */
void qp_drop_unused_inits(Onnx__GraphProto *gp)
{
    size_t k = 0;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto *tp = gp->initializer[i];
        if (qp_readers(gp, tp->name, NULL)) {
            gp->initializer[k++] = tp;
            continue;
        }
        for (size_t j = 0; j < gp->n_input; j++)
            if (gp->input[j]->name && !strcmp(gp->input[j]->name, tp->name)) {
                onnx__value_info_proto__free_unpacked(gp->input[j], NULL);
                memmove(&gp->input[j], &gp->input[j + 1], (gp->n_input - j - 1) * sizeof *gp->input);
                gp->n_input--;
                break;
            }
        onnx__tensor_proto__free_unpacked(tp, NULL);
    }
    gp->n_initializer = k;
}

