/* layout_scalar.c - the scalar twin of the interleave (layout_avx512.c). */
#include "rt/kernels/fast.h"

void pz_f32_interleave__scalar(const float *restrict x, int64_t plane, int nc, int64_t np,
                               float *restrict y)
{
    if (nc == 3) {   /* RGB: one pass, each output line written whole */
        const float *x0 = x, *x1 = x + plane, *x2 = x + 2 * plane;
        for (int64_t p = 0; p < np; p++) {
            y[3 * p] = x0[p];
            y[3 * p + 1] = x1[p];
            y[3 * p + 2] = x2[p];
        }
        return;
    }
    for (int l = 0; l < nc; l++)
        for (int64_t p = 0; p < np; p++) y[p * nc + l] = x[l * plane + p];
}
