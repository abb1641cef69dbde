/* attention.c - the ATTENTION layer (ONNX Attention): inputs Q, K, V, then
 * optional attn_mask, past_key, past_value, nonpad_kv_seqlen; outputs Y,
 * optional present_key, present_value, qk_matmul_output. Q, K, V are 4-D
 * [B, heads, rows, D] or 3-D [B, rows, heads * D]; the rest is 4-D. In the
 * batched form (ScaledDotProductAttention, which the attention pass makes)
 * Q, K, V are [..., heads, rows, D] of any rank >= 3 with the same leading
 * dims, which fold into B; batched 2 (rows first): [..., rows, heads, D],
 * read and written with strides; with qkv_w (the QKV pass, passes/qkv_slices.c)
 * Q, K and V are read in place from one X, a QKV GEMM's output: rows qkv_w
 * apart, each at its column offset, no copy. float32 without past, softcap, causal or padding
 * cut-offs, extra outputs or a bool mask runs the fast kernel (fast.h);
 * the rest the reference. */
#include "rt/kernels/attention/attention_f32.h"
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

typedef struct {
    pz_attention_desc d;
    pz_attention_fn fast;   /* NULL: the reference */
} attention_state;

/* Strides of (b, head, row) of a 3-D [B, rows, heads * dim] or 4-D [B,
 * heads, rows, dim] tensor; batched: [..., heads, rows, dim], batched 2:
 * [..., rows, heads, dim]. */
static void attn_strides(const pz_tensor *t, int batched, int64_t dim, int64_t *s)
{
    if (batched == 2) {
        s[1] = dim;
        s[2] = t->dims[t->rank - 2] * dim;
        s[0] = t->dims[t->rank - 3] * s[2];
    } else if (batched) {
        s[1] = t->dims[t->rank - 2] * dim;
        s[0] = t->dims[t->rank - 3] * s[1];
        s[2] = dim;
    } else if (t->rank == 3) {
        s[0] = t->dims[1] * t->dims[2];
        s[1] = dim;
        s[2] = t->dims[2];
    } else {
        s[0] = t->dims[1] * t->dims[2] * dim;
        s[1] = t->dims[2] * dim;
        s[2] = dim;
    }
}

/* dims of a 4-D tensor must be {a, b, c, e} */
static int attn_want4(const pz_layer *l, char *err, size_t n, const char *what,
                      const pz_tensor *t, int64_t a, int64_t b, int64_t c, int64_t e)
{
    char buf[96];
    if (t->rank == 4 && t->dims[0] == a && t->dims[1] == b && t->dims[2] == c &&
        t->dims[3] == e)
        return 0;
    return pz_layer_fail(l, err, n, "%s has shape %s, expected [%lld,%lld,%lld,%lld]", what,
                         pz_shape_str(t, buf, sizeof buf), (long long)a, (long long)b,
                         (long long)c, (long long)e);
}

/* The mask's dims as [B, Hq, S, T] sees them: right-aligned; in the batched
 * form the dims before the heads fold into B when they are all Q's or all
 * 1. -1 when they do neither. */
static int attn_mask_dims(const pz_attention_desc *d, const pz_tensor *q, int batched,
                          const pz_tensor *m, int64_t *md)
{
    for (int i = 0; i < 4; i++) md[i] = 1;
    if (!batched) {
        for (int i = 0; i < m->rank; i++) md[4 - m->rank + i] = m->dims[i];
        return 0;
    }
    /* align to Q's rank; the last three to (heads, S, T) */
    int off = q->rank - m->rank, lead = q->rank - 3, all_q = 1, all_1 = 1;
    if (off < 0) return -1;
    for (int i = 0; i < m->rank; i++) {
        int iq = i + off;
        if (iq >= lead) md[1 + iq - lead] = m->dims[i];
        else {
            all_q &= m->dims[i] == q->dims[iq];
            all_1 &= m->dims[i] == 1;
        }
    }
    if (!all_1 && !all_q) return -1;
    md[0] = all_1 ? 1 : d->B;
    return 0;
}

