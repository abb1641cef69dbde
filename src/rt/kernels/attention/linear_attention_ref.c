/* linear_attention_ref.c - reference LinearAttention: one kv head's state S
 * [Dk, Dv] at a time, stepped through the T tokens in double (the ONNX
 * recurrence: decay, delta correction, write, then the query heads' reads). */
#include "rt/kernels/kernels.h"

static void la_state(const pz_linear_attention_desc *d, const void *q, const void *k,
                     const void *v, const void *past, const void *decay, const void *beta,
                     void *y, void *present, double *S, double *u, int64_t b, int64_t hk)
{
    int dt = d->dtype;
    int64_t Dk = d->Dk, Dv = d->Dv, G = d->Hq / d->Hkv;
    int64_t so = (b * d->Hkv + hk) * Dk * Dv;   /* [B, Hkv, Dk, Dv] */
    for (int64_t i = 0; i < Dk * Dv; i++) S[i] = past ? pz_ld(past, d->sdtype, so + i) : 0.0;
    int gating = d->rule == PZ_LA_GATED || d->rule == PZ_LA_GATED_DELTA;
    int delta = d->rule == PZ_LA_DELTA || d->rule == PZ_LA_GATED_DELTA;
    for (int64_t t = 0; t < d->T; t++) {
        int64_t bt = b * d->T + t;
        int64_t ko = bt * d->Hkv * Dk + hk * Dk, vo = bt * d->Hkv * Dv + hk * Dv;
        if (gating) {   /* S *= exp(decay): per key dim, or one per head */
            for (int64_t i = 0; i < Dk; i++) {
                int64_t gi = bt * d->Hkv * d->decay_width + hk * d->decay_width +
                             (d->decay_width > 1 ? i : 0);
                double g = exp(pz_ld(decay, dt, gi));
                for (int64_t m = 0; m < Dv; m++) S[i * Dv + m] *= g;
            }
        }
        for (int64_t m = 0; m < Dv; m++) u[m] = pz_ld(v, dt, vo + m);
        if (delta) {    /* u = beta * (v - S^T k) */
            double bb = pz_ld(beta, dt, bt * d->beta_heads + (d->beta_heads > 1 ? hk : 0));
            for (int64_t m = 0; m < Dv; m++) {
                double r = 0;
                for (int64_t i = 0; i < Dk; i++) r += S[i * Dv + m] * pz_ld(k, dt, ko + i);
                u[m] = bb * (u[m] - r);
            }
        }
        for (int64_t i = 0; i < Dk; i++) {   /* S += k u^T */
            double ki = pz_ld(k, dt, ko + i);
            for (int64_t m = 0; m < Dv; m++) S[i * Dv + m] += ki * u[m];
        }
        for (int64_t g = 0; g < G; g++) {    /* query heads hk*G .. hk*G+G-1 read S */
            int64_t h = hk * G + g;
            int64_t qo = bt * d->Hq * Dk + h * Dk, yo = bt * d->Hq * Dv + h * Dv;
            for (int64_t m = 0; m < Dv; m++) {
                double acc = 0;
                for (int64_t i = 0; i < Dk; i++) acc += pz_ld(q, dt, qo + i) * S[i * Dv + m];
                pz_st(y, dt, yo + m, d->scale * acc);
            }
        }
    }
    if (present)
        for (int64_t i = 0; i < Dk * Dv; i++) pz_st(present, d->sdtype, so + i, S[i]);
}

void pz_any_linear_attention__ref(const pz_linear_attention_desc *d, const void *q,
                                  const void *k, const void *v, const void *past,
                                  const void *decay, const void *beta, void *y, void *present,
                                  double *scratch, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(d->B * d->Hkv, ith, nth, &lo, &hi);
    double *S = scratch + (size_t)ith * (size_t)(d->Dk * d->Dv + d->Dv), *u = S + d->Dk * d->Dv;
    for (int64_t r = lo; r < hi; r++)
        la_state(d, q, k, v, past, decay, beta, y, present, S, u, r / d->Hkv, r % d->Hkv);
}
