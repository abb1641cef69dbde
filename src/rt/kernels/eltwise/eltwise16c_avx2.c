/* eltwise16c_avx2.c - AVX2 unary functions on NCHW16c buffers, beside
 * eltwise16c.c's scalar twin (the same split and layout; see fast.h):
 * GELU (both forms) and Erf by vmath_avx2.h's gelu8_ps and erf8_ps, the
 * formulas of the AVX2 conv and GEMM epilogues (pz_act8_ps), so a fused
 * GELU has this layer's bits. Every other function goes to the scalar twin.
 * Lanes of channels >= C are written as zeros, as there. */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx2.h"

void pz_f32_unary_nchw16c__avx2(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                                const float *restrict x, float *restrict y, int ith, int nth)
{
    const pz_unary_func f = p->func;
    if (f != PZ_UN_GELU && f != PZ_UN_ERF) {
        pz_f32_unary_nchw16c__scalar(p, n, c, hw, x, y, ith, nth);
        return;
    }
    int64_t cb = (c + 15) / 16, lo, hi;
    pz_split(n * cb * hw, ith, nth, &lo, &hi);
    int32_t lanes[16];   /* the real channels' lanes of the last block */
    for (int l = 0; l < 16; l++) lanes[l] = c % 16 == 0 || l < c % 16 ? -1 : 0;
    const __m256 k0 = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)lanes));
    const __m256 k1 = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(lanes + 8)));
    const int tanh_form = p->alpha != 0;
    for (int64_t v = lo; v < hi; v++) {
        const int last = (v / hw) % cb == cb - 1;
        for (int h = 0; h < 2; h++) {
            const __m256 t = _mm256_loadu_ps(x + v * 16 + h * 8);
            __m256 r = f == PZ_UN_ERF ? erf8_ps(t) : gelu8_ps(t, tanh_form);
            if (last) r = _mm256_and_ps(h ? k1 : k0, r);   /* the padded lanes stay zero */
            _mm256_storeu_ps(y + v * 16 + h * 8, r);
        }
    }
}
#endif
