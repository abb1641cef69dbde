/* attention.c - Attention (opset 23; 24 adds input nonpad_kv_seqlen):
 *   Q [B, Hq, S, Dk] or [B, S, Hq*Dk], K [.., L, Dk], V [.., L, Dv] (3-D
 *   heads from q_num_heads, kv_num_heads), attn_mask? (bool or Q's type,
 *   broadcast to [B, Hq, S, T], T = P + L), past_key? past_value?
 *   [B, Hkv, P, D], nonpad_kv_seqlen? int64 [B]
 *   -> Y [B, Hq, S, Dv] or [B, S, Hq*Dv], present_key/value [B, Hkv, T, D],
 *   qk_matmul_output [B, Hq, S, T].
 * scale default 1/sqrt(Dk); softcap, is_causal, qk_matmul_output_mode 0-3;
 * softmax_precision any float (the kernel computes in double). MACs:
 * B*Hq*S*T*(Dk + Dv). Runs as the ATTENTION layer (rt/ops/attention.c). */
#include <math.h>

#include "op.h"

typedef struct {
    pz_attention_params rt;
    int has_scale;
} attention_params;

static pz_status attention_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    attention_params *p = params;
    int64_t qh, kvh, causal, mode, prec;
    if (op_attr_int(n, "q_num_heads", 0, &qh, err) ||
        op_attr_int(n, "kv_num_heads", 0, &kvh, err) ||
        op_attr_int(n, "is_causal", 0, &causal, err) ||
        op_attr_int(n, "qk_matmul_output_mode", 0, &mode, err) ||
        op_attr_int(n, "softmax_precision", 1, &prec, err) ||
        op_attr_float(n, "scale", 0, &p->rt.scale, err) ||
        op_attr_float(n, "softcap", 0, &p->rt.softcap, err))
        return err->code;
    if (qh < 0 || qh > 1 << 20 || kvh < 0 || kvh > 1 << 20)
        return op_err_attr(err, n, qh < 0 || qh > 1 << 20 ? "q_num_heads" : "kv_num_heads",
                           "is out of range");
    if (mode < 0 || mode > 3)
        return op_err_attr(err, n, "qk_matmul_output_mode", "is %lld, expected 0 to 3",
                           (long long)mode);
    if (prec != 1 && prec != 10 && prec != 11 && prec != 16)
        return op_err_attr(err, n, "softmax_precision", "is %lld, not a float type",
                           (long long)prec);
    if (!isfinite(p->rt.softcap) || p->rt.softcap < 0)
        return op_err_attr(err, n, "softcap", "must be finite and >= 0");
    p->has_scale = op_attr(n, "scale") != NULL;
    p->rt.q_num_heads = (int)qh;
    p->rt.kv_num_heads = (int)kvh;
    p->rt.is_causal = causal != 0;
    p->rt.qk_mode = (int)mode;
    return PZ_OK;
}

