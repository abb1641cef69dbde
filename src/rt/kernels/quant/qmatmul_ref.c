/* qmatmul_ref.c - reference MatMulInteger and QLinearMatMul: an exact
 * integer matmul of (a - a_zero_point) and (b - b_zero_point), then for
 * QLinearMatMul the requantisation to y's type. */
#include <math.h>

#include "rt/kernels/kernels.h"

void pz_any_qmatmul__ref(const pz_qmatmul_desc *d, const void *a, const void *b,
                         const void *azp, const void *bzp, const pz_qmatmul_scales *q, void *y,
                         int ith, int nth)
{
    const pz_matmul_shape *s = &d->s;
    const int64_t nbatch = pz_prod(s->bdims, s->nb), MN = s->M * s->N;
    double qlo, qhi;
    pz_quant_range(d->ty, &qlo, &qhi);
    int64_t lo, hi;
    pz_split(nbatch * MN, ith, nth, &lo, &hi);
    for (int64_t e = lo; e < hi; e++) {
        int64_t bi = e / MN, m = e % MN / s->N, nn = e % s->N, oa = 0, ob = 0, r = bi;
        for (int i = s->nb - 1; i >= 0; i--) {   /* batch index -> A's and B's offsets */
            oa += r % s->bdims[i] * s->sa[i];
            ob += r % s->bdims[i] * s->sb[i];
            r /= s->bdims[i];
        }
        const int64_t za = azp ? (int64_t)pz_load_bits(azp, d->ta, d->azp_row ? m : 0) : 0;
        const int64_t zb = bzp ? (int64_t)pz_load_bits(bzp, d->tb, d->bzp_col ? nn : 0) : 0;
        int64_t acc = 0;
        for (int64_t k = 0; k < s->K; k++)
            acc += ((int64_t)pz_load_bits(a, d->ta, oa + m * s->K + k) - za) *
                   ((int64_t)pz_load_bits(b, d->tb, ob + k * s->N + nn) - zb);
        if (!q) {
            pz_store_bits(y, d->ty, e, (uint64_t)acc);   /* int32: wraps like ONNX's int32 */
            continue;
        }
        /* ONNX: (a_scale * b_scale / y_scale) in the scales' type, times the
         * integer sum in double, rounded half to even, plus y_zero_point */
        const double mult = pz_round_to(d->ts, pz_round_to(d->ts, pz_ld(q->as, d->ts, 0) *
                                     pz_ld(q->bs, d->ts, d->bs_col ? nn : 0)) / pz_ld(q->ys, d->ts, 0));
        double v = nearbyint((double)acc * mult) + (q->yzp ? pz_load_f64(q->yzp, d->ty, 0) : 0);
        if (isnan(v)) v = 0;   /* a NaN scale: the cast below would be undefined */
        v = v < qlo ? qlo : v > qhi ? qhi : v;
        pz_store_bits(y, d->ty, e, (uint64_t)(int64_t)v);
    }
}
