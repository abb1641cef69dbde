/* sdpa.c - ScaledDotProductAttention (domain ai.paleozoic; the attention
 * pass, passes/attention.c, writes it for the attention that exporters
 * spell out in MatMul, scale, mask Add, Softmax and MatMul):
 *   Q [..., H, S, Dk], K [..., H, T, Dk], V [..., H, T, Dv], all of one
 *   rank >= 3 and the same leading dims; mask? of Q's type, broadcast to
 *   [..., H, S, T] (its dims before H all Q's or all 1)
 *   -> Y [..., H, S, Dv] = softmax(Q K^T * scale + mask, last axis) V.
 * scale default 1/sqrt(Dk). rows_first 1 (the attention pass sets it when
 * it drops the head transposes): Q [..., S, H, Dk], K [..., T, H, Dk], V
 * [..., T, H, Dv] -> Y [..., S, H, Dv], the same attention, the mask still
 * [..., H, S, T]. MACs: prod(Q's leading dims) * S * T * (Dk + Dv). Runs as
 * the ATTENTION layer in its batched form (batched 2: rows first).
 * qkv_w, qkv_off_q, _k, _v, qkv_dk (only the QKV pass writes them,
 * passes/qkv_slices.c; rows_first): Q, K and V are one tensor X, a QKV
 * GEMM's output of rows qkv_w wide, read in place at those column offsets;
 * their shapes are Y's with Q's and K's last dim qkv_dk (self-attention:
 * T = S). */
#include <math.h>
#include <stdio.h>

#include "op.h"
#include "sdpa.h"

typedef struct {
    pz_attention_params rt;
    int has_scale;
} sdpa_params;

static pz_status sdpa_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    sdpa_params *p = params;
    if (op_attr_float(n, "scale", 0, &p->rt.scale, err)) return err->code;
    if (!isfinite(p->rt.scale)) return op_err_attr(err, n, "scale", "must be finite");
    p->has_scale = op_attr(n, "scale") != NULL;
    int64_t rf;
    if (op_attr_int(n, "rows_first", 0, &rf, err)) return err->code;
    if (rf != 0 && rf != 1) return op_err_attr(err, n, "rows_first", "must be 0 or 1");
    p->rt.batched = rf ? 2 : 1;
    static const char *OFF[3] = {"qkv_off_q", "qkv_off_k", "qkv_off_v"};
    if (op_attr_int(n, "qkv_w", 0, &p->rt.qkv_w, err) ||
        op_attr_int(n, "qkv_dk", 0, &p->rt.qkv_dk, err))
        return err->code;
    for (int i = 0; i < 3; i++)
        if (op_attr_int(n, OFF[i], 0, &p->rt.qkv_off[i], err)) return err->code;
    if (p->rt.qkv_w && (!rf || p->rt.qkv_w < 0 || p->rt.qkv_dk < 1))
        return op_err_attr(err, n, "qkv_w", "needs rows_first and qkv_dk >= 1");
    return PZ_OK;
}

int op_sdpa_mask_check(const ir_tensor *m, const ir_tensor *q, int64_t T, char *why,
                       size_t size)
{
    const int r = q->rank;
    if (m->dtype != IR_F32)
        return snprintf(why, size, "has type %s, expected float32", ir_dtype_name(m->dtype)), -1;
    if (m->rank > r) return snprintf(why, size, "has a rank above Q's"), -1;
    if (m->rank < 1) return snprintf(why, size, "is a scalar (the layer takes rank >= 1)"), -1;
    const int64_t want[3] = {q->dims[r - 3], q->dims[r - 2], T};
    int all_q = 1, all_1 = 1;
    for (int i = 0; i < m->rank; i++) {
        int iq = i + r - m->rank;
        int64_t d = m->dims[i];
        if (iq >= r - 3 && d != 1 && d != want[iq - (r - 3)])
            return snprintf(why, size, "dim %d is %lld, does not broadcast to %lld", i,
                            (long long)d, (long long)want[iq - (r - 3)]), -1;
        if (iq < r - 3) {
            all_q &= d == q->dims[iq];
            all_1 &= d == 1;
        }
    }
    if (!all_q && !all_1)
        return snprintf(why, size, "has dims before the heads that are neither Q's nor 1"), -1;
    return 0;
}

/* t with its rows and heads axes swapped: rows_first's [.., S, H, D] seen
 * as [.., H, S, D]. */
