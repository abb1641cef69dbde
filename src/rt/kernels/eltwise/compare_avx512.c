/* compare_avx512.c - COMPARE on float32, int32 and int64 in ZMM registers:
 * 16 (8) lanes compared by _mm512_cmp_*_mask, the mask stored as bools.
 * Where both operands are contiguous along a segment, or one is one value
 * along it; any other segment goes element by element. The ordered, quiet
 * float predicates give false for NaN, as C's operators do, so the bits
 * equal pz_any_compare__ref's. Bool (And, Or, Xor, Equal) goes to the
 * plain-C twin's row. */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>

#include "rt/kernels/fast.h"

PZ_ALWAYS_INLINE __mmask16 cmp_ps(pz_compare_func f, __m512 a, __m512 b)
{
    switch (f) {
    case PZ_CMP_EQ: return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
    case PZ_CMP_LT: return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
    case PZ_CMP_LE: return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
    case PZ_CMP_GT: return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
    default: return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ);
    }
}

PZ_ALWAYS_INLINE __mmask16 cmp_epi32(pz_compare_func f, __m512i a, __m512i b)
{
    switch (f) {
    case PZ_CMP_EQ: return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_EQ);
    case PZ_CMP_LT: return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_LT);
    case PZ_CMP_LE: return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_LE);
    case PZ_CMP_GT: return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_NLE);
    default: return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_NLT);
    }
}

PZ_ALWAYS_INLINE __mmask8 cmp_epi64(pz_compare_func f, __m512i a, __m512i b)
{
    switch (f) {
    case PZ_CMP_EQ: return _mm512_cmp_epi64_mask(a, b, _MM_CMPINT_EQ);
    case PZ_CMP_LT: return _mm512_cmp_epi64_mask(a, b, _MM_CMPINT_LT);
    case PZ_CMP_LE: return _mm512_cmp_epi64_mask(a, b, _MM_CMPINT_LE);
    case PZ_CMP_GT: return _mm512_cmp_epi64_mask(a, b, _MM_CMPINT_NLE);
    default: return _mm512_cmp_epi64_mask(a, b, _MM_CMPINT_NLT);
    }
}

/* y[i] = a[i] f b[i] over n, an operand's stride 1 (contiguous) or 0 (one
 * value); 16 (float, int32) or 8 (int64) lanes a step, a masked tail. */
PZ_ALWAYS_INLINE void seg32(pz_compare_func f, bool is_int, const void *a, int64_t sa,
                            const void *b, int64_t sb, uint8_t *y, int64_t n)
{
    const __m128i one = _mm_set1_epi8(1);
    const __m512i a0 = _mm512_set1_epi32(*(const int32_t *)a);
    const __m512i b0 = _mm512_set1_epi32(*(const int32_t *)b);
    const int32_t *pa = a, *pb = b;
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        const __m512i va = sa ? _mm512_maskz_loadu_epi32(m, pa + i) : a0;
        const __m512i vb = sb ? _mm512_maskz_loadu_epi32(m, pb + i) : b0;
        const __mmask16 r = is_int ? cmp_epi32(f, va, vb)
                                   : cmp_ps(f, _mm512_castsi512_ps(va), _mm512_castsi512_ps(vb));
        _mm_mask_storeu_epi8(y + i, m, _mm_maskz_mov_epi8(r, one));
    }
}

PZ_ALWAYS_INLINE void seg64(pz_compare_func f, const int64_t *a, int64_t sa, const int64_t *b,
                            int64_t sb, uint8_t *y, int64_t n)
{
    const __m128i one = _mm_set1_epi8(1);
    const __m512i a0 = _mm512_set1_epi64(a[0]), b0 = _mm512_set1_epi64(b[0]);
    for (int64_t i = 0; i < n; i += 8) {
        const __mmask8 m = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        const __m512i va = sa ? _mm512_maskz_loadu_epi64(m, a + i) : a0;
        const __m512i vb = sb ? _mm512_maskz_loadu_epi64(m, b + i) : b0;
        _mm_mask_storeu_epi8(y + i, m, _mm_maskz_mov_epi8(cmp_epi64(f, va, vb), one));
    }
}

#include "rt/kernels/eltwise/compare_row.h"

void pz_num_compare__avx512(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                            const void *b, uint8_t *y, int ith, int nth)
{
    pz_num_compare_walk(row, f, dtype, bc, a, b, y, ith, nth);
}
#endif
