/* qdq.c - the float model rewritten into the QDQ format (see quant.h): the
 * activations to pair chosen, and the int8 weights, int32 biases and
 * QuantizeLinear/DequantizeLinear pairs written. */
#include <math.h>
#include <string.h>

#include "quant_internal.h"

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
    if (qp_is_op(n, "Relu")) return 1;
    if (!qp_is_op(n, "Clip")) return 0;
    if (n->n_input >= 2 && n->input[1][0]) {
        int v = ir_graph_find((ir_graph *)g, n->input[1]);
        if (v < 0) return 0;
        const ir_tensor *t = &g->values[v].t;
        return t->data && t->dtype == IR_F32 && ir_tensor_numel(t) == 1 &&
               *(const float *)t->data >= 0;
    }
    const Onnx__AttributeProto *a = qp_attr(n, "min");
    return a && a->f >= 0;
}

int quant_node_quantizes(const Onnx__NodeProto *n)
{
    static const char *const OPS[] = {"Conv", "Gemm", "MatMul", "Add", "Concat", "MaxPool",
                                      "AveragePool", "GlobalAveragePool"};
    for (size_t i = 0; i < PZ_ARRAY_LEN(OPS); i++)
        if (qp_is_op(n, OPS[i])) return 1;
    return 0;
}

pz_status quant_plan_make(const Onnx__ModelProto *m, const ir_graph *g,
                          const unsigned char *keep_float, quant_plan *p, pz_err *err)
{
    const Onnx__GraphProto *gp = m->graph;
    memset(p, 0, sizeof *p);
    if (keep_float) {
        p->keep_float = pz_xmalloc(gp->n_node ? gp->n_node : 1);
        memcpy(p->keep_float, keep_float, gp->n_node);
    }
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *n = gp->node[i];
        if (!quant_node_quantizes(n) || (keep_float && keep_float[i])) continue;
        /* inputs: the activation operand(s) */
        size_t nin = qp_is_op(n, "Conv") ? 1 : qp_is_op(n, "Gemm") || qp_is_op(n, "MatMul") ? 2
                   : qp_is_op(n, "Add") || qp_is_op(n, "Concat") ? n->n_input : 1;
        if (nin > n->n_input) nin = n->n_input;
        int first = -1;
        for (size_t k = 0; k < nin; k++) {
            if (!is_act(g, n->input[k]) || qp_is_graph_output(gp, n->input[k])) continue;
            int j = plan_add(p, n->input[k], -1);
            if (k == 0) first = j;
        }
        /* the output, or the Relu/Clip after it */
        if (n->n_output < 1 || !is_act(g, n->output[0])) continue;
        const char *t = n->output[0];
        int only = -1;
        if (qp_readers(gp, t, &only) == 1 && only >= 0 && is_relu_like(m, g, gp->node[only]))
            t = gp->node[only]->output[0];
        if (qp_is_graph_output(gp, t) || !is_act(g, t)) continue;
        int same = qp_is_op(n, "MaxPool") && t == n->output[0] ? first : -1;
        plan_add(p, t, same);
    }
    p->lo = pz_xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->lo);
    p->hi = pz_xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->hi);
    if (!p->n && !keep_float)
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
    free(p->keep_float);
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
    char *sn = qp_cat(t, "_scale"), *zn = qp_cat(t, "_zero_point"), *qn = qp_cat(t, "_quantized"),
         *dn = qp_cat(t, "_dequantized"), *qnode = qp_cat(t, "_QuantizeLinear"),
         *dnode = qp_cat(t, "_DequantizeLinear");
    qp_push_init(gp, qp_tp_new(sn, IR_F32, NULL, 0, &s, sizeof s));
    qp_push_init(gp, qp_tp_new(zn, IR_U8, NULL, 0, &zp, 1));
    const char *qin[3] = {t, sn, zn}, *din[3] = {qn, sn, zn};
    list_push(l, qp_node_new("QuantizeLinear", qnode, qin, 3, qn));
    list_push(l, qp_node_new("DequantizeLinear", dnode, din, 3, dn));
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
    int idx = qp_find_init(gp, name);
    if (idx < 0) return NULL;
    ir_tensor w;
    if (qp_init_f32(gp, idx, dir, &w, err)) return NULL;
    if ((rank_want && w.rank != rank_want) || w.rank < 2 || axis >= w.rank) {
        ir_tensor_free_data(&w);
        return NULL;
    }
    int64_t nc = w.dims[axis];
    float *scale = pz_xcalloc((size_t)nc, sizeof *scale);
    int64_t n = ir_tensor_numel(&w);
    int8_t *q = pz_xmalloc((size_t)(n ? n : 1));
    qp_weight_i8(&w, axis, scale, q);
    int8_t *zp = pz_xcalloc((size_t)nc, 1);
    char *qn = qp_cat(name, "_quantized"), *sn = qp_cat(name, "_scale"), *zn = qp_cat(name, "_zero_point"),
         *dn = qp_cat(name, "_dequantized"), *node = qp_cat(name, "_DequantizeLinear");
    qp_push_init(gp, qp_tp_new(qn, IR_I8, w.dims, w.rank, q, (size_t)n));
    qp_push_init(gp, qp_tp_new(sn, IR_F32, &nc, 1, scale, (size_t)nc * sizeof *scale));
    qp_push_init(gp, qp_tp_new(zn, IR_I8, &nc, 1, zp, (size_t)nc));
    const char *in[3] = {qn, sn, zn};
    Onnx__NodeProto *dq = qp_node_new("DequantizeLinear", node, in, 3, dn);
    qp_node_set_axis(dq, axis);
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
    int idx = qp_find_init(gp, name), pi;
    /* torch's exporter shares equal biases through Identity nodes */
    if (idx < 0 && (pi = qp_producer(gp, name)) >= 0 && qp_is_op(gp->node[pi], "Identity"))
        idx = qp_find_init(gp, gp->node[pi]->input[0]);
    char *qn = qp_cat(name, "_quantized");
    int done = qp_find_init(gp, qn) >= 0;   /* shared with another node: stays float here */
    if (idx < 0 || done) {
        free(qn);
        return 0;
    }
    ir_tensor b;
    if (qp_init_f32(gp, idx, dir, &b, err)) {
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
    char *sn = qp_cat(name, "_scale"), *zn = qp_cat(name, "_zero_point"), *dn = qp_cat(name, "_dequantized"),
         *node = qp_cat(name, "_DequantizeLinear");
    qp_push_init(gp, qp_tp_new(qn, IR_I32, &nc, 1, q, (size_t)nc * sizeof *q));
    qp_push_init(gp, qp_tp_new(sn, IR_F32, &nc, 1, s, (size_t)nc * sizeof *s));
    qp_push_init(gp, qp_tp_new(zn, IR_I32, &nc, 1, zp, (size_t)nc * sizeof *zp));
    const char *in[3] = {qn, sn, zn};
    Onnx__NodeProto *dq = qp_node_new("DequantizeLinear", node, in, 3, dn);
    qp_node_set_axis(dq, 0);
    list_push(l, dq);
    free(qn), free(sn), free(zn), free(dn), free(node), free(q), free(zp), free(s);
    ir_tensor_free_data(&b);
    if (st) st->biases++;
    return 1;
}

