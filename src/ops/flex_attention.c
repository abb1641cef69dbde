/* flex_attention.c - FlexAttention (domain ai.onnx.preview, opset 1):
 *   Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] -> Y [B, Hq, L, Ev],
 *   Y = softmax(Q K^T * scale) V per head, query head h reading kv head
 *   h / (Hq / Hkv). scale default 1/sqrt(E). MACs: B*Hq*L*S*(E + Ev).
 * Without graph attributes it runs as the ATTENTION layer
 * (rt/ops/attention.c). With score_mod, mask_mod or prob_mod it unfolds at
 * compile time (op_inline.h) into the ONNX function body, the subgraphs
 * inlined on the whole tensor at their stage:
 *   scores = (Q*sqrt(scale)) @ (K*sqrt(scale))^T   (K, V repeated per group)
 *   scores = score_mod(scores); scores = mask_mod(scores)
 *   Y = prob_mod(Softmax(scores, -1)) @ V
 * A subgraph of one input takes that tensor. The per-element forms of the
 * newer schema are taken too, applied to the whole tensor at once (so their
 * ops must broadcast element-wise): score_mod and prob_mod of 5 inputs
 * (value, b, h, q_idx, kv_idx) get int64 index tensors [B,1,1,1],
 * [1,H,1,1], [1,1,L,1], [1,1,1,S]; mask_mod of 4 inputs (b, h, q_idx,
 * kv_idx) gives a bool mask and scores = Where(mask, scores, -inf). */
#include <math.h>
#include <string.h>

#include "op_inline.h"
#include "op_train.h"

typedef struct {
    pz_attention_params rt;
    int has_scale;
} flex_attention_params;

static pz_status flex_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    flex_attention_params *p = params;
    if (op_attr_float(n, "scale", 0, &p->rt.scale, err)) return err->code;
    if (!isfinite(p->rt.scale)) return op_err_attr(err, n, "scale", "must be finite");
    p->has_scale = op_attr(n, "scale") != NULL;
    return PZ_OK;
}

static pz_status flex_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    flex_attention_params *p = n->params;
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1), *v = op_in(g, n, 2);
    if (!q || !k || !v) return op_err(err, n, "needs the inputs Q, K and V");
    if (!ir_dtype_is_float(q->dtype))
        return op_err(err, n, "input Q has type %s, expected a float type",
                      ir_dtype_name(q->dtype));
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        return op_err(err, n, "inputs K (%s) and V (%s) must have Q's type %s",
                      ir_dtype_name(k->dtype), ir_dtype_name(v->dtype), ir_dtype_name(q->dtype));
    if (q->rank != 4 || k->rank != 4 || v->rank != 4)
        return op_err(err, n, "Q, K, V have ranks %d, %d, %d; expected 4", q->rank, k->rank,
                      v->rank);
    int64_t B = q->dims[0], hq = q->dims[1], L = q->dims[2], E = q->dims[3];
    int64_t hkv = k->dims[1], S = k->dims[2], ev = v->dims[3];
    if (k->dims[0] != B || v->dims[0] != B || k->dims[3] != E || v->dims[1] != hkv ||
        v->dims[2] != S)
        return op_err(err, n, "K [%lld, %lld, %lld, %lld] and V do not match Q's batch and "
                      "head size or each other", (long long)k->dims[0], (long long)hkv,
                      (long long)S, (long long)k->dims[3]);
    if (hkv <= 0 || hq % hkv)
        return op_err(err, n, "%lld query heads do not group over %lld kv heads",
                      (long long)hq, (long long)hkv);
    if (!p->has_scale) p->rt.scale = (float)(1.0 / sqrt((double)E));
    op_set_out(g, n, 0, q->dtype, 4, (int64_t[]){B, hq, L, ev});
    return PZ_OK;
}

/* B*Hq*L*S*(E + Ev): the scores, then the weighted sum of the values */
static void flex_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1);
    const ir_tensor *y = op_out((ir_graph *)g, n, 0);
    if (!q || !k || !y || k->rank != 4) return;
    c->macs = k->dims[2] * (ir_tensor_numel(q) + ir_tensor_numel(y));
}

