/* qgconv_dyn_avx512.c - the taps of the grouped/depthwise ConvInteger
 * (qgconv_dyn.h) in AVX-512: 32 (the last 16) output columns in two (one)
 * ZMM sums while every tap adds to them, the bytes widened to int32
 * (stride 1: 16 bytes a vector; stride 2: the even bytes of 32), (x - zx)
 * wv with int32's wrap; other strides the scalar twin's loop. The same
 * bits as the twin (qgconv_dyn.c). */
#include "rt/kernels/quant/qgconv_dyn.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* The 16 columns from p widened to int32: 16 bytes, or the even bytes of 32 */
static inline __attribute__((always_inline)) __m512i cols16(const uint8_t *p, int sw,
                                                           int x_signed)
{
    if (sw == 1) {
        const __m128i b = _mm_loadu_si128((const __m128i *)p);
        return x_signed ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
    }
    const __m512i wds =
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)), 24);
    return x_signed ? _mm512_srai_epi32(wds, 24) : _mm512_srli_epi32(wds, 24);
}

/* (x - zx) wv on 16 columns from p added to a: x - zx and wv in [-255,
 * 255], so vpmaddwd on the low halves is exact */
#define ADD16(a, p) \
    a = _mm512_add_epi32(a, _mm512_madd_epi16(_mm512_sub_epi32(cols16(p, sw, sg), zv), w))

/* the columns [0, n) 32 at a time, two sums in registers over the taps,
 * then 16 with one; inlined with sw and sg constant */
static inline __attribute__((always_inline)) void taps32(int32_t *acc, int64_t n,
                                                         const uint8_t *const *xs,
                                                         const int32_t *wv, int nt, int sw,
                                                         __m512i zv, int sg)
{
    int64_t ow = 0;
    for (; ow + 32 <= n; ow += 32) {
        __m512i a0 = _mm512_loadu_si512(acc + ow), a1 = _mm512_loadu_si512(acc + ow + 16);
        for (int t = 0; t < nt; t++) {
            const uint8_t *p = xs[t] + ow * sw;
            const __m512i w = _mm512_set1_epi32(wv[t] & 0xffff);
            ADD16(a0, p);
            ADD16(a1, p + 16 * sw);
        }
        _mm512_storeu_si512(acc + ow, a0);
        _mm512_storeu_si512(acc + ow + 16, a1);
    }
    if (ow < n) {
        __m512i a0 = _mm512_loadu_si512(acc + ow);
        for (int t = 0; t < nt; t++) {
            const __m512i w = _mm512_set1_epi32(wv[t] & 0xffff);
            ADD16(a0, xs[t] + ow * sw);
        }
        _mm512_storeu_si512(acc + ow, a0);
    }
}

void pz_qgconv_taps__avx512(int32_t *acc, int64_t n, const uint8_t *const *xs, const int32_t *wv,
                            int nt, int sw, int32_t zx, int x_signed)
{
    const __m512i zv = _mm512_set1_epi32(zx);
    PZ_QGCONV_TAPS_BODY(taps32, zv);
}
#endif
