/* qconv_ref.c - reference ConvInteger and QLinearConv: the exact integer
 * convolution of (X - x_zero_point) and (W - w_zero_point); padding reads
 * X's zero point (it contributes nothing). QLinearConv then requantises as
 * qmatmul_ref.c does. */
#include <math.h>

#include "rt/kernels/quant/qconv.h"

/* Element i of an int8 or uint8 tensor (X and W are one or the other: the
 * layer checks): inline, where pz_load_bits's call and switch per
 * multiply-add took a third of a run. */
static inline int64_t ld8(const void *p, int dt, int64_t i)
{
    return dt == PZ_I8 ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
}

void pz_any_qconv__ref(const pz_qconv_params *p, const pz_qconv_desc *d, const void *x,
                       const void *w, const pz_qconv_args *a, void *y, int ith, int nth)
{
    const int nsp = p->nsp;
    const int64_t ysz = pz_prod(d->ysp, nsp), xsz = pz_prod(d->xsp, nsp);
    const int64_t ksz = pz_prod(p->kernel, nsp);
    const int64_t cg = d->C / p->group, mg = d->M / p->group;
    const int64_t zx = a->xzp ? (int64_t)pz_load_bits(a->xzp, d->tx, 0) : 0;
    double qlo, qhi;
    pz_quant_range(d->ty, &qlo, &qhi);
    if (p->func == PZ_QCONV_QLINEAR && p->act.kind != PZ_ACT_NONE) {
        /* the clamp of a folded Relu/Clip: its bounds quantized as y is */
        const double ys = pz_ld(a->ys, d->ts, 0), yz = a->yzp ? pz_load_f64(a->yzp, d->ty, 0) : 0;
        const double lo = p->act.kind == PZ_ACT_RELU ? 0 : p->act.lo;
        const double hi = p->act.kind == PZ_ACT_RELU ? INFINITY : p->act.hi;
        const double qa = nearbyint(pz_round_to(d->ts, lo / ys)) + yz;
        const double qb = nearbyint(pz_round_to(d->ts, hi / ys)) + yz;
        qlo = qa > qlo ? qa : qlo;
        qhi = qb < qhi ? qb : qhi;
    }
    int64_t lo, hi;
    pz_split(d->N * d->M * ysz, ith, nth, &lo, &hi);
    for (int64_t e = lo; e < hi; e++) {
        const int64_t pos = e % ysz, m = e / ysz % d->M, nb = e / ysz / d->M, g = m / mg;
        const int64_t zw = a->wzp ? (int64_t)pz_load_bits(a->wzp, d->tw, d->wzp_per_m ? m : 0) : 0;
        int64_t oc[PZ_MAX_SPATIAL], rem = pos;   /* output coordinates of pos */
        for (int s = nsp - 1; s >= 0; s--) {
            oc[s] = rem % d->ysp[s];
            rem /= d->ysp[s];
        }
        int64_t acc = a->b ? a->b[m] : 0;
        for (int64_t ci = 0; ci < cg; ci++) {
            const int64_t c = g * cg + ci;
            for (int64_t kk = 0; kk < ksz; kk++) {
                int64_t xo = 0, kr = kk, inside = 1, kc[PZ_MAX_SPATIAL];
                for (int s = nsp - 1; s >= 0; s--) {
                    kc[s] = kr % p->kernel[s];
                    kr /= p->kernel[s];
                }
                for (int s = 0; s < nsp && inside; s++) {
                    const int64_t ic = oc[s] * p->stride[s] - p->pad_begin[s] + kc[s] * p->dilation[s];
                    inside = ic >= 0 && ic < d->xsp[s];
                    xo = xo * d->xsp[s] + ic;
                }
                if (!inside) continue;
                const int64_t xv = ld8(x, d->tx, (nb * d->C + c) * xsz + xo) - zx;
                const int64_t wv = ld8(w, d->tw, (m * cg + ci) * ksz + kk) - zw;
                acc += xv * wv;
            }
        }
        if (p->func == PZ_QCONV_INTEGER) {
            pz_store_bits(y, PZ_I32, e, (uint64_t)acc);   /* int32: wraps like ONNX's int32 */
            continue;
        }
        /* (x_scale * w_scale / y_scale) in the scales' type, times the sum in
         * double, rounded half to even, plus y_zero_point, saturated */
        const double mult = pz_round_to(d->ts, pz_round_to(d->ts, pz_ld(a->xs, d->ts, 0) *
                                        pz_ld(a->ws, d->ts, d->ws_per_m ? m : 0)) /
                                        pz_ld(a->ys, d->ts, 0));
        double v = nearbyint((double)acc * mult) + (a->yzp ? pz_load_f64(a->yzp, d->ty, 0) : 0);
        if (isnan(v)) v = 0;   /* a NaN scale: the cast below would be undefined */
        v = v < qlo ? qlo : v > qhi ? qhi : v;
        pz_store_bits(y, d->ty, e, (uint64_t)(int64_t)v);
    }
}