static pz_status flex_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const flex_attention_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_ATTENTION, &p->rt, sizeof p->rt);
    return PZ_OK;
}

static const char *const flex_mods[3] = {"score_mod", "mask_mod", "prob_mod"};

static int flex_unfolds(const ir_graph *g, const ir_node *n)
{
    (void)g;
    for (int i = 0; i < n->n_attrs; i++)
        if (n->attrs[i].type == IR_ATTR_GRAPH || n->attrs[i].type == IR_ATTR_GRAPHS) return 1;
    return 0;
}

/* A constant of dtype dt: one value, or an int64 vector. */
static int flex_scalar(op_train_builder *b, ir_dtype dt, double v)
{
    double buf[1];
    ir_store_f64(buf, dt, 0, v);
    return op_new_const(b->g, b->name, dt, 0, NULL, buf);
}

static int flex_ints(op_train_builder *b, const int64_t *v, int cnt)
{
    int64_t d = cnt;
    return op_new_const(b->g, b->name, IR_I64, 1, &d, v);
}

/* K or V [B, Hkv, S, D] -> [B, Hq, S, D], kv head j serving query heads
 * j*rep .. j*rep + rep-1 (Unsqueeze, Expand, Reshape). */
static int flex_repeat(op_train_builder *b, int x, const ir_tensor *t, int64_t hq)
{
    const int64_t hkv = t->dims[1];
    if (hkv == hq) return x;
    const int64_t ex[5] = {t->dims[0], hkv, hq / hkv, t->dims[2], t->dims[3]};
    const int64_t to[4] = {t->dims[0], hq, t->dims[2], t->dims[3]};
    char nm[512];
    snprintf(nm, sizeof nm, "%s/%d", b->name, b->k++);
    int u = op_append_unsqueeze(b->g, nm, x, 2);
    return op_train_node(b, "Reshape", op_train_node(b, "Expand", u, flex_ints(b, ex, 5)),
                         flex_ints(b, to, 4));
}

/* The int64 index tensor of axis a of [B, H, L, S]: 0..n-1 along a, 1 elsewhere. */
static int flex_index(op_train_builder *b, const int64_t *dims, int a)
{
    int64_t shape[4] = {1, 1, 1, 1};
    shape[a] = dims[a];
    int64_t *v = pz_xmalloc((size_t)(dims[a] ? dims[a] : 1) * sizeof *v);
    for (int64_t i = 0; i < dims[a]; i++) v[i] = i;
    int id = op_new_const(b->g, b->name, IR_I64, 4, shape, v);
    free(v);
    return id;
}

/* Inlines subgraph `sub` of attribute mods[m] on x [B, H, L, S]; *y its
 * result (for mask_mod of 4 inputs, x with the masked scores -inf). */
static pz_status flex_mod(op_train_builder *b, int i, int m, const ir_graph *sub, int x,
                          const int64_t *dims, ir_dtype dt, int *y, pz_err *err)
{
    const int per_elem = m == 1 ? 4 : 5;
    int args[5], na = 0;
    if (sub->n_outputs != 1)
        return op_err_attr(err, &b->g->nodes[i], flex_mods[m], "gives %d outputs, expected 1",
                           sub->n_outputs);
    if (sub->n_inputs != 1 && sub->n_inputs != per_elem)
        return op_err_attr(err, &b->g->nodes[i], flex_mods[m], "takes %d inputs, expected 1 "
                           "or %d", sub->n_inputs, per_elem);
    if (sub->n_inputs == 1 || m != 1) args[na++] = x;
    if (sub->n_inputs != 1)
        for (int a = 0; a < 4; a++) args[na++] = flex_index(b, dims, a);
    char prefix[520];
    snprintf(prefix, sizeof prefix, "%s/%s", b->name, flex_mods[m]);
    if (op_inline(b->g, &b->g->nodes[i], flex_mods[m], sub, prefix, args, na, y, err))
        return err->code;
    if (m == 1 && sub->n_inputs != 1) {
        char nm[512];
        snprintf(nm, sizeof nm, "%s/%d", b->name, b->k++);
        int w = ir_graph_add_value_unique(b->g, nm);
        op_append_node(b->g, nm, "Where", (int[]){*y, x, flex_scalar(b, dt, -INFINITY)}, 3, &w,
                       1);
        *y = w;
    }
    return PZ_OK;
}

