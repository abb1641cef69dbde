/* qdq.c - the float model rewritten into the QDQ format (see quant.h):
 * BatchNormalization folded into Conv, the activations to pair chosen, and
 * the int8 weights, int32 biases and QuantizeLinear/DequantizeLinear pairs
 * written. */
#include <math.h>
#include <string.h>

#include "quant.h"

/* ---- small protobuf helpers ---------------------------------------------- */

static int is_op(const Onnx__NodeProto *n, const char *op)
{
    return (!n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx")) && n->op_type &&
           !strcmp(n->op_type, op);
}

static int find_init(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (gp->initializer[i]->name && !strcmp(gp->initializer[i]->name, name)) return (int)i;
    return -1;
}

static int producer(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_output; k++)
            if (!strcmp(gp->node[i]->output[k], name)) return (int)i;
    return -1;
}

static int is_graph_output(const Onnx__GraphProto *gp, const char *name)
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
static int readers(const Onnx__GraphProto *gp, const char *name, int *only)
{
    int n = is_graph_output(gp, name);
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

static const Onnx__AttributeProto *attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
    return NULL;
}

static int64_t attr_i(const Onnx__NodeProto *n, const char *name, int64_t dflt)
{
    const Onnx__AttributeProto *a = attr(n, name);
    return a ? a->i : dflt;
}

static float attr_f(const Onnx__NodeProto *n, const char *name, float dflt)
{
    const Onnx__AttributeProto *a = attr(n, name);
    return a ? a->f : dflt;
}

static char *cat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = pz_xmalloc(la + lb + 1);
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
    return s;
}

/* Replaces tp's data (whatever field held it) by a raw_data copy of data. */
static void tp_set_raw(Onnx__TensorProto *tp, int dtype, const void *data, size_t nbytes)
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

static Onnx__TensorProto *tp_new(const char *name, int dtype, const int64_t *dims, int rank,
                                 const void *data, size_t nbytes)
{
    Onnx__TensorProto *tp = pz_xmalloc(sizeof *tp);
    onnx__tensor_proto__init(tp);
    tp->name = pz_xstrdup(name);
    tp->n_dims = (size_t)rank;
    tp->dims = rank ? pz_xmalloc((size_t)rank * sizeof *tp->dims) : NULL;
    if (rank) memcpy(tp->dims, dims, (size_t)rank * sizeof *dims);
    tp_set_raw(tp, dtype, data, nbytes);
    return tp;
}

/* Reads float initializer idx into t (owned data) and leaves the proto
 * intact (its data as raw_data). Fails if it is not float32. */
static pz_status init_f32(Onnx__GraphProto *gp, int idx, const char *dir, ir_tensor *t, pz_err *err)
{
    Onnx__TensorProto *tp = gp->initializer[idx];
    char what[300];
    snprintf(what, sizeof what, "initializer \"%.200s\"", tp->name);
    memset(t, 0, sizeof *t);
    if (onnx_tensor_from_proto(tp, what, dir, t, err)) return err->code;
    tp_set_raw(tp, t->dtype, t->data, t->nbytes);
    if (t->dtype != IR_F32) {
        ir_tensor_free_data(t);
        return PZ_ERR_UNSUPPORTED;   /* not an error: left as it is */
    }
    return PZ_OK;
}

static void push_init(Onnx__GraphProto *gp, Onnx__TensorProto *tp)
{
    gp->initializer = pz_xrealloc(gp->initializer, (gp->n_initializer + 1) * sizeof *gp->initializer);
    gp->initializer[gp->n_initializer++] = tp;
}

