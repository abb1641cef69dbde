/* linear_attention.c - LinearAttention (opset 27):
 *   query [B, T, Hq*Dk], key [B, T, Hkv*Dk], value [B, T, Hkv*Dv],
 *   past_state? [B, Hkv, Dk, Dv], decay? [B, T, Hkv*Dk or Hkv],
 *   beta? [B, T, Hkv or 1] -> output [B, T, Hq*Dv], present_state?
 *   [B, Hkv, Dk, Dv] (past_state's type, else query's).
 * update_rule linear, gated (decay), delta (beta) or gated_delta (both, the
 * default); q_num_heads, kv_num_heads required; scale 0: 1/sqrt(Dk);
 * chunk_size is a tuning hint without effect on the result. The input
 * erase_gate is refused. MACs: B*T*(Hkv*Dk*Dv*(2 or 3) + Hq*Dk*Dv). Runs as
 * LINEAR_ATTENTION (rt/ops/linear_attention.c). */
#include <math.h>
#include <string.h>

#include "op.h"

typedef struct {
    pz_linear_attention_params rt;
    int has_scale;
} linear_attention_params;

static pz_status la_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    linear_attention_params *p = params;
    int64_t qh, kvh, chunk;
    const char *rule;
    if (op_attr_int(n, "q_num_heads", 0, &qh, err) ||
        op_attr_int(n, "kv_num_heads", 0, &kvh, err) ||
        op_attr_int(n, "chunk_size", 64, &chunk, err) ||
        op_attr_float(n, "scale", 0, &p->rt.scale, err) ||
        op_attr_string(n, "update_rule", "gated_delta", &rule, err))
        return err->code;
    if (qh <= 0 || qh > 1 << 20)
        return op_err_attr(err, n, "q_num_heads", "is required, in 1..2^20");
    if (kvh <= 0 || kvh > 1 << 20)
        return op_err_attr(err, n, "kv_num_heads", "is required, in 1..2^20");
    if (qh % kvh)
        return op_err_attr(err, n, "q_num_heads", "%lld is not a multiple of kv_num_heads %lld",
                           (long long)qh, (long long)kvh);
    if (!isfinite(p->rt.scale)) return op_err_attr(err, n, "scale", "must be finite");
    if (!strcmp(rule, "linear")) p->rt.rule = PZ_LA_LINEAR;
    else if (!strcmp(rule, "gated")) p->rt.rule = PZ_LA_GATED;
    else if (!strcmp(rule, "delta")) p->rt.rule = PZ_LA_DELTA;
    else if (!strcmp(rule, "gated_delta")) p->rt.rule = PZ_LA_GATED_DELTA;
    else
        return op_err_attr(err, n, "update_rule", "is \"%s\", expected linear, gated, delta "
                           "or gated_delta", rule);
    p->rt.q_num_heads = (int)qh;
    p->rt.kv_num_heads = (int)kvh;
    p->has_scale = p->rt.scale != 0;
    return PZ_OK;
}