static ir_tensor heads_first(const ir_tensor *t)
{
    ir_tensor h = *t;
    const int r = t->rank;
    if (r >= 3) {
        h.dims[r - 3] = t->dims[r - 2];
        h.dims[r - 2] = t->dims[r - 3];
    }
    return h;
}

static pz_status sdpa_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    sdpa_params *p = n->params;
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1), *v = op_in(g, n, 2);
    const ir_tensor *m = op_in(g, n, 3);
    if (!q || !k || !v) return op_err(err, n, "needs the inputs Q, K and V");
    if (p->rt.qkv_w) {   /* the QKV pass's form, made after inference: Y as it set it */
        const ir_tensor *y = op_out(g, n, 0);
        if (!y || y->rank < 3) return op_err(err, n, "qkv_w: Y's shape is not known");
        return PZ_OK;
    }
    ir_tensor qh, kh, vh;
    if (p->rt.batched == 2) {   /* the checks below on the [.., H, rows, D] view */
        qh = heads_first(q), kh = heads_first(k), vh = heads_first(v);
        q = &qh, k = &kh, v = &vh;
    }
    if (q->dtype != IR_F32 || k->dtype != IR_F32 || v->dtype != IR_F32)
        return op_err(err, n, "Q, K, V have types %s, %s, %s, expected float32",
                      ir_dtype_name(q->dtype), ir_dtype_name(k->dtype), ir_dtype_name(v->dtype));
    const int r = q->rank;
    if (r < 3 || k->rank != r || v->rank != r)
        return op_err(err, n, "Q, K, V have ranks %d, %d, %d; expected one rank >= 3", r,
                      k->rank, v->rank);
    for (int i = 0; i < r - 2; i++)
        if (k->dims[i] != q->dims[i] || v->dims[i] != q->dims[i])
            return op_err(err, n, "K and V must have Q's leading dims (dim %d)", i);
    if (k->dims[r - 1] != q->dims[r - 1] || v->dims[r - 2] != k->dims[r - 2])
        return op_err(err, n, "K [.., %lld, %lld] and V [.., %lld, ..] do not match Q's head "
                      "size %lld", (long long)k->dims[r - 2], (long long)k->dims[r - 1],
                      (long long)v->dims[r - 2], (long long)q->dims[r - 1]);
    char why[160];
    if (m && op_sdpa_mask_check(m, q, k->dims[r - 2], why, sizeof why))
        return op_err(err, n, "input mask %s", why);
    if (!p->has_scale) p->rt.scale = (float)(1.0 / sqrt((double)q->dims[r - 1]));
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < r; i++) dims[i] = q->dims[i];
    dims[r - 1] = v->dims[r - 1];
    if (p->rt.batched == 2) {
        dims[r - 3] = q->dims[r - 2];
        dims[r - 2] = q->dims[r - 3];
    }
    op_set_out(g, n, 0, IR_F32, r, dims);
    return PZ_OK;
}

static void sdpa_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const sdpa_params *p = n->params;
    const ir_tensor *q = op_in(g, n, 0), *k = op_in(g, n, 1);
    const ir_tensor *y = op_out((ir_graph *)g, n, 0);
    if (!q || !k || !y || k->rank < 3) return;
    if (p->rt.qkv_w && y->rank >= 3) {   /* Q's elements: Y's with Dk for Dv; T = S */
        const int64_t dv = y->dims[y->rank - 1], rows = dv ? ir_tensor_numel(y) / dv : 0;
        c->macs = y->dims[y->rank - 3] * rows * (p->rt.qkv_dk + dv);
        return;
    }
    c->macs = k->dims[k->rank - (p->rt.batched == 2 ? 3 : 2)] *
              (ir_tensor_numel(q) + ir_tensor_numel(y));
}

static pz_status sdpa_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const sdpa_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_ATTENTION, &p->rt, sizeof p->rt);
    return PZ_OK;
}

const op_def op_sdpa = {
    .name = "ScaledDotProductAttention",
    .domain = "ai.paleozoic",
    .min_in = 3, .max_in = 4, .min_out = 1, .max_out = 1,
    .params_size = sizeof(sdpa_params),
    .parse = sdpa_parse,
    .infer = sdpa_infer,
    .cost = sdpa_cost,
    .lower = sdpa_lower,
};
