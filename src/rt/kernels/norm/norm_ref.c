/* norm_ref.c - reference RMS, instance and group normalisation over rows
 * of contiguous elements, any float type, sums in double. */
#include "rt/kernels/kernels.h"

void pz_any_norm__ref(const pz_norm_desc *d, int dt, const void *x, const void *scale,
                      const void *bias, void *y, int ith, int nth)
{
    int64_t lo, hi, nn = d->nn;
    pz_split(d->outer, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        const int64_t o = r * nn, s0 = (r % d->sg) * d->sn;
        double m = 0, v = 0;
        if (d->center) {
            for (int64_t i = 0; i < nn; i++) m += pz_ld(x, dt, o + i);
            m /= (double)nn;
        }
        for (int64_t i = 0; i < nn; i++) {
            double t = pz_ld(x, dt, o + i) - m;
            v += t * t;
        }
        const double inv = 1.0 / sqrt(v / (double)nn + d->eps);
        for (int64_t i = 0; i < nn; i++) {
            int64_t k = (s0 + i / d->sdiv) % d->smod;
            double t = (pz_ld(x, dt, o + i) - m) * inv;
            if (scale) t *= pz_ld(scale, dt, k);
            if (bias) t += pz_ld(bias, dt, k);
            pz_st(y, dt, o + i, t);
        }
    }
}
