/* qgconv_dyn_avx2.c - the taps of the grouped/depthwise ConvInteger
 * (qgconv_dyn.h) in AVX2: 32 (the last 16) output columns in four (two)
 * YMM sums while every tap adds to them, the bytes widened to int32
 * (stride 1: 8 bytes a vector; stride 2: the even bytes of 16), (x - zx)
 * wv with int32's wrap; other strides the scalar twin's loop. The same
 * bits as the twin (qgconv_dyn.c). */
#include "rt/kernels/quant/qgconv_dyn.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* The 8 columns from p widened to int32: 8 bytes, or the even bytes of 16 */
static inline __attribute__((always_inline)) __m256i cols8(const uint8_t *p, int sw,
                                                          int x_signed)
{
    if (sw == 1) {
        const __m128i b = _mm_loadl_epi64((const __m128i *)p);
        return x_signed ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    }
    const __m256i wds =
        _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 24);
    return x_signed ? _mm256_srai_epi32(wds, 24) : _mm256_srli_epi32(wds, 24);
}

/* (x - zx) wv on 8 columns from p added to a: x - zx and wv = w - zw both
 * lie in [-255, 255] (two values of one 8-bit type), so one vpmaddwd on the
 * low halves (w's high half 0) is the exact product, cheaper than vpmulld */
#define ADD8(a, p) \
    a = _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_sub_epi32(cols8(p, sw, sg), zv), w))

/* the columns [0, n) 32 at a time, four sums in registers over the taps,
 * then 16 with two; inlined with sw and sg constant */
static inline __attribute__((always_inline)) void taps32(int32_t *acc, int64_t n,
                                                         const uint8_t *const *xs,
                                                         const int32_t *wv, int nt, int sw,
                                                         __m256i zv, int sg)
{
    int64_t ow = 0;
    for (; ow + 32 <= n; ow += 32) {
        int32_t *c = acc + ow;
        __m256i a0 = _mm256_loadu_si256((const __m256i *)c);
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(c + 8));
        __m256i a2 = _mm256_loadu_si256((const __m256i *)(c + 16));
        __m256i a3 = _mm256_loadu_si256((const __m256i *)(c + 24));
        for (int t = 0; t < nt; t++) {
            const uint8_t *p = xs[t] + ow * sw;
            const __m256i w = _mm256_set1_epi32(wv[t] & 0xffff);
            ADD8(a0, p);
            ADD8(a1, p + 8 * sw);
            ADD8(a2, p + 16 * sw);
            ADD8(a3, p + 24 * sw);
        }
        _mm256_storeu_si256((__m256i *)c, a0);
        _mm256_storeu_si256((__m256i *)(c + 8), a1);
        _mm256_storeu_si256((__m256i *)(c + 16), a2);
        _mm256_storeu_si256((__m256i *)(c + 24), a3);
    }
    if (ow < n) {
        int32_t *c = acc + ow;
        __m256i a0 = _mm256_loadu_si256((const __m256i *)c);
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(c + 8));
        for (int t = 0; t < nt; t++) {
            const uint8_t *p = xs[t] + ow * sw;
            const __m256i w = _mm256_set1_epi32(wv[t] & 0xffff);
            ADD8(a0, p);
            ADD8(a1, p + 8 * sw);
        }
        _mm256_storeu_si256((__m256i *)c, a0);
        _mm256_storeu_si256((__m256i *)(c + 8), a1);
    }
}

void pz_qgconv_taps__avx2(int32_t *acc, int64_t n, const uint8_t *const *xs, const int32_t *wv,
                          int nt, int sw, int32_t zx, int x_signed)
{
    const __m256i zv = _mm256_set1_epi32(zx);
    PZ_QGCONV_TAPS_BODY(taps32, zv);
}
#endif
