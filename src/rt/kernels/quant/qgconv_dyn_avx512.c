/* qgconv_dyn_avx512.c - one tap of the grouped/depthwise ConvInteger
 * (qgconv_dyn.h) in AVX-512: 16 output columns a vector, the bytes widened
 * to int32 (stride 1: 16 bytes; stride 2: the even bytes of 32), (x - zx)
 * wv added with int32's wrap; other strides the scalar twin's loop. The
 * same bits as the twin (qgconv_dyn.c). */
#include "rt/kernels/quant/qgconv_dyn.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

void pz_qgconv_tap__avx512(int32_t *acc, const uint8_t *x, int64_t o0, int64_t o1, int sw,
                           int64_t off, int32_t zx, int32_t wv, int x_signed)
{
    if (sw > 2) {
        pz_qgconv_tap__scalar(acc, x, o0, o1, sw, off, zx, wv, x_signed);
        return;
    }
    const __m512i zv = _mm512_set1_epi32(zx), wvv = _mm512_set1_epi32(wv);
    for (int64_t ow = o0; ow < o1; ow += 16) {
        const int64_t cnt = o1 - ow < 16 ? o1 - ow : 16;
        const __mmask16 mk = (__mmask16)((1u << cnt) - 1);
        const uint8_t *p = x + ow * sw + off;
        __m512i xv;
        if (sw == 1) {
            const __m128i b = _mm_maskz_loadu_epi8(mk, p);
            xv = x_signed ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
        } else {
            /* 2 cnt - 1 bytes read: the last column's odd neighbour may be past the row */
            const __mmask32 mb = (__mmask32)((1ull << (2 * cnt - 1)) - 1);
            const __m512i wds = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi8(mb, p));
            xv = x_signed ? _mm512_srai_epi32(_mm512_slli_epi32(wds, 24), 24)
                          : _mm512_and_si512(wds, _mm512_set1_epi32(0xff));
        }
        const __m512i t = _mm512_mullo_epi32(_mm512_sub_epi32(xv, zv), wvv);
        const __m512i a = _mm512_maskz_loadu_epi32(mk, acc + ow);
        _mm512_mask_storeu_epi32(acc + ow, mk, _mm512_add_epi32(a, t));
    }
}
#endif