static Onnx__NodeProto *node_new(const char *op, const char *name, const char *const *in, int nin,
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

static void node_set_axis(Onnx__NodeProto *n, int64_t axis)
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
static void drop_unused_inits(Onnx__GraphProto *gp)
{
    size_t k = 0;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto *tp = gp->initializer[i];
        if (readers(gp, tp->name, NULL)) {
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

/* ---- BatchNormalization folding ------------------------------------------ */

/* Constant nodes holding a tensor (paddle2onnx writes weights so) become
 * initializers, so that their weights are quantized and folded too. */
static void lift_constants(Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        Onnx__NodeProto *n = gp->node[i];
        if (!is_op(n, "Constant") || n->n_output != 1 || n->n_attribute != 1 ||
            !n->attribute[0]->t || strcmp(n->attribute[0]->name, "value") ||
            find_init(gp, n->output[0]) >= 0)
            continue;
        Onnx__TensorProto *tp = n->attribute[0]->t;
        n->attribute[0]->t = NULL;
        free(tp->name);
        tp->name = pz_xstrdup(n->output[0]);
        push_init(gp, tp);
        onnx__node_proto__free_unpacked(n, NULL);
        memmove(&gp->node[i], &gp->node[i + 1], (gp->n_node - i - 1) * sizeof *gp->node);
        gp->n_node--;
        i--;
    }
}

int quant_fold_bn(Onnx__ModelProto *m, const char *dir, pz_err *err)
{
    Onnx__GraphProto *gp = m->graph;
    int folded = 0;
    lift_constants(gp);
    for (size_t bi = 0; bi < gp->n_node; bi++) {
        Onnx__NodeProto *bn = gp->node[bi];
        if (!is_op(bn, "BatchNormalization") || bn->n_input != 5 || bn->n_output < 1) continue;
        int extra_out = 0;
        for (size_t k = 1; k < bn->n_output; k++) extra_out |= bn->output[k][0] != 0;
        if (extra_out || attr_i(bn, "training_mode", 0)) continue;
        int ci = producer(gp, bn->input[0]), only = -1;
        if (ci < 0) continue;
        Onnx__NodeProto *cv = gp->node[ci];
        if (!is_op(cv, "Conv") || cv->n_input < 2 || readers(gp, bn->input[0], &only) != 1)
            continue;
        int iw = find_init(gp, cv->input[1]);
        int ib = cv->n_input > 2 && cv->input[2][0] ? find_init(gp, cv->input[2]) : -1;
        if (iw < 0 || readers(gp, cv->input[1], NULL) != 1) continue;
        if (cv->n_input > 2 && cv->input[2][0] && (ib < 0 || readers(gp, cv->input[2], NULL) != 1))
            continue;
        int ip[4];
        for (int k = 0; k < 4; k++) ip[k] = find_init(gp, bn->input[1 + k]);
        if (ip[0] < 0 || ip[1] < 0 || ip[2] < 0 || ip[3] < 0) continue;

        ir_tensor w, b = {0}, pr[4] = {{0}};
        if (init_f32(gp, iw, dir, &w, err)) {
            if (err->code) return -1;
            continue;
        }
        int64_t mo = w.rank ? w.dims[0] : 0, per = mo ? ir_tensor_numel(&w) / mo : 0;
        int ok = mo > 0;
        for (int k = 0; k < 4 && ok; k++) {
            pz_status s = init_f32(gp, ip[k], dir, &pr[k], err);
            if (s && err->code) ok = -1;
            else if (s || ir_tensor_numel(&pr[k]) != mo) ok = 0;
        }
        if (ok == 1 && ib >= 0) {
            pz_status s = init_f32(gp, ib, dir, &b, err);
            if (s && err->code) ok = -1;
            else if (s || ir_tensor_numel(&b) != mo) ok = 0;
        }
        if (ok == 1) {
            float eps = attr_f(bn, "epsilon", 1e-5f);
            const float *g = pr[0].data, *beta = pr[1].data, *mean = pr[2].data, *var = pr[3].data;
            float *wd = w.data, *nb = pz_xmalloc((size_t)mo * sizeof *nb);
            for (int64_t c = 0; c < mo; c++) {
                double f = g[c] / sqrt((double)var[c] + eps);
                for (int64_t j = 0; j < per; j++) wd[c * per + j] = (float)(wd[c * per + j] * f);
                double b0 = b.data ? ((const float *)b.data)[c] : 0;
                nb[c] = (float)((b0 - mean[c]) * f + beta[c]);
            }
            tp_set_raw(gp->initializer[iw], IR_F32, w.data, w.nbytes);
            if (ib >= 0) {
                tp_set_raw(gp->initializer[ib], IR_F32, nb, (size_t)mo * sizeof *nb);
            } else {
                char *bname = cat(cv->input[1], "_folded_bias");
                push_init(gp, tp_new(bname, IR_F32, &mo, 1, nb, (size_t)mo * sizeof *nb));
                cv->input = pz_xrealloc(cv->input, 3 * sizeof *cv->input);
                for (size_t k = cv->n_input; k < 2; k++) cv->input[k] = pz_xstrdup("");
                cv->input[2] = bname;
                cv->n_input = 3;
            }
            free(nb);
            /* the Conv now writes the BatchNormalization's output; a
             * value_info of its old output would describe nothing */
            for (size_t v = 0; v < gp->n_value_info; v++)
                if (gp->value_info[v]->name && !strcmp(gp->value_info[v]->name, cv->output[0])) {
                    onnx__value_info_proto__free_unpacked(gp->value_info[v], NULL);
                    memmove(&gp->value_info[v], &gp->value_info[v + 1],
                            (gp->n_value_info - v - 1) * sizeof *gp->value_info);
                    gp->n_value_info--;
                    break;
                }
            free(cv->output[0]);
            cv->output[0] = pz_xstrdup(bn->output[0]);
            onnx__node_proto__free_unpacked(bn, NULL);
            memmove(&gp->node[bi], &gp->node[bi + 1], (gp->n_node - bi - 1) * sizeof *gp->node);
            gp->n_node--;
            bi--;
            folded++;
        }
        ir_tensor_free_data(&w);
        ir_tensor_free_data(&b);
        for (int k = 0; k < 4; k++) ir_tensor_free_data(&pr[k]);
        if (ok < 0) return -1;
    }
    if (folded) drop_unused_inits(gp);
    return folded;
}

/* ---- the plan ----------------------------------------------------------- */

/* A float tensor computed at run time (not a weight, not a constant). */
static int is_act(const ir_graph *g, const char *name)
{
    if (!name[0]) return 0;
    int v = ir_graph_find((ir_graph *)g, name);
    if (v < 0) return 0;
    const ir_value *x = &g->values[v];
    return x->t.dtype == IR_F32 && !x->t.data && !x->is_initializer;
}

static int plan_find(const quant_plan *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->names[i], name)) return i;
    return -1;
}

