/* pool16c_scalar.c - the scalar twin (16-lane loops) of the NCHW16c pooling
 * rows of pool16c_avx512.c and pool16c_avx2.c. */
#include <math.h>

#include "rt/kernels/pool/pool16c.h"

/* One output row (pz_pool16c_drive). */
static void row16c(const pz_pool16c_desc *d, const pz_pool16c_row *r)
{
    for (int64_t ow = 0; ow < d->ow; ow++) {
        int64_t ix0, kx0, kx1;
        float cnt = pz_pool16c_col(d, r, ow, &ix0, &kx0, &kx1);
        float acc[16];
        bool first = true;
        for (int j = 0; j < 16; j++) acc[j] = d->max ? -INFINITY : 0.0f;
        for (int64_t ky = r->ky0; ky < r->ky1; ky++)
            for (int64_t kx = kx0; kx < kx1; kx++) {
                const float *t = r->x + ((r->iy0 + ky * d->dh) * d->w + ix0 + kx * d->dw) * 16;
                for (int j = 0; j < 16; j++) {
                    if (!d->max) acc[j] += t[j];
                    else acc[j] = first ? t[j] : t[j] > acc[j] ? t[j] : acc[j];
                }
                first = false;
            }
        float *o = r->y + ow * 16;
        for (int j = 0; j < 16; j++) {
            float v = d->max ? acc[j] : cnt > 0 ? acc[j] / cnt : 0.0f;
            o[j] = j < r->tail ? v : 0.0f;
        }
    }
}

void pz_f32_pool2d_nchw16c__scalar(const pz_pool16c_desc *d, const float *restrict x,
                                   float *restrict y, int ith, int nth)
{
    pz_pool16c_drive(d, row16c, x, y, ith, nth);
}
