/* pool16c_avx2.c - 2-D max/average pooling on NCHW16c, two YMM halves per
 * 16-channel pixel (driven by pool16c.c; the scalar twin is pool16c_scalar.c). */
#include "rt/kernels/pool/pool16c.h"

#ifndef PZ_SCALAR
#include <immintrin.h>
#include <math.h>

/* One output row (pz_pool16c_drive). */
static void row16c(const pz_pool16c_desc *d, const pz_pool16c_row *r)
{
    /* lane j of a half is kept when j + 8*half < tail */
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 keep0 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(r->tail), lane));
    __m256 keep1 = _mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_set1_epi32(r->tail - 8), lane));
    for (int64_t ow = 0; ow < d->ow; ow++) {
        int64_t ix0, kx0, kx1;
        float cnt = pz_pool16c_col(d, r, ow, &ix0, &kx0, &kx1);
        __m256 a0 = _mm256_set1_ps(d->max ? -INFINITY : 0.0f), a1 = a0;
        bool first = true;
        for (int64_t ky = r->ky0; ky < r->ky1; ky++) {
            const float *row = r->x + ((r->iy0 + ky * d->dh) * d->w + ix0) * 16;
            for (int64_t kx = kx0; kx < kx1; kx++) {
                const float *t = row + kx * d->dw * 16;
                __m256 t0 = _mm256_loadu_ps(t), t1 = _mm256_loadu_ps(t + 8);
                if (!d->max) {
                    a0 = _mm256_add_ps(a0, t0);
                    a1 = _mm256_add_ps(a1, t1);
                } else if (first) {
                    a0 = t0;
                    a1 = t1;
                } else {
                    a0 = _mm256_max_ps(t0, a0);   /* t > acc ? t : acc */
                    a1 = _mm256_max_ps(t1, a1);
                }
                first = false;
            }
        }
        if (!d->max) {
            __m256 dv = _mm256_set1_ps(cnt);
            a0 = cnt > 0 ? _mm256_div_ps(a0, dv) : _mm256_setzero_ps();
            a1 = cnt > 0 ? _mm256_div_ps(a1, dv) : _mm256_setzero_ps();
        }
        _mm256_storeu_ps(r->y + ow * 16, _mm256_and_ps(a0, keep0));
        _mm256_storeu_ps(r->y + ow * 16 + 8, _mm256_and_ps(a1, keep1));
    }
}

void pz_f32_pool2d_nchw16c__avx2(const pz_pool16c_desc *d, const float *restrict x,
                                 float *restrict y, int ith, int nth)
{
    pz_pool16c_drive(d, row16c, x, y, ith, nth);
}

#endif