static int plan_add(quant_plan *p, const char *name, int same_as)
{
    int i = plan_find(p, name);
    if (i >= 0) return i;
    p->names = pz_xrealloc(p->names, (size_t)(p->n + 1) * sizeof *p->names);
    p->same_as = pz_xrealloc(p->same_as, (size_t)(p->n + 1) * sizeof *p->same_as);
    p->names[p->n] = pz_xstrdup(name);
    p->same_as[p->n] = same_as;
    return p->n++;
}

/* Relu, or Clip whose lower bound is a constant >= 0 (ReLU6). */
static int is_relu_like(const Onnx__ModelProto *m, const ir_graph *g, const Onnx__NodeProto *n)
{
    if (is_op(n, "Relu")) return 1;
    if (!is_op(n, "Clip")) return 0;
    if (n->n_input >= 2 && n->input[1][0]) {
        int v = ir_graph_find((ir_graph *)g, n->input[1]);
        if (v < 0) return 0;
        const ir_tensor *t = &g->values[v].t;
        return t->data && t->dtype == IR_F32 && ir_tensor_numel(t) == 1 &&
               *(const float *)t->data >= 0;
    }
    const Onnx__AttributeProto *a = attr(n, "min");
    return a && a->f >= 0;
}

/* The ops whose float inputs and output are quantized. */
static int quantized_op(const Onnx__NodeProto *n)
{
    static const char *const OPS[] = {"Conv", "Gemm", "MatMul", "Add", "Concat", "MaxPool",
                                      "AveragePool", "GlobalAveragePool"};
    for (size_t i = 0; i < PZ_ARRAY_LEN(OPS); i++)
        if (is_op(n, OPS[i])) return 1;
    return 0;
}

