/* conv_transpose_fast_avx512.c - ConvTranspose's fast twin (kernel =
 * stride; conv_transpose_fast.c) with its row update in ZMM registers:
 * t += x * w as a multiply then an add (no FMA), 16 lanes, the tail
 * masked: the same bits as the plain C twin and the reference. */
#include "rt/kernels/conv/conv_transpose_rows.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

static void axpy_avx512(float *restrict t, const float *restrict x, float w, int64_t n)
{
    const __m512 vw = _mm512_set1_ps(w);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(t + i, _mm512_add_ps(_mm512_loadu_ps(t + i),
                                              _mm512_mul_ps(_mm512_loadu_ps(x + i), vw)));
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512 r = _mm512_add_ps(_mm512_maskz_loadu_ps(m, t + i),
                                 _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), vw));
        _mm512_mask_storeu_ps(t + i, m, r);
    }
}

void pz_f32_conv_transpose__fast_avx512(const pz_conv_params *p, const int64_t *xd,
                                        const int64_t *yd, const float *x, const float *w,
                                        const float *b, float *y, int ith, int nth)
{
    pz_ct_rows(axpy_avx512, p, xd, yd, x, w, b, y, ith, nth);
}
#endif
