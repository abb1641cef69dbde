/* act16c_avx512.c - act16c.c's activation in ZMM registers (pz_act16_ps:
 * the unary kernel's formulas, within a few ulps of the scalar twin). */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"

void pz_f32_act16c__avx512(const pz_act *a, float *restrict y, int64_t npix, int64_t c0,
                           int64_t c)
{
    const __mmask16 keep = (__mmask16)(c - c0 >= 16 ? 0xffffu : (1u << (c - c0)) - 1);
    if (a->kind == PZ_ACT_PRELU) {   /* the block's slopes (masked: no read past c) */
        const __m512 s = _mm512_maskz_loadu_ps(keep, a->slope + c0);
        for (int64_t p = 0; p < npix; p++) {
            const __m512 v = _mm512_loadu_ps(y + p * 16);
            const __mmask16 neg = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
            _mm512_storeu_ps(y + p * 16, _mm512_maskz_mov_ps(keep, _mm512_mask_mul_ps(v, neg, v, s)));
        }
        return;
    }
    for (int64_t p = 0; p < npix; p++)
        _mm512_storeu_ps(y + p * 16, _mm512_maskz_mov_ps(keep, pz_act16_ps(a, _mm512_loadu_ps(y + p * 16))));
}
#endif