pz_status quant_plan_make(const Onnx__ModelProto *m, const ir_graph *g, quant_plan *p, pz_err *err)
{
    const Onnx__GraphProto *gp = m->graph;
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *n = gp->node[i];
        if (!quantized_op(n)) continue;
        /* inputs: the activation operand(s) */
        size_t nin = is_op(n, "Conv") ? 1 : is_op(n, "Gemm") || is_op(n, "MatMul") ? 2
                   : is_op(n, "Add") || is_op(n, "Concat") ? n->n_input : 1;
        if (nin > n->n_input) nin = n->n_input;
        int first = -1;
        for (size_t k = 0; k < nin; k++) {
            if (!is_act(g, n->input[k]) || is_graph_output(gp, n->input[k])) continue;
            int j = plan_add(p, n->input[k], -1);
            if (k == 0) first = j;
        }
        /* the output, or the Relu/Clip after it */
        if (n->n_output < 1 || !is_act(g, n->output[0])) continue;
        const char *t = n->output[0];
        int only = -1;
        if (readers(gp, t, &only) == 1 && only >= 0 && is_relu_like(m, g, gp->node[only]))
            t = gp->node[only]->output[0];
        if (is_graph_output(gp, t) || !is_act(g, t)) continue;
        int same = is_op(n, "MaxPool") && t == n->output[0] ? first : -1;
        plan_add(p, t, same);
    }
    p->lo = pz_xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->lo);
    p->hi = pz_xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->hi);
    if (!p->n)
        return pz_fail(err, PZ_ERR_INPUT, "the model has no Conv, Gemm, MatMul, Add, Concat or "
                       "pooling node with a float activation: nothing to quantize");
    return PZ_OK;
}

void quant_plan_free(quant_plan *p)
{
    for (int i = 0; i < p->n; i++) free(p->names[i]);
    free(p->names);
    free(p->same_as);
    free(p->lo);
    free(p->hi);
    memset(p, 0, sizeof *p);
}

void quant_outputs_add(Onnx__ModelProto *m, const quant_plan *p)
{
    Onnx__GraphProto *gp = m->graph;
    gp->output = pz_xrealloc(gp->output, (gp->n_output + (size_t)p->n) * sizeof *gp->output);
    for (int i = 0; i < p->n; i++) {
        Onnx__ValueInfoProto *vi = pz_xmalloc(sizeof *vi);
        onnx__value_info_proto__init(vi);
        vi->name = pz_xstrdup(p->names[i]);
        vi->type = pz_xmalloc(sizeof *vi->type);
        onnx__type_proto__init(vi->type);
        vi->type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        vi->type->tensor_type = pz_xmalloc(sizeof *vi->type->tensor_type);
        onnx__type_proto__tensor__init(vi->type->tensor_type);
        vi->type->tensor_type->has_elem_type = 1;
        vi->type->tensor_type->elem_type = IR_F32;
        gp->output[gp->n_output++] = vi;
    }
}

void quant_outputs_drop(Onnx__ModelProto *m, const quant_plan *p)
{
    Onnx__GraphProto *gp = m->graph;
    for (int i = 0; i < p->n; i++)
        onnx__value_info_proto__free_unpacked(gp->output[--gp->n_output], NULL);
}

/* ---- the QDQ rewrite ----------------------------------------------------- */

typedef struct {
    Onnx__NodeProto **v;
    size_t n;
} node_list;

static void list_push(node_list *l, Onnx__NodeProto *n)
{
    l->v = pz_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n++] = n;
}

/* One quantized weight: its per-channel scales (for the bias) and axis. */
typedef struct {
    char *name;
    int axis;
    int64_t nc;
    float *scale;
} qweight;