static int attn_prepare_mask(pz_layer *l, char *err, size_t n, pz_attention_desc *d,
                             const pz_tensor *q, const pz_tensor *m)
{
    const pz_attention_params *p = l->params;
    int64_t md[4];
    if (m->dtype != PZ_BOOL && m->dtype != d->dtype)
        return pz_layer_fail(l, err, n, "attn_mask has type %s, expected bool or %s",
                             pz_dtype_name(m->dtype), pz_dtype_name(d->dtype));
    if (p->batched ? m->rank < 1 || m->rank > q->rank : m->rank < 2 || m->rank > 4)
        return pz_layer_fail(l, err, n, "attn_mask has rank %d, expected %s", m->rank,
                             p->batched ? "at most Q's" : "2 to 4");
    if (attn_mask_dims(d, q, p->batched, m, md))
        return pz_layer_fail(l, err, n, "attn_mask's leading dims neither match Q's nor are 1");
    const int64_t want[4] = {d->B, d->Hq, d->S, d->T};
    int64_t acc = 1;
    for (int i = 3; i >= 0; i--) {   /* broadcast to [B, Hq, S, T] */
        int64_t nm = md[i];
        if (i == 3 ? nm > d->T : nm != want[i] && nm != 1)
            return pz_layer_fail(l, err, n, "attn_mask dim %d is %lld, does not broadcast to "
                                 "%lld", i - (4 - m->rank), (long long)nm, (long long)want[i]);
        d->ms[i] = nm == 1 && i < 3 ? 0 : acc;
        acc *= nm;
    }
    d->mask_t = md[3];
    d->mask_dtype = m->dtype;
    d->has_mask = 1;
    return 0;
}

/* Q, K, V read in place from one X (qkv_w > 0): their shapes, Y's ([.., S,
 * H, Dv], rows first) with Q's and K's last dim qkv_dk, in qkv[]; 0 when X
 * holds them (each input X itself, float32, numel(Y) / (H Dv) rows of qkv_w
 * floats, every slice of H D columns inside a row). */
static int attn_qkv_shapes(const pz_layer *l, char *err, size_t n, pz_tensor *qkv)
{
    const pz_attention_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (p->batched != 2 || !x || !y || y->rank < 3 || l->in_id[1] != l->in_id[0] ||
        l->in_id[2] != l->in_id[0] || x->dtype != PZ_F32 || p->qkv_dk < 1)
        return pz_layer_fail(l, err, n, "qkv_w needs rows-first float32 Q, K, V of one tensor");
    const int64_t h = y->dims[y->rank - 2], dv = y->dims[y->rank - 1];
    const int64_t rows = h * dv != 0 ? pz_numel(y) / (h * dv) : 0;
    for (int i = 0; i < 3; i++) {
        qkv[i] = *y;
        qkv[i].dtype = x->dtype;
        qkv[i].dims[y->rank - 1] = i < 2 ? p->qkv_dk : dv;
        if (p->qkv_off[i] < 0 || p->qkv_off[i] + h * qkv[i].dims[y->rank - 1] > p->qkv_w)
            return pz_layer_fail(l, err, n, "qkv_off[%d] %lld runs past a row of %lld", i,
                                 (long long)p->qkv_off[i], (long long)p->qkv_w);
    }
    if (pz_numel(x) != rows * p->qkv_w)
        return pz_layer_fail(l, err, n, "X has %lld elements, not %lld rows of %lld",
                             (long long)pz_numel(x), (long long)rows, (long long)p->qkv_w);
    return 0;
}

