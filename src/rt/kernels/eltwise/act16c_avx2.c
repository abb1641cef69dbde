/* act16c_avx2.c - act16c.c's activation in YMM registers, two halves per
 * pixel (pz_act8_ps, vmath_avx2.h). */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx2.h"

void pz_f32_act16c__avx2(const pz_act *a, float *restrict y, int64_t npix, int64_t c0, int64_t c)
{
    int32_t lanes[16];
    for (int l = 0; l < 16; l++) lanes[l] = c0 + l < c ? -1 : 0;
    const __m256 k0 = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)lanes));
    const __m256 k1 = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(lanes + 8)));
    if (a->kind == PZ_ACT_PRELU) {   /* the block's slopes, 0 past c */
        float sl[16];
        for (int l = 0; l < 16; l++) sl[l] = c0 + l < c ? a->slope[c0 + l] : 0.0f;
        const __m256 s0 = _mm256_loadu_ps(sl), s1 = _mm256_loadu_ps(sl + 8), zero = _mm256_setzero_ps();
        for (int64_t p = 0; p < npix; p++) {
            float *q = y + p * 16;
            const __m256 v0 = _mm256_loadu_ps(q), v1 = _mm256_loadu_ps(q + 8);
            const __m256 r0 = _mm256_blendv_ps(v0, _mm256_mul_ps(v0, s0), _mm256_cmp_ps(v0, zero, _CMP_LT_OQ));
            const __m256 r1 = _mm256_blendv_ps(v1, _mm256_mul_ps(v1, s1), _mm256_cmp_ps(v1, zero, _CMP_LT_OQ));
            _mm256_storeu_ps(q, _mm256_and_ps(k0, r0));
            _mm256_storeu_ps(q + 8, _mm256_and_ps(k1, r1));
        }
        return;
    }
    for (int64_t p = 0; p < npix; p++) {
        float *q = y + p * 16;
        _mm256_storeu_ps(q, _mm256_and_ps(k0, pz_act8_ps(a, _mm256_loadu_ps(q))));
        _mm256_storeu_ps(q + 8, _mm256_and_ps(k1, pz_act8_ps(a, _mm256_loadu_ps(q + 8))));
    }
}
#endif
