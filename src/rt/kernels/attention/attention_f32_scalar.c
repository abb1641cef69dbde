/* attention_f32_scalar.c - the scalar twin of the fast float32 attention
 * (attention_f32_avx512.c): the same units, packing and order of sums in
 * plain loops. Takes what the fast kernel takes: float32 Q, K, V, Y, an
 * optional float32 mask whose last dim is T and contiguous, no past, no
 * softcap, no causal or padding cut-offs, no extra outputs. */
#include <math.h>

#include "rt/kernels/attention/attention_f32.h"
#include "rt/kernels/fast.h"

void pz_f32_attention__scalar(const pz_attention_desc *d, const float *q, const float *k,
                              const float *v, const float *mask, float *y, float *scratch,
                              int ith, int nth)
{
    const int64_t Tp = pz_attn_tpad(d->T);
    float *kt = scratch + (int64_t)ith * pz_attn_scratch_floats(d), *sc = kt + d->Dk * Tp;
    int64_t lo, hi, packed = -1;
    pz_split(pz_attn_units(d), ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const pz_attn_unit w = pz_attn_unit_of(d, u);
        const int64_t b = w.b, h = w.h, hk = w.hk, s0 = w.s0, rows = w.rows;
        const int64_t kvu = b * d->Hkv + hk;
        if (packed != kvu) {   /* K^T of this kv head, zero past T */
            for (int64_t t = 0; t < Tp; t++)
                for (int64_t i = 0; i < d->Dk; i++)
                    kt[i * Tp + t] = t < d->T ? k[b * d->ks[0] + hk * d->ks[1] + t * d->ks[2] + i] : 0;
            packed = kvu;
        }
        for (int64_t r = 0; r < rows; r++) {
            const float *qr = q + b * d->qs[0] + h * d->qs[1] + (s0 + r) * d->qs[2];
            const float *mr = d->has_mask ? mask + b * d->ms[0] + h * d->ms[1] + (s0 + r) * d->ms[2]
                                          : NULL;
            float *sr = sc + r * Tp, mx = -INFINITY;
            for (int64_t t = 0; t < Tp; t++) {
                float acc = 0;
                for (int64_t i = 0; i < d->Dk; i++) acc = fmaf(qr[i], kt[i * Tp + t], acc);
                float x = t < d->T ? acc * (float)d->scale + (mr ? mr[t] : 0) : -INFINITY;
                sr[t] = x;
                mx = x > mx ? x : mx;
            }
            float sum = 0;
            for (int64_t t = 0; t < Tp; t++) {
                float e = sr[t] - mx;
                sr[t] = e < -87.0f ? 0.0f : expf(e);   /* as exp_neg_ps (vmath_avx512.h) */
                sum += sr[t];
            }
            /* a row masked everywhere gives NaN, as the reference does */
            const float inv = mx == -INFINITY ? NAN : 1.0f / sum;
            float *yr = y + b * d->ys[0] + h * d->ys[1] + (s0 + r) * d->ys[2];
            for (int64_t j = 0; j < d->Dv; j++) {
                float acc = 0;
                for (int64_t t = 0; t < d->T; t++)
                    acc = fmaf(sr[t], v[b * d->vs[0] + hk * d->vs[1] + t * d->vs[2] + j], acc);
                yr[j] = acc * inv;
            }
        }
    }
}