static int attention_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_attention_params *p = l->params;
    const pz_tensor *q = pz_in(l, 0), *k = pz_in(l, 1), *v = pz_in(l, 2), *y = pz_out(l, 0);
    const pz_tensor *pk = pz_in(l, 4), *pv = pz_in(l, 5), *np = pz_in(l, 6);
    pz_tensor qkv[3];
    if (!q || !k || !v || !y) return pz_layer_fail(l, err, n, "needs Q, K, V and Y");
    if (p->qkv_w > 0) {
        if (attn_qkv_shapes(l, err, n, qkv)) return 1;
        q = &qkv[0], k = &qkv[1], v = &qkv[2];
    }
    if (!pz_dtype_is_float(q->dtype))
        return pz_layer_fail(l, err, n, "Q has type %s", pz_dtype_name(q->dtype));
    if (pz_layer_want_dtype(l, err, n, "K", k, q->dtype) ||
        pz_layer_want_dtype(l, err, n, "V", v, q->dtype) ||
        pz_layer_want_dtype(l, err, n, "Y", y, q->dtype))
        return 1;
    if ((p->batched ? q->rank < 3 : q->rank != 3 && q->rank != 4) || k->rank != q->rank ||
        v->rank != q->rank)
        return pz_layer_fail(l, err, n, "Q, K, V have ranks %d, %d, %d; expected all %s",
                             q->rank, k->rank, v->rank, p->batched ? "the same, >= 3" : "3 or all 4");
    if (!pk != !pv) return pz_layer_fail(l, err, n, "past_key and past_value come together");
    attention_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    pz_attention_desc *d = &st->d;
    d->dtype = q->dtype;
    d->B = q->dims[0];
    if (p->batched) {
        /* ha, ra: the heads and rows axes */
        const int r = q->rank, ha = p->batched == 2 ? r - 2 : r - 3, ra = 2 * r - 5 - ha;
        d->B = pz_prod(q->dims, r - 3);
        d->Hq = d->Hkv = q->dims[ha], d->S = q->dims[ra], d->L = k->dims[ra];
        d->Dk = q->dims[r - 1], d->Dv = v->dims[r - 1];
        for (int i = 0; i < r - 1; i++)
            if (i != ra && (k->dims[i] != q->dims[i] || v->dims[i] != q->dims[i]))
                return pz_layer_fail(l, err, n, "K and V must have Q's leading dims");
        if (k->dims[r - 1] != d->Dk || v->dims[ra] != d->L)
            return pz_layer_fail(l, err, n, "K or V does not match Q's head size or K's rows");
    } else if (q->rank == 4) {
        d->Hq = q->dims[1], d->Hkv = k->dims[1], d->S = q->dims[2], d->L = k->dims[2];
        d->Dk = q->dims[3], d->Dv = v->dims[3];
        if (k->dims[3] != d->Dk || v->dims[1] != d->Hkv || v->dims[2] != d->L)
            return pz_layer_fail(l, err, n, "K or V does not match Q's head size or K's heads");
    } else {
        d->Hq = p->q_num_heads, d->Hkv = p->kv_num_heads, d->S = q->dims[1], d->L = k->dims[1];
        if (d->Hq <= 0 || d->Hkv <= 0 || q->dims[2] % d->Hq || k->dims[2] % d->Hkv ||
            v->dims[2] % d->Hkv || v->dims[1] != d->L)
            return pz_layer_fail(l, err, n, "3-D Q, K, V do not split into %lld and %lld heads",
                                 (long long)d->Hq, (long long)d->Hkv);
        d->Dk = q->dims[2] / d->Hq, d->Dv = v->dims[2] / d->Hkv;
        if (k->dims[2] / d->Hkv != d->Dk)
            return pz_layer_fail(l, err, n, "K's head size differs from Q's");
    }
    if (d->Hkv <= 0 || d->Hq % d->Hkv ||
        (!p->batched && (k->dims[0] != d->B || v->dims[0] != d->B)))
        return pz_layer_fail(l, err, n, "%lld query heads do not group over %lld kv heads",
                             (long long)d->Hq, (long long)d->Hkv);
    if (pk) {
        d->P = pk->dims[2];
        if (pz_layer_want_dtype(l, err, n, "past_key", pk, q->dtype) ||
            pz_layer_want_dtype(l, err, n, "past_value", pv, q->dtype) ||
            attn_want4(l, err, n, "past_key", pk, d->B, d->Hkv, d->P, d->Dk) ||
            attn_want4(l, err, n, "past_value", pv, d->B, d->Hkv, d->P, d->Dv))
            return 1;
        d->has_past = 1;
    }
    d->T = d->P + d->L;
    attn_strides(q, p->batched, d->Dk, d->qs);
    attn_strides(k, p->batched, d->Dk, d->ks);
    attn_strides(v, p->batched, d->Dv, d->vs);
    attn_strides(y, p->batched, d->Dv, d->ys);
    if (p->qkv_w > 0) {   /* rows of X, qkv_w apart */
        d->qs[2] = d->ks[2] = d->vs[2] = p->qkv_w;
        d->qs[0] = d->ks[0] = d->vs[0] = d->S * p->qkv_w;
    }
    if (y->rank != q->rank || pz_numel(y) != d->B * d->Hq * d->S * d->Dv)
        return pz_layer_fail(l, err, n, "Y does not have Q's rank and B*heads*S*Dv elements");
    if (pz_in(l, 3) && attn_prepare_mask(l, err, n, d, q, pz_in(l, 3))) return 1;
    if (np) {
        if (np->dtype != PZ_I64 || pz_numel(np) != d->B)
            return pz_layer_fail(l, err, n, "nonpad_kv_seqlen must be int64 [%lld]",
                                 (long long)d->B);
        d->has_nonpad = 1;
    }
    const pz_tensor *ok = pz_out(l, 1), *ov = pz_out(l, 2), *oq = pz_out(l, 3);
    if ((ok && (pz_layer_want_dtype(l, err, n, "present_key", ok, q->dtype) ||
                attn_want4(l, err, n, "present_key", ok, d->B, d->Hkv, d->T, d->Dk))) ||
        (ov && (pz_layer_want_dtype(l, err, n, "present_value", ov, q->dtype) ||
                attn_want4(l, err, n, "present_value", ov, d->B, d->Hkv, d->T, d->Dv))) ||
        (oq && (pz_layer_want_dtype(l, err, n, "qk_matmul_output", oq, q->dtype) ||
                attn_want4(l, err, n, "qk_matmul_output", oq, d->B, d->Hq, d->S, d->T))))
        return 1;
    if (p->qk_mode < 0 || p->qk_mode > 3)
        return pz_layer_fail(l, err, n, "qk_mode %d is not 0 to 3", p->qk_mode);
    d->causal = p->is_causal;
    d->qk_mode = p->qk_mode;
    d->scale = p->scale;
    d->softcap = p->softcap;
    const size_t workers = (size_t)(l->nth > 0 ? l->nth : 1);
    if (l->isa != PZ_ISA_REF && d->dtype == PZ_F32 && !d->has_past && !d->has_nonpad &&
        !d->causal && d->softcap == 0 && !ok && !ov && !oq &&
        (!d->has_mask || (d->mask_dtype == PZ_F32 && d->ms[3] == 1 && d->mask_t == d->T))) {
        st->fast = pz_fast_kernels_for(l->isa)->attention;
        l->scratch_bytes = workers * (size_t)pz_attn_scratch_floats(d) * sizeof(float);
    } else {
        l->scratch_bytes = workers * (size_t)d->T * sizeof(double);
    }
    l->scratch_run_only = 1;
    return np ? pz_index_run_prepare(l, np, err, n) : 0;   /* run-time lengths: checked */
}

