/* lpnorm_ref.c - reference LpNormalization: y = x / ||x||_p along one axis
 * (p 1: the sum of |x|, p 2: the square root of the sum of squares), in
 * double. A line whose norm is zero stays zero (ONNX's test data). */
#include <math.h>

#include "rt/kernels/kernels.h"

void pz_any_lpnorm__ref(int pnorm, int dtype, const pz_axis_shape *s, const void *x, void *y,
                        int ith, int nth)
{
    int64_t lo, hi;
    pz_split(s->outer * s->inner, ith, nth, &lo, &hi);   /* lines (o, i) */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t o = u / s->inner, i = u % s->inner, base = o * s->n * s->inner + i;
        double norm = 0;
        for (int64_t k = 0; k < s->n; k++) {
            double v = pz_ld(x, dtype, base + k * s->inner);
            norm += pnorm == 1 ? fabs(v) : v * v;
        }
        if (pnorm != 1) norm = sqrt(norm);
        for (int64_t k = 0; k < s->n; k++)
            pz_st(y, dtype, base + k * s->inner,
                  norm == 0 ? 0 : pz_ld(x, dtype, base + k * s->inner) / norm);
    }
}