/* Emits the pair Q -> DQ on tensor t with scale s and zero point zp. */
static void emit_pair(Onnx__GraphProto *gp, node_list *l, const char *t, float s, uint8_t zp)
{
    char *sn = cat(t, "_scale"), *zn = cat(t, "_zero_point"), *qn = cat(t, "_quantized"),
         *dn = cat(t, "_dequantized"), *qnode = cat(t, "_QuantizeLinear"),
         *dnode = cat(t, "_DequantizeLinear");
    push_init(gp, tp_new(sn, IR_F32, NULL, 0, &s, sizeof s));
    push_init(gp, tp_new(zn, IR_U8, NULL, 0, &zp, 1));
    const char *qin[3] = {t, sn, zn}, *din[3] = {qn, sn, zn};
    list_push(l, node_new("QuantizeLinear", qnode, qin, 3, qn));
    list_push(l, node_new("DequantizeLinear", dnode, din, 3, dn));
    free(sn), free(zn), free(qn), free(dn), free(qnode), free(dnode);
}

/* Quantizes weight initializer `name` per channel along axis (int8,
 * symmetric) unless done already; returns its entry, or NULL when it stays
 * float (not a float initializer, or quantized along another axis). */
static qweight *quant_weight(Onnx__GraphProto *gp, const char *dir, node_list *l, qweight **ws,
                             int *nws, const char *name, int axis, int rank_want,
                             quant_stats *st, pz_err *err)
{
    for (int i = 0; i < *nws; i++)
        if (!strcmp((*ws)[i].name, name)) return (*ws)[i].axis == axis ? &(*ws)[i] : NULL;
    int idx = find_init(gp, name);
    if (idx < 0) return NULL;
    ir_tensor w;
    if (init_f32(gp, idx, dir, &w, err)) return NULL;
    if ((rank_want && w.rank != rank_want) || w.rank < 2 || axis >= w.rank) {
        ir_tensor_free_data(&w);
        return NULL;
    }
    /* element (outer, c, inner) with c along axis */
    int64_t nc = w.dims[axis], inner = 1, outer = 1;
    for (int d = axis + 1; d < w.rank; d++) inner *= w.dims[d];
    for (int d = 0; d < axis; d++) outer *= w.dims[d];
    const float *x = w.data;
    float *scale = pz_xcalloc((size_t)nc, sizeof *scale);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < nc; c++)
            for (int64_t j = 0; j < inner; j++) {
                float a = fabsf(x[(o * nc + c) * inner + j]);
                if (a > scale[c]) scale[c] = a;
            }
    for (int64_t c = 0; c < nc; c++) scale[c] = scale[c] > 0 ? scale[c] / 127.0f : 1.0f;
    int64_t n = ir_tensor_numel(&w);
    int8_t *q = pz_xmalloc((size_t)(n ? n : 1));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < nc; c++)
            for (int64_t j = 0; j < inner; j++) {
                int64_t e = (o * nc + c) * inner + j;
                double v = nearbyint((double)x[e] / scale[c]);
                q[e] = (int8_t)(v < -127 ? -127 : v > 127 ? 127 : v);
            }
    int8_t *zp = pz_xcalloc((size_t)nc, 1);
    char *qn = cat(name, "_quantized"), *sn = cat(name, "_scale"), *zn = cat(name, "_zero_point"),
         *dn = cat(name, "_dequantized"), *node = cat(name, "_DequantizeLinear");
    push_init(gp, tp_new(qn, IR_I8, w.dims, w.rank, q, (size_t)n));
    push_init(gp, tp_new(sn, IR_F32, &nc, 1, scale, (size_t)nc * sizeof *scale));
    push_init(gp, tp_new(zn, IR_I8, &nc, 1, zp, (size_t)nc));
    const char *in[3] = {qn, sn, zn};
    Onnx__NodeProto *dq = node_new("DequantizeLinear", node, in, 3, dn);
    node_set_axis(dq, axis);
    list_push(l, dq);
    free(qn), free(sn), free(zn), free(dn), free(node), free(q), free(zp);
    ir_tensor_free_data(&w);
    *ws = pz_xrealloc(*ws, (size_t)(*nws + 1) * sizeof **ws);
    qweight *e = &(*ws)[(*nws)++];
    e->name = pz_xstrdup(name);
    e->axis = axis;
    e->nc = nc;
    e->scale = scale;
    if (st) st->weights++;
    return e;
}

