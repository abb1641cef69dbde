/* flex_attention.c - FlexAttention (domain ai.onnx.preview, opset 1):
 *   Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] -> Y [B, Hq, L, Ev],
 *   Y = softmax(Q K^T * scale) V per head, query head h reading kv head
 *   h / (Hq / Hkv). scale default 1/sqrt(E). The graph attributes
 *   score_mod, mask_mod and prob_mod (and any other graph) are refused: the
 *   IR holds no subgraphs. MACs: B*Hq*L*S*(E + Ev). Runs as the ATTENTION
 *   layer (rt/ops/attention.c). */
#include <math.h>

#include "op.h"

typedef struct {
    pz_attention_params rt;
    int has_scale;
} flex_attention_params;

static pz_status flex_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    flex_attention_params *p = params;
    for (int i = 0; i < n->n_attrs; i++)
        if (n->attrs[i].type == IR_ATTR_GRAPH || n->attrs[i].type == IR_ATTR_GRAPHS)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute '%s' (a "
                           "graph) is not supported", n->name, n->op_type, n->attrs[i].name);
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

const op_def op_flex_attention = {
    .name = "FlexAttention",
    .domain = "ai.onnx.preview",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(flex_attention_params),
    .parse = flex_parse,
    .infer = flex_infer,
    .cost = flex_cost,
    .lower = flex_lower,
};