static void attention_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *m = pz_in(l, 3), *pk = pz_in(l, 4), *pv = pz_in(l, 5), *np = pz_in(l, 6);
    const pz_tensor *ok = pz_out(l, 1), *ov = pz_out(l, 2), *oq = pz_out(l, 3);
    const attention_state *st = l->state;
    const pz_attention_params *p = l->params;
    const void *in[3];
    for (int i = 0; i < 3; i++)   /* in place in X: float32 at the column offsets */
        in[i] = p->qkv_w > 0 ? (const float *)l->in[i]->data + p->qkv_off[i] : l->in[i]->data;
    /* a length outside [0, T] fails the run, as ONNX Runtime 1.30 */
    if (ith == 0 && np && l->run_err) pz_run_check_span(l, np, "nonpad_kv_seqlen", 0, st->d.T);
    if (st->fast) {
        st->fast(&st->d, in[0], in[1], in[2], m ? m->data : NULL, l->out[0]->data, l->scratch,
                 ith, nth);
        return;
    }
    pz_any_attention__ref(&st->d, in[0], in[1], in[2],
                          m ? m->data : NULL, pk ? pk->data : NULL, pv ? pv->data : NULL,
                          np ? np->data : NULL, l->out[0]->data, ok ? ok->data : NULL,
                          ov ? ov->data : NULL, oq ? oq->data : NULL, l->scratch, ith, nth);
}

static const pz_param_field attention_fields[] = {
    PZ_FIELD(pz_attention_params, q_num_heads, PZ_F_INT),
    PZ_FIELD(pz_attention_params, kv_num_heads, PZ_F_INT),
    PZ_FIELD(pz_attention_params, is_causal, PZ_F_INT),
    PZ_FIELD(pz_attention_params, qk_mode, PZ_F_INT),
    PZ_FIELD(pz_attention_params, scale, PZ_F_F32),
    PZ_FIELD(pz_attention_params, softcap, PZ_F_F32),
    PZ_FIELD(pz_attention_params, batched, PZ_F_INT),
    PZ_FIELD(pz_attention_params, qkv_w, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_attention_params, qkv_off, PZ_F_I64),
    PZ_FIELD(pz_attention_params, qkv_dk, PZ_F_I64),
};

const pz_rt_op pz_rt_op_attention = {
    .name = "ATTENTION", PZ_OP_PARAMS(pz_attention_params, attention_fields),
    .min_in = 3, .max_in = 7, .min_out = 1, .max_out = 4,
    .prepare = attention_prepare, .run = attention_run,
};
