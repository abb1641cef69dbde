/* qgconv_dyn_avx2.c - one tap of the grouped/depthwise ConvInteger
 * (qgconv_dyn.h) in AVX2: 8 output columns a vector (stride 1: 8 bytes;
 * stride 2: the even bytes of 16), widened to int32, (x - zx) wv added
 * with int32's wrap, the last vector overlapping the one before; rows under
 * 9 columns and other strides the scalar twin's loop. The same bits as the
 * twin (qgconv_dyn.c). */
#include "rt/kernels/quant/qgconv_dyn.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* The 8 columns from p widened to int32; at stride 2 the even bytes of the
 * 16 from p, or (lo 1) the odd bytes of the 16 from p - 1 */
static inline __m256i cols8(const uint8_t *p, int sw, int lo, int x_signed)
{
    if (sw == 1) {
        const __m128i b = _mm_loadl_epi64((const __m128i *)p);
        return x_signed ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    }
    __m256i wds = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p - lo)));
    wds = _mm256_slli_epi32(wds, lo ? 16 : 24);   /* the byte wanted to the top */
    return x_signed ? _mm256_srai_epi32(wds, 24) : _mm256_srli_epi32(wds, 24);
}

void pz_qgconv_tap__avx2(int32_t *acc, const uint8_t *x, int64_t o0, int64_t o1, int sw,
                         int64_t off, int32_t zx, int32_t wv, int x_signed)
{
    if (sw > 2 || o1 - o0 < 9) {
        pz_qgconv_tap__scalar(acc, x, o0, o1, sw, off, zx, wv, x_signed);
        return;
    }
    /* x - zx and wv = w - zw both lie in [-255, 255] (two values of one 8-bit
     * type): one vpmaddwd on the low halves (wv's high half 0) is the exact
     * product, a cheaper instruction than vpmulld */
    const __m256i zv = _mm256_set1_epi32(zx), wvv = _mm256_set1_epi32(wv & 0xffff);
    /* stride 2 loads 16 bytes for 8 columns, the last one past the last
     * column's: inside the row only when a further column is (ow + 8 < o1) */
    const int64_t end = sw == 1 ? o1 - 8 : o1 - 9;
    int64_t ow = o0;
    for (; ow <= end; ow += 8) {
        const __m256i t = _mm256_madd_epi16(
            _mm256_sub_epi32(cols8(x + ow * sw + off, sw, 0, x_signed), zv), wvv);
        const __m256i a = _mm256_loadu_si256((const __m256i *)(acc + ow));
        _mm256_storeu_si256((__m256i *)(acc + ow), _mm256_add_epi32(a, t));
    }
    if (ow == o1) return;
    /* the rest: the 8 columns ending at o1, the ones already added masked
     * to 0; stride 2 loads the 16 bytes ending at the last column's (their
     * odd bytes), from inside the row as o1 - 8 > o0 */
    const int64_t ot = o1 - 8;
    const __m256i keep = _mm256_cmpgt_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                            _mm256_set1_epi32((int)(ow - ot) - 1));
    const __m256i t = _mm256_madd_epi16(
        _mm256_sub_epi32(cols8(x + ot * sw + off, sw, sw - 1, x_signed), zv), wvv);
    const __m256i a = _mm256_loadu_si256((const __m256i *)(acc + ot));
    _mm256_storeu_si256((__m256i *)(acc + ot), _mm256_add_epi32(a, _mm256_and_si256(t, keep)));
}
#endif