/* Bias `name` (float [nc]) as int32 with scale xs * w->scale[c]; returns 1
 * when written (the consumer then reads "<name>_dequantized"). */
static int quant_bias(Onnx__GraphProto *gp, const char *dir, node_list *l, const char *name,
                      float xs, const qweight *w, quant_stats *st, pz_err *err)
{
    int idx = find_init(gp, name), pi;
    /* torch's exporter shares equal biases through Identity nodes */
    if (idx < 0 && (pi = producer(gp, name)) >= 0 && is_op(gp->node[pi], "Identity"))
        idx = find_init(gp, gp->node[pi]->input[0]);
    char *qn = cat(name, "_quantized");
    int done = find_init(gp, qn) >= 0;   /* shared with another node: stays float here */
    if (idx < 0 || done) {
        free(qn);
        return 0;
    }
    ir_tensor b;
    if (init_f32(gp, idx, dir, &b, err)) {
        free(qn);
        return 0;
    }
    if (b.rank != 1 || b.dims[0] != w->nc) {
        ir_tensor_free_data(&b);
        free(qn);
        return 0;
    }
    int64_t nc = w->nc;
    int32_t *q = pz_xmalloc((size_t)nc * sizeof *q), *zp = pz_xcalloc((size_t)nc, sizeof *zp);
    float *s = pz_xmalloc((size_t)nc * sizeof *s);
    const float *x = b.data;
    for (int64_t c = 0; c < nc; c++) {
        s[c] = xs * w->scale[c];
        double v = nearbyint((double)x[c] / s[c]);
        q[c] = (int32_t)(v < -2147483647.0 ? -2147483647.0 : v > 2147483647.0 ? 2147483647.0 : v);
    }
    char *sn = cat(name, "_scale"), *zn = cat(name, "_zero_point"), *dn = cat(name, "_dequantized"),
         *node = cat(name, "_DequantizeLinear");
    push_init(gp, tp_new(qn, IR_I32, &nc, 1, q, (size_t)nc * sizeof *q));
    push_init(gp, tp_new(sn, IR_F32, &nc, 1, s, (size_t)nc * sizeof *s));
    push_init(gp, tp_new(zn, IR_I32, &nc, 1, zp, (size_t)nc * sizeof *zp));
    const char *in[3] = {qn, sn, zn};
    Onnx__NodeProto *dq = node_new("DequantizeLinear", node, in, 3, dn);
    node_set_axis(dq, 0);
    list_push(l, dq);
    free(qn), free(sn), free(zn), free(dn), free(node), free(q), free(zp), free(s);
    ir_tensor_free_data(&b);
    if (st) st->biases++;
    return 1;
}

static void rename_input(Onnx__NodeProto *n, size_t k, const char *suffix)
{
    char *s = cat(n->input[k], suffix);
    free(n->input[k]);
    n->input[k] = s;
}

