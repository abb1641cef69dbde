/* pool16c_avx512.c - 2-D max/average pooling on NCHW16c, one ZMM per
 * 16-channel pixel (driven by pool16c.c; the scalar twin is pool16c_scalar.c). */
#include "rt/kernels/pool/pool16c.h"

#ifndef PZ_SCALAR
#include <immintrin.h>
#include <math.h>

/* One output row (pz_pool16c_drive). */
static void row16c(const pz_pool16c_desc *d, const pz_pool16c_row *r)
{
    __mmask16 keep = (__mmask16)((1u << r->tail) - 1);
    for (int64_t ow = 0; ow < d->ow; ow++) {
        int64_t ix0, kx0, kx1;
        float cnt = pz_pool16c_col(d, r, ow, &ix0, &kx0, &kx1);
        __m512 acc = _mm512_set1_ps(d->max ? -INFINITY : 0.0f);
        bool first = true;
        for (int64_t ky = r->ky0; ky < r->ky1; ky++) {
            const float *row = r->x + ((r->iy0 + ky * d->dh) * d->w + ix0) * 16;
            for (int64_t kx = kx0; kx < kx1; kx++) {
                __m512 t = _mm512_loadu_ps(row + kx * d->dw * 16);
                if (!d->max) acc = _mm512_add_ps(acc, t);
                else acc = first ? t : _mm512_max_ps(t, acc);   /* t > acc ? t : acc */
                first = false;
            }
        }
        if (!d->max) acc = cnt > 0 ? _mm512_div_ps(acc, _mm512_set1_ps(cnt)) : _mm512_setzero_ps();
        _mm512_storeu_ps(r->y + ow * 16, _mm512_maskz_mov_ps(keep, acc));
    }
}

void pz_f32_pool2d_nchw16c__avx512(const pz_pool16c_desc *d, const float *restrict x,
                                   float *restrict y, int ith, int nth)
{
    pz_pool16c_drive(d, row16c, x, y, ith, nth);
}

#endif
