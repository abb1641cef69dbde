/* attention_ref.c - reference Attention (ONNX opset 23/24), one query row at
 * a time: scores against every key, softcap, bias, a max-subtracted softmax,
 * then the weighted sum of the values. Any float type, computed in double. */
#include "rt/kernels/kernels.h"

/* The bias of score (b, h, s, t): the mask's value (bool: true -> 0, false
 * -> -inf; past its last dim -> -inf), causal and padding cut-offs. */
static double attn_bias(const pz_attention_desc *d, const void *mask, const int64_t *nonpad,
                        int64_t b, int64_t h, int64_t s, int64_t t)
{
    double bias = 0;
    if (d->has_mask) {
        if (t >= d->mask_t) return -INFINITY;
        int64_t o = b * d->ms[0] + h * d->ms[1] + s * d->ms[2] + t * d->ms[3];
        if (d->mask_dtype == PZ_BOOL) bias = ((const uint8_t *)mask)[o] ? 0 : -INFINITY;
        else bias = pz_ld(mask, d->mask_dtype, o);
    }
    if (d->causal) {
        /* key t is visible to query s when t <= s + offset: the keys before
         * this block (the past, or the padded cache's valid length - S) */
        int64_t off = d->has_past || !d->has_nonpad ? d->P : nonpad[b] - d->S;
        if (t > s + off) bias -= INFINITY;
    }
    if (d->has_nonpad && t >= nonpad[b]) bias -= INFINITY;
    return bias;
}

/* Key or value row t of kv head hk: from the past cache, then the new rows. */
static int64_t attn_kv_off(const pz_attention_desc *d, const int64_t *st, int64_t dim,
                           int64_t b, int64_t hk, int64_t t, int *from_past)
{
    *from_past = t < d->P;
    if (*from_past) return ((b * d->Hkv + hk) * d->P + t) * dim;
    return b * st[0] + hk * st[1] + (t - d->P) * st[2];
}

static void attn_row(const pz_attention_desc *d, const void *q, const void *k, const void *v,
                     const void *mask, const void *past_k, const void *past_v,
                     const int64_t *nonpad, void *y, void *qk, double *sc, int64_t r)
{
    int dt = d->dtype, past;
    int64_t s = r % d->S, h = (r / d->S) % d->Hq, b = r / (d->S * d->Hq);
    int64_t hk = h / (d->Hq / d->Hkv);   /* GQA: each kv head serves Hq/Hkv query heads */
    int64_t qo = b * d->qs[0] + h * d->qs[1] + s * d->qs[2];
    int64_t qko = r * d->T;              /* qk output [B, Hq, S, T] */
    double mx = -INFINITY;
    for (int64_t t = 0; t < d->T; t++) {
        int64_t ko = attn_kv_off(d, d->ks, d->Dk, b, hk, t, &past);
        const void *kp = past ? past_k : k;
        double dot = 0;
        for (int64_t i = 0; i < d->Dk; i++) dot += pz_ld(q, dt, qo + i) * pz_ld(kp, dt, ko + i);
        double x = dot * d->scale;
        if (d->softcap > 0) x = d->softcap * tanh(x / d->softcap);
        if (qk && d->qk_mode <= 1) pz_st(qk, dt, qko + t, x);
        x += attn_bias(d, mask, nonpad, b, h, s, t);
        if (qk && d->qk_mode == 2) pz_st(qk, dt, qko + t, x);
        sc[t] = x;
        if (x > mx) mx = x;
    }
    /* softmax; a row masked everywhere gives NaN, as exp(-inf - -inf) does */
    double sum = 0;
    for (int64_t t = 0; t < d->T; t++) {
        sc[t] = mx == -INFINITY ? NAN : exp(sc[t] - mx);
        sum += sc[t];
    }
    for (int64_t t = 0; t < d->T; t++) {
        sc[t] /= sum;
        if (qk && d->qk_mode == 3) pz_st(qk, dt, qko + t, sc[t]);
    }
    int64_t yo = b * d->ys[0] + h * d->ys[1] + s * d->ys[2];
    for (int64_t i = 0; i < d->Dv; i++) {
        double acc = 0;
        for (int64_t t = 0; t < d->T; t++) {
            int64_t vo = attn_kv_off(d, d->vs, d->Dv, b, hk, t, &past);
            acc += sc[t] * pz_ld(past ? past_v : v, dt, vo + i);
        }
        pz_st(y, dt, yo + i, acc);
    }
}

/* present = concat(past, new) along the rows, row r of B * Hkv * T. */
static void attn_present(const pz_attention_desc *d, const void *x, const void *past,
                         const int64_t *st, int64_t dim, void *out, int64_t r)
{
    size_t es = pz_dtype_size(d->dtype);
    int64_t t = r % d->T, hk = (r / d->T) % d->Hkv, b = r / (d->T * d->Hkv);
    int from_past;
    int64_t o = attn_kv_off(d, st, dim, b, hk, t, &from_past);
    const char *src = from_past ? past : x;
    memcpy((char *)out + (size_t)(r * dim) * es, src + (size_t)o * es, (size_t)dim * es);
}

void pz_any_attention__ref(const pz_attention_desc *d, const void *q, const void *k,
                           const void *v, const void *mask, const void *past_k,
                           const void *past_v, const int64_t *nonpad, void *y, void *present_k,
                           void *present_v, void *qk, double *scratch, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(d->B * d->Hq * d->S, ith, nth, &lo, &hi);
    double *sc = scratch + (int64_t)ith * d->T;   /* this worker's scores */
    for (int64_t r = lo; r < hi; r++)
        attn_row(d, q, k, v, mask, past_k, past_v, nonpad, y, qk, sc, r);
    pz_split(d->B * d->Hkv * d->T, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        if (present_k) attn_present(d, k, past_k, d->ks, d->Dk, present_k, r);
        if (present_v) attn_present(d, v, past_v, d->vs, d->Dv, present_v, r);
    }
}
