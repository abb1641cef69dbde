/* layernorm_ref.c - reference LayerNormalization over rows of nn
 * contiguous floats (the dims [axis, rank) of X), sums in double. */
#include <math.h>

#include "rt/kernels/kernels.h"

void pz_f32_layernorm__ref(int64_t outer, int64_t nn, const float *x, const float *scale,
                           int64_t ns, const float *b, int64_t nb, float eps, float *y,
                           float *mean, float *inv, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(outer, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        const float *xr = x + r * nn;
        float *yr = y + r * nn;
        double s = 0, v = 0;
        for (int64_t i = 0; i < nn; i++) s += xr[i];
        const double m = nn > 0 ? s / (double)nn : NAN;
        for (int64_t i = 0; i < nn; i++) v += ((double)xr[i] - m) * ((double)xr[i] - m);
        const double is = 1.0 / sqrt(v / (double)nn + (double)eps);
        for (int64_t i = 0; i < nn; i++) {
            float t = (float)(((double)xr[i] - m) * is) * scale[ns == 1 ? 0 : i];
            yr[i] = b ? t + b[nb == 1 ? 0 : i] : t;
        }
        if (mean) mean[r] = (float)m;
        if (inv) inv[r] = (float)is;
    }
}