static pz_status flex_unfold(ir_graph *g, int i, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    flex_attention_params p = {0};
    if (flex_parse(g, n, &p, err)) return err->code;
    const ir_graph *mods[3] = {NULL, NULL, NULL};
    for (int a = 0; a < n->n_attrs; a++) {
        int m = 0;
        while (m < 3 && strcmp(n->attrs[a].name, flex_mods[m])) m++;
        if (m == 3 && strcmp(n->attrs[a].name, "scale"))
            return op_err_attr(err, n, n->attrs[a].name, "is not an attribute of FlexAttention");
        if (m < 3 && op_attr_graph(n, flex_mods[m], &mods[m], err)) return err->code;
    }
    /* the shape checks of the fused form (flex_infer) on a scratch output */
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1), *v = op_in(g, n, 2);
    if (!q || !k || !v) return op_err(err, n, "needs the inputs Q, K and V");
    ir_node probe = *n;
    probe.params = &p;
    probe.n_out = 0;
    if (flex_infer(g, &probe, err)) return err->code;
    const ir_dtype dt = q->dtype;
    const int64_t hq = q->dims[1];
    const int64_t dims[4] = {q->dims[0], hq, q->dims[2], k->dims[2]};
    const ir_tensor kt = *k, vt = *v;
    int in[3] = {n->in[0], n->in[1], n->in[2]};
    op_train_builder b = {g, pz_xstrdup(n->name), 0};
    const int start = g->n_nodes;
    int sq = flex_scalar(&b, dt, sqrt((double)p.rt.scale));
    int kal = flex_repeat(&b, in[1], &kt, hq), val = flex_repeat(&b, in[2], &vt, hq);
    int ks = op_train_node(&b, "Mul", kal, sq);
    int ktr = op_train_node(&b, "Transpose", ks, -1);
    ir_node *tr = &g->nodes[g->n_nodes - 1];
    tr->attrs = pz_xcalloc(1, sizeof *tr->attrs);
    tr->attrs[0] = (ir_attr){.name = pz_xstrdup("perm"), .type = IR_ATTR_INTS, .n = 4,
                             .ints = pz_xmalloc(4 * sizeof(int64_t))};
    memcpy(tr->attrs[0].ints, (int64_t[]){0, 1, 3, 2}, 4 * sizeof(int64_t));
    tr->n_attrs = 1;
    int x = op_train_node(&b, "MatMul", op_train_node(&b, "Mul", in[0], sq), ktr);
    pz_status st = PZ_OK;
    for (int m = 0; m < 2 && !st; m++)
        if (mods[m]) st = flex_mod(&b, i, m, mods[m], x, dims, dt, &x, err);
    if (!st) {
        x = op_train_node(&b, "Softmax", x, -1);
        ir_node_add_attr_int(&g->nodes[g->n_nodes - 1], "axis", -1);
        if (mods[2]) st = flex_mod(&b, i, 2, mods[2], x, dims, dt, &x, err);
    }
    if (!st) {
        x = op_train_node(&b, "MatMul", x, val);
        op_train_finish(&b, i, start, &x);
    } else {
        free(b.name);
    }
    return st;
}

const op_def op_flex_attention = {
    .name = "FlexAttention",
    .domain = "ai.onnx.preview",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(flex_attention_params),
    .parse = flex_parse,
    .infer = flex_infer,
    .cost = flex_cost,
    .lower = flex_lower,
    .unfold = flex_unfold,
    .unfolds = flex_unfolds,
};