static pz_status la_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    linear_attention_params *p = n->params;
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1), *v = op_in(g, n, 2);
    const ir_tensor *past = op_in(g, n, 3), *decay = op_in(g, n, 4), *beta = op_in(g, n, 5);
    if (!q || !k || !v) return op_err(err, n, "needs the inputs query, key and value");
    if (op_in(g, n, 6))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input erase_gate is not "
                       "supported", n->name, n->op_type);
    if (!ir_dtype_is_float(q->dtype))
        return op_err(err, n, "input query has type %s, expected a float type",
                      ir_dtype_name(q->dtype));
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        return op_err(err, n, "inputs key (%s) and value (%s) must have query's type %s",
                      ir_dtype_name(k->dtype), ir_dtype_name(v->dtype), ir_dtype_name(q->dtype));
    if (q->rank != 3 || k->rank != 3 || v->rank != 3)
        return op_err(err, n, "query, key, value have ranks %d, %d, %d; expected 3 "
                      "([batch, time, heads * head size])", q->rank, k->rank, v->rank);
    int64_t B = q->dims[0], T = q->dims[1], hq = p->rt.q_num_heads, hkv = p->rt.kv_num_heads;
    if (k->dims[0] != B || v->dims[0] != B || k->dims[1] != T || v->dims[1] != T)
        return op_err(err, n, "key and value must have query's batch %lld and time %lld",
                      (long long)B, (long long)T);
    if (q->dims[2] % hq || k->dims[2] % hkv || v->dims[2] % hkv)
        return op_err(err, n, "query, key, value do not split into %lld, %lld, %lld heads",
                      (long long)hq, (long long)hkv, (long long)hkv);
    int64_t dk = q->dims[2] / hq, dv = v->dims[2] / hkv;
    if (k->dims[2] / hkv != dk)
        return op_err(err, n, "key's head size %lld differs from query's %lld",
                      (long long)(k->dims[2] / hkv), (long long)dk);
    int gating = p->rt.rule == PZ_LA_GATED || p->rt.rule == PZ_LA_GATED_DELTA;
    int delta = p->rt.rule == PZ_LA_DELTA || p->rt.rule == PZ_LA_GATED_DELTA;
    static const char *const rules[] = {"linear", "gated", "delta", "gated_delta"};
    if (gating != (decay != NULL) || delta != (beta != NULL))
        return op_err_attr(err, n, "update_rule", "%s %s the input %s", rules[p->rt.rule],
                           gating != (decay != NULL) ? (gating ? "needs" : "takes no")
                                                     : (delta ? "needs" : "takes no"),
                           gating != (decay != NULL) ? "decay" : "beta");
    if (decay && (decay->dtype != q->dtype || decay->rank != 3 || decay->dims[0] != B ||
                  decay->dims[1] != T || (decay->dims[2] != hkv && decay->dims[2] != hkv * dk)))
        return op_err(err, n, "decay must be [%lld, %lld, %lld or %lld] of query's type",
                      (long long)B, (long long)T, (long long)hkv, (long long)(hkv * dk));
    if (beta && (beta->dtype != q->dtype || beta->rank != 3 || beta->dims[0] != B ||
                 beta->dims[1] != T || (beta->dims[2] != hkv && beta->dims[2] != 1)))
        return op_err(err, n, "beta must be [%lld, %lld, %lld or 1] of query's type",
                      (long long)B, (long long)T, (long long)hkv);
    int sdt = q->dtype;
    if (past) {
        if (!ir_dtype_is_float(past->dtype) || past->rank != 4 || past->dims[0] != B ||
            past->dims[1] != hkv || past->dims[2] != dk || past->dims[3] != dv)
            return op_err(err, n, "past_state must be [%lld, %lld, %lld, %lld] of a float type",
                          (long long)B, (long long)hkv, (long long)dk, (long long)dv);
        sdt = past->dtype;
    }
    if (!p->has_scale) p->rt.scale = (float)(1.0 / sqrt((double)dk));
    op_set_out(g, n, 0, q->dtype, 3, (int64_t[]){B, T, hq * dv});
    op_set_out(g, n, 1, sdt, 4, (int64_t[]){B, hkv, dk, dv});
    return PZ_OK;
}

/* per step and kv head: the write k v^T (and the delta rule's read S^T k,
 * the decay's scaling), then per query head the read S^T q */
static void la_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const linear_attention_params *p = n->params;
    const ir_tensor *q = op_in(g, n, 0), *v = op_in(g, n, 2);
    if (!q || !v || q->rank != 3 || v->rank != 3) return;
    int64_t hq = p->rt.q_num_heads, hkv = p->rt.kv_num_heads;
    int64_t dk = q->dims[2] / hq, dv = v->dims[2] / hkv;
    int per_state = 1 + (op_in(g, n, 4) != NULL) + (op_in(g, n, 5) != NULL);
    c->macs = q->dims[0] * q->dims[1] * dk * dv * (hkv * per_state + hq);
}

static pz_status la_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const linear_attention_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_LINEAR_ATTENTION, &p->rt, sizeof p->rt);
    return PZ_OK;
}

const op_def op_linear_attention = {
    .name = "LinearAttention",
    .min_in = 3, .max_in = 7, .min_out = 1, .max_out = 2,
    .params_size = sizeof(linear_attention_params),
    .parse = la_parse,
    .infer = la_infer,
    .cost = la_cost,
    .lower = la_lower,
};