pz_status quant_write_qdq(Onnx__ModelProto *m, const char *dir, const quant_plan *p,
                          quant_stats *st, pz_err *err)
{
    Onnx__GraphProto *gp = m->graph;
    if (st) memset(st, 0, sizeof *st);
    float *scale = pz_xmalloc((size_t)(p->n ? p->n : 1) * sizeof *scale);
    uint8_t *zp = pz_xmalloc((size_t)(p->n ? p->n : 1));
    for (int i = 0; i < p->n; i++) {
        int j = p->same_as[i] >= 0 ? p->same_as[i] : i;
        quant_u8_params(p->lo[j], p->hi[j], &scale[i], &zp[i]);
    }
    /* names the rewrite adds must be new */
    static const char *const SUFFIX[] = {"_quantized", "_scale", "_zero_point", "_dequantized"};
    for (int i = 0; i < p->n; i++)
        for (size_t k = 0; k < PZ_ARRAY_LEN(SUFFIX); k++) {
            char *s = cat(p->names[i], SUFFIX[k]);
            int taken = find_init(gp, s) >= 0 || producer(gp, s) >= 0;
            if (taken) {
                pz_fail(err, PZ_ERR_INPUT, "tensor \"%s\" already exists: the quantized model "
                        "would define it twice", s);
                free(s);
                goto fail;
            }
            free(s);
        }

    node_list l = {0};
    unsigned char *orig_flag = NULL;
    qweight *ws = NULL;
    int nws = 0;
    /* pairs on graph inputs come first */
    for (int i = 0; i < p->n; i++)
        if (producer(gp, p->names[i]) < 0) emit_pair(gp, &l, p->names[i], scale[i], zp[i]);
    size_t n_orig = gp->n_node;
    Onnx__NodeProto **orig = gp->node;
    for (size_t i = 0; i < n_orig; i++) {
        Onnx__NodeProto *n = orig[i];
        int conv = is_op(n, "Conv"), gemm = is_op(n, "Gemm"), mm = is_op(n, "MatMul");
        if ((conv || gemm || mm) && n->n_input >= 2) {
            int axis = conv ? 0 : gemm ? (attr_i(n, "transB", 0) ? 0 : 1) : 1;
            qweight *w = quant_weight(gp, dir, &l, &ws, &nws, n->input[1], axis, conv ? 0 : 2, st,
                                      err);
            if (err->code) goto fail_l;
            if (w) {
                rename_input(n, 1, "_dequantized");
                int xi = plan_find(p, n->input[0]);
                int bias_ok = conv || (attr_f(n, "alpha", 1) == 1 && attr_f(n, "beta", 1) == 1);
                if (xi >= 0 && bias_ok && (conv || gemm) && n->n_input >= 3 && n->input[2][0] &&
                    quant_bias(gp, dir, &l, n->input[2], scale[xi], w, st, err))
                    rename_input(n, 2, "_dequantized");
                if (err->code) goto fail_l;
            }
        }
        list_push(&l, n);
        for (size_t k = 0; k < n->n_output; k++) {
            int j = plan_find(p, n->output[k]);
            if (j >= 0) emit_pair(gp, &l, n->output[k], scale[j], zp[j]);
        }
    }
    /* every original reader of a paired tensor reads its DequantizeLinear */
    for (size_t i = 0; i < n_orig; i++)
        for (size_t k = 0; k < orig[i]->n_input; k++)
            if (plan_find(p, orig[i]->input[k]) >= 0) rename_input(orig[i], k, "_dequantized");
    if (st) st->pairs = p->n;
    free(gp->node);
    gp->node = l.v;
    gp->n_node = l.n;
    /* Identity nodes left without readers (a bias read through one) go */
    for (size_t i = 0; i < gp->n_node; i++) {
        Onnx__NodeProto *n = gp->node[i];
        if (!is_op(n, "Identity") || n->n_output != 1 || readers(gp, n->output[0], NULL)) continue;
        onnx__node_proto__free_unpacked(n, NULL);
        memmove(&gp->node[i], &gp->node[i + 1], (gp->n_node - i - 1) * sizeof *gp->node);
        gp->n_node--;
        i--;
    }
    drop_unused_inits(gp);
    /* per-axis DequantizeLinear needs opset 13, which IR version 7 brings */
    if (m->ir_version < 7) {
        m->ir_version = 7;
        m->has_ir_version = 1;
    }
    for (size_t i = 0; i < m->n_opset_import; i++) {
        Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if ((!o->domain || !o->domain[0] || !strcmp(o->domain, "ai.onnx")) && o->version < 13) {
            o->version = 13;
            o->has_version = 1;
        }
    }
    for (int i = 0; i < nws; i++) free(ws[i].name), free(ws[i].scale);
    free(ws);
    free(orig_flag);
    free(scale);
    free(zp);
    return PZ_OK;
fail_l:
    /* the original nodes stay in gp->node; the new ones are freed */
    for (size_t i = 0; i < l.n; i++) {
        int original = 0;
        for (size_t j = 0; j < n_orig && !original; j++) original = l.v[i] == orig[j];
        if (!original) onnx__node_proto__free_unpacked(l.v[i], NULL);
    }
    free(l.v);
    for (int i = 0; i < nws; i++) free(ws[i].name), free(ws[i].scale);
    free(ws);
fail:
    free(scale);
    free(zp);
    return err->code;
}