static void rename_input(Onnx__NodeProto *n, size_t k, const char *suffix)
{
    char *s = qp_cat(n->input[k], suffix);
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
            char *s = qp_cat(p->names[i], SUFFIX[k]);
            int taken = qp_find_init(gp, s) >= 0 || qp_producer(gp, s) >= 0;
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
        if (qp_producer(gp, p->names[i]) < 0) emit_pair(gp, &l, p->names[i], scale[i], zp[i]);
    size_t n_orig = gp->n_node;
    Onnx__NodeProto **orig = gp->node;
    for (size_t i = 0; i < n_orig; i++) {
        Onnx__NodeProto *n = orig[i];
        int conv = qp_is_op(n, "Conv"), gemm = qp_is_op(n, "Gemm");
        int axis, rank_want;
        if (qp_weight_axis(n, &axis, &rank_want) && !(p->keep_float && p->keep_float[i])) {
            qweight *w = quant_weight(gp, dir, &l, &ws, &nws, n->input[1], axis, rank_want, st,
                                      err);
            if (err->code) goto fail_l;
            if (w) {
                rename_input(n, 1, "_dequantized");
                int xi = plan_find(p, n->input[0]);
                int bias_ok = conv || (qp_attr_f(n, "alpha", 1) == 1 && qp_attr_f(n, "beta", 1) == 1);
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
        if (!qp_is_op(n, "Identity") || n->n_output != 1 || qp_readers(gp, n->output[0], NULL)) continue;
        onnx__node_proto__free_unpacked(n, NULL);
        memmove(&gp->node[i], &gp->node[i + 1], (gp->n_node - i - 1) * sizeof *gp->node);
        gp->n_node--;
        i--;
    }
    qp_drop_unused_inits(gp);
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
