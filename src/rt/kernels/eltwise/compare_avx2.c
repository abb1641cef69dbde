/* compare_avx2.c - COMPARE on float32, int32 and int64 in YMM registers:
 * 8 lanes a step (int64: two vectors of 4), the lane masks packed to bytes
 * of 0 or 1. Where both operands are contiguous along a segment, or one is
 * one value along it (compare_avx512.c's cases); other segments, bool and
 * a tail below 8 by the plain-C twin's row. The ordered, quiet float
 * predicates give false for NaN and -0 == 0, as C's operators do; integer
 * Less is Greater with the operands swapped, LessOrEqual and
 * GreaterOrEqual the negation of Greater: pz_any_compare__ref's bits. */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>

#include "rt/kernels/fast.h"

PZ_ALWAYS_INLINE __m256i cmp_ps(pz_compare_func f, __m256 a, __m256 b)
{
    switch (f) {
    case PZ_CMP_EQ: return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_EQ_OQ));
    case PZ_CMP_LT: return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_LT_OQ));
    case PZ_CMP_LE: return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_LE_OQ));
    case PZ_CMP_GT: return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GT_OQ));
    default: return _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GE_OQ));
    }
}

#define NOT256(m) _mm256_xor_si256(m, _mm256_set1_epi32(-1))

PZ_ALWAYS_INLINE __m256i cmp_epi32(pz_compare_func f, __m256i a, __m256i b)
{
    switch (f) {
    case PZ_CMP_EQ: return _mm256_cmpeq_epi32(a, b);
    case PZ_CMP_LT: return _mm256_cmpgt_epi32(b, a);
    case PZ_CMP_LE: return NOT256(_mm256_cmpgt_epi32(a, b));
    case PZ_CMP_GT: return _mm256_cmpgt_epi32(a, b);
    default: return NOT256(_mm256_cmpgt_epi32(b, a));
    }
}

PZ_ALWAYS_INLINE __m256i cmp_epi64(pz_compare_func f, __m256i a, __m256i b)
{
    switch (f) {
    case PZ_CMP_EQ: return _mm256_cmpeq_epi64(a, b);
    case PZ_CMP_LT: return _mm256_cmpgt_epi64(b, a);
    case PZ_CMP_LE: return NOT256(_mm256_cmpgt_epi64(a, b));
    case PZ_CMP_GT: return _mm256_cmpgt_epi64(a, b);
    default: return NOT256(_mm256_cmpgt_epi64(b, a));
    }
}

/* 8 lane masks (0 or -1, 32 bits each) as 8 bytes of 0 or 1: the signed
 * packs keep 0 and -1, the and makes -1 a 1. */
PZ_ALWAYS_INLINE void store8(uint8_t *y, __m256i m)
{
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    _mm_storel_epi64((__m128i *)y, _mm_and_si128(_mm_packs_epi16(w, w), _mm_set1_epi8(1)));
}

/* y[i] = a[i] f b[i] over n, an operand's stride 1 (contiguous) or 0 (one
 * value), 32-bit lanes: 8 a step, the tail by the twin's row. */
PZ_ALWAYS_INLINE void seg32(pz_compare_func f, bool is_int, const void *a, int64_t sa,
                            const void *b, int64_t sb, uint8_t *y, int64_t n)
{
    const int32_t *pa = a, *pb = b;
    const __m256i a0 = _mm256_set1_epi32(pa[0]), b0 = _mm256_set1_epi32(pb[0]);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i va = sa ? _mm256_loadu_si256((const __m256i *)(pa + i)) : a0;
        const __m256i vb = sb ? _mm256_loadu_si256((const __m256i *)(pb + i)) : b0;
        store8(y + i, is_int ? cmp_epi32(f, va, vb)
                             : cmp_ps(f, _mm256_castsi256_ps(va), _mm256_castsi256_ps(vb)));
    }
    if (i < n)
        pz_num_compare_row__fast(f, is_int ? PZ_I32 : PZ_F32, pa + i * sa, sa, pb + i * sb, sb,
                                 y + i, n - i);
}

/* seg32 for int64: two vectors of 4 a step, each lane's low half of its
 * mask (both halves are alike) gathered into one vector of 8. */
PZ_ALWAYS_INLINE void seg64(pz_compare_func f, const int64_t *a, int64_t sa, const int64_t *b,
                            int64_t sb, uint8_t *y, int64_t n)
{
    const __m256i a0 = _mm256_set1_epi64x(a[0]), b0 = _mm256_set1_epi64x(b[0]);
    const __m256i lows = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i m[2];
        for (int h = 0; h < 2; h++) {
            const __m256i va = sa ? _mm256_loadu_si256((const __m256i *)(a + i + 4 * h)) : a0;
            const __m256i vb = sb ? _mm256_loadu_si256((const __m256i *)(b + i + 4 * h)) : b0;
            m[h] = _mm256_permutevar8x32_epi32(cmp_epi64(f, va, vb), lows);
        }
        store8(y + i, _mm256_permute2x128_si256(m[0], m[1], 0x20));
    }
    if (i < n) pz_num_compare_row__fast(f, PZ_I64, a + i * sa, sa, b + i * sb, sb, y + i, n - i);
}

#include "rt/kernels/eltwise/compare_row.h"

void pz_num_compare__avx2(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                          const void *b, uint8_t *y, int ith, int nth)
{
    pz_num_compare_walk(row, f, dtype, bc, a, b, y, ith, nth);
}
#endif