static pz_status attention_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    attention_params *p = n->params;
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1), *v = op_in(g, n, 2);
    const ir_tensor *m = op_in(g, n, 3), *pk = op_in(g, n, 4), *pv = op_in(g, n, 5);
    const ir_tensor *np = op_in(g, n, 6);
    if (!q || !k || !v) return op_err(err, n, "needs the inputs Q, K and V");
    if (!ir_dtype_is_float(q->dtype))
        return op_err(err, n, "input Q has type %s, expected a float type",
                      ir_dtype_name(q->dtype));
    if (k->dtype != q->dtype || v->dtype != q->dtype)
        return op_err(err, n, "inputs K (%s) and V (%s) must have Q's type %s",
                      ir_dtype_name(k->dtype), ir_dtype_name(v->dtype), ir_dtype_name(q->dtype));
    if ((q->rank != 3 && q->rank != 4) || k->rank != q->rank || v->rank != q->rank)
        return op_err(err, n, "Q, K, V have ranks %d, %d, %d; expected all 3 or all 4",
                      q->rank, k->rank, v->rank);
    int64_t B = q->dims[0], hq, hkv, S, L, dk, dv;
    if (q->rank == 4) {
        hq = q->dims[1], hkv = k->dims[1], S = q->dims[2], L = k->dims[2];
        dk = q->dims[3], dv = v->dims[3];
        if (k->dims[3] != dk || v->dims[1] != hkv || v->dims[2] != L)
            return op_err(err, n, "K [.., %lld heads, %lld, %lld] and V do not match Q's head "
                          "size %lld", (long long)hkv, (long long)L, (long long)k->dims[3],
                          (long long)dk);
    } else {
        hq = p->rt.q_num_heads, hkv = p->rt.kv_num_heads, S = q->dims[1], L = k->dims[1];
        if (hq <= 0 || hkv <= 0)
            return op_err_attr(err, n, hq <= 0 ? "q_num_heads" : "kv_num_heads",
                               "is needed (> 0) for 3-D inputs");
        if (q->dims[2] % hq || k->dims[2] % hkv || v->dims[2] % hkv || v->dims[1] != L)
            return op_err(err, n, "3-D Q, K, V do not split into %lld and %lld heads",
                          (long long)hq, (long long)hkv);
        dk = q->dims[2] / hq, dv = v->dims[2] / hkv;
        if (k->dims[2] / hkv != dk) return op_err(err, n, "K's head size differs from Q's");
    }
    if (hkv <= 0 || hq % hkv)
        return op_err(err, n, "%lld query heads do not group over %lld kv heads",
                      (long long)hq, (long long)hkv);
    if (k->dims[0] != B || v->dims[0] != B)
        return op_err(err, n, "K and V must have Q's batch %lld", (long long)B);
    int64_t P = 0;
    if (!pk != !pv) return op_err(err, n, "inputs past_key and past_value come together");
    if (pk) {
        if (pk->rank != 4 || pv->rank != 4 || pk->dtype != q->dtype || pv->dtype != q->dtype)
            return op_err(err, n, "past_key and past_value must be 4-D of Q's type");
        P = pk->dims[2];
    }
    if (m && m->dtype != IR_BOOL && m->dtype != q->dtype)
        return op_err(err, n, "input attn_mask has type %s, expected bool or %s",
                      ir_dtype_name(m->dtype), ir_dtype_name(q->dtype));
    if (np && np->dtype != IR_I64)
        return op_err(err, n, "input nonpad_kv_seqlen has type %s, expected int64",
                      ir_dtype_name(np->dtype));
    if (!p->has_scale) p->rt.scale = (float)(1.0 / sqrt((double)dk));
    int64_t T = P + L;
    /* constant lengths in [0, T] (as ONNX Runtime 1.30; the run checks others) */
    if (op_check_span(g, n, np, "nonpad_kv_seqlen", 0, T, err)) return err->code;
    if (q->rank == 4) op_set_out(g, n, 0, q->dtype, 4, (int64_t[]){B, hq, S, dv});
    else op_set_out(g, n, 0, q->dtype, 3, (int64_t[]){B, S, hq * dv});
    op_set_out(g, n, 1, q->dtype, 4, (int64_t[]){B, hkv, T, dk});
    op_set_out(g, n, 2, q->dtype, 4, (int64_t[]){B, hkv, T, dv});
    op_set_out(g, n, 3, q->dtype, 4, (int64_t[]){B, hq, S, T});
    return PZ_OK;
}

/* B*Hq*S*T*(Dk + Dv): scores, then the weighted sum of values; T = past
 * rows + K's rows. */
static void attention_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1), *pk = op_in(g, n, 4);
    const ir_tensor *y = op_out((ir_graph *)g, n, 0);
    if (!q || !k || !y) return;
    int64_t T = (pk ? pk->dims[2] : 0) + k->dims[k->rank == 4 ? 2 : 1];
    c->macs = T * (ir_tensor_numel(q) + ir_tensor_numel(y));
}

static pz_status attention_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                 pz_err *err)
{
    const attention_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_ATTENTION, &p->rt, sizeof p->rt);
    return PZ_OK;
}

const op_def op_attention = {
    .name = "Attention",
    .min_in = 3, .max_in = 7, .min_out = 1, .max_out = 4,
    .params_size = sizeof(attention_params),
    .parse = attention_parse,
    .infer = attention_infer,
    .cost = attention_cost,
    .lower = attention_lower,
};
