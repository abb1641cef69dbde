/* int_binary_avx512.c - the integer BINARY in ZMM registers (fast.h,
 * int_binary): int32 (16 lanes) and int64 (8) Add, Sub, Mul, Max, Min;
 * int32 Div and Mod through double, which is exact there (|a|, |b| <
 * 2^31: the quotient's rounding error is below 1/|b|, its distance to the
 * next integer when it is not one); BitwiseAnd/Or/Xor on 8 to 64 bits,
 * Shl/Shr on uint16/32/64 (the variable shifts give 0 for a count of the
 * width or more, as the reference); int32/int64 Pow. Where both operands
 * are contiguous along a segment or one is one value; int64 Div and Mod,
 * uint8 shifts and other strides take the plain row (int_binary_fast.c). The
 * bits of pz_int_binary__ref. */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* 8 truncated quotients of int32 lanes (as doubles: exact), b = 0 giving
 * 0 (masked) and MIN / -1 the conversion's out-of-range value, MIN. */
PZ_ALWAYS_INLINE __m256i div8(__m256i a, __m256i b)
{
    const __mmask8 nz = _mm256_test_epi32_mask(b, b);
    const __m512d q = _mm512_div_pd(_mm512_cvtepi32_pd(a), _mm512_cvtepi32_pd(b));
    return _mm256_maskz_mov_epi32(nz, _mm512_cvttpd_epi32(q));
}

/* x ** z per lane (W = 32 or 64 bits), the reference's: square and multiply
 * wrapping, as many steps as the longest exponent of the vector has bits;
 * z < 0 gives 1 for x = 1, -1 or 1 for x = -1 (z odd or even), else 0. */
#define POW_LANES(W, M)                                                            \
    PZ_ALWAYS_INLINE __m512i pow##W(__m512i x, __m512i z)                          \
    {                                                                              \
        const __m512i one = _mm512_set1_epi##W(1), m1 = _mm512_set1_epi##W(-1);    \
        const M neg = _mm512_cmplt_epi##W##_mask(z, _mm512_setzero_si512());       \
        __m512i r = one, b = x, e = _mm512_maskz_mov_epi##W((M)~neg, z);           \
        for (M live = _mm512_test_epi##W##_mask(e, e); live;                       \
             live = _mm512_test_epi##W##_mask(e, e)) {                             \
            r = _mm512_mask_mullo_epi##W(r, _mm512_test_epi##W##_mask(e, one), r, b); \
            b = _mm512_mullo_epi##W(b, b);                                         \
            e = _mm512_srli_epi##W(e, 1);                                          \
        }                                                                          \
        const __m512i sgn = _mm512_mask_mov_epi##W(one, _mm512_test_epi##W##_mask(z, one), m1); \
        const __m512i rn = _mm512_or_si512(                                        \
            _mm512_maskz_mov_epi##W(_mm512_cmpeq_epi##W##_mask(x, one), one),      \
            _mm512_maskz_mov_epi##W(_mm512_cmpeq_epi##W##_mask(x, m1), sgn));      \
        return _mm512_mask_mov_epi##W(r, neg, rn);                                 \
    }
POW_LANES(32, __mmask16)
POW_LANES(64, __mmask8)

/* int32 a f b for f in Add, Sub, Mul, Max, Min, Div, Mod, Fmod. */
PZ_ALWAYS_INLINE __m512i op32(pz_binary_func f, __m512i a, __m512i b)
{
    switch (f) {
    case PZ_BIN_ADD: return _mm512_add_epi32(a, b);
    case PZ_BIN_SUB: return _mm512_sub_epi32(a, b);
    case PZ_BIN_MUL: return _mm512_mullo_epi32(a, b);
    case PZ_BIN_MAX: return _mm512_max_epi32(a, b);
    case PZ_BIN_MIN: return _mm512_min_epi32(a, b);
    case PZ_BIN_BITAND: return _mm512_and_si512(a, b);
    case PZ_BIN_BITOR: return _mm512_or_si512(a, b);
    case PZ_BIN_BITXOR: return _mm512_xor_si512(a, b);
    case PZ_BIN_SHL: return _mm512_sllv_epi32(a, b);
    case PZ_BIN_SHR: return _mm512_srlv_epi32(a, b);
    case PZ_BIN_POW: return pow32(a, b);
    default: break;
    }
    const __m512i q = _mm512_inserti64x4(
        _mm512_castsi256_si512(div8(_mm512_castsi512_si256(a), _mm512_castsi512_si256(b))),
        div8(_mm512_extracti64x4_epi64(a, 1), _mm512_extracti64x4_epi64(b, 1)), 1);
    if (f == PZ_BIN_DIV) return q;
    /* r = a - q b (wrapping: MIN mod -1 = MIN - MIN = 0); b = 0 gives q = 0, r = a: 0 */
    const __mmask16 nz = _mm512_test_epi32_mask(b, b);
    __m512i r = _mm512_maskz_sub_epi32(nz, a, _mm512_mullo_epi32(q, b));
    if (f == PZ_BIN_MOD) {   /* r != 0 with a sign other than b's: r + b */
        const __mmask16 fix = _mm512_test_epi32_mask(r, r) &
                              _mm512_cmplt_epi32_mask(_mm512_xor_si512(r, b), _mm512_setzero_si512());
        r = _mm512_mask_add_epi32(r, fix, r, b);
    }
    return r;
}

PZ_ALWAYS_INLINE __m512i op64(pz_binary_func f, __m512i a, __m512i b)
{
    switch (f) {
    case PZ_BIN_ADD: return _mm512_add_epi64(a, b);
    case PZ_BIN_SUB: return _mm512_sub_epi64(a, b);
    case PZ_BIN_MUL: return _mm512_mullo_epi64(a, b);
    case PZ_BIN_MAX: return _mm512_max_epi64(a, b);
    case PZ_BIN_BITAND: return _mm512_and_si512(a, b);
    case PZ_BIN_BITOR: return _mm512_or_si512(a, b);
    case PZ_BIN_BITXOR: return _mm512_xor_si512(a, b);
    case PZ_BIN_SHL: return _mm512_sllv_epi64(a, b);
    case PZ_BIN_SHR: return _mm512_srlv_epi64(a, b);
    case PZ_BIN_POW: return pow64(a, b);
    default: return _mm512_min_epi64(a, b);
    }
}

/* 8- and 16-bit lanes: the bitwise functions, and the uint16 shifts. */
PZ_ALWAYS_INLINE __m512i op16(pz_binary_func f, __m512i a, __m512i b)
{
    switch (f) {
    case PZ_BIN_BITAND: return _mm512_and_si512(a, b);
    case PZ_BIN_BITOR: return _mm512_or_si512(a, b);
    case PZ_BIN_BITXOR: return _mm512_xor_si512(a, b);
    case PZ_BIN_SHL: return _mm512_sllv_epi16(a, b);
    default: return _mm512_srlv_epi16(a, b);
    }
}

/* One segment of one of the patterns (stride 1 or 0 each), f vectorized
 * for the type: 64 bytes a step, a masked tail. */
PZ_ALWAYS_INLINE void row32(pz_binary_func f, const int32_t *a, int64_t sa, const int32_t *b, int64_t sb,
                  int32_t *y, int64_t n)
{
    const __m512i va0 = _mm512_set1_epi32(a[0]), vb0 = _mm512_set1_epi32(b[0]);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        const __m512i va = sa ? _mm512_maskz_loadu_epi32(m, a + i) : va0;
        /* lanes past the tail divide by 1, not 0 (no matter: masked off) */
        const __m512i vb = sb ? _mm512_mask_loadu_epi32(_mm512_set1_epi32(1), m, b + i) : vb0;
        _mm512_mask_storeu_epi32(y + i, m, op32(f, va, vb));
    }
}

PZ_ALWAYS_INLINE void row64(pz_binary_func f, const int64_t *a, int64_t sa, const int64_t *b, int64_t sb,
                  int64_t *y, int64_t n)
{
    const __m512i va0 = _mm512_set1_epi64(a[0]), vb0 = _mm512_set1_epi64(b[0]);
    for (int64_t i = 0; i < n; i += 8) {
        const __mmask8 m = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        const __m512i va = sa ? _mm512_maskz_loadu_epi64(m, a + i) : va0;
        const __m512i vb = sb ? _mm512_maskz_loadu_epi64(m, b + i) : vb0;
        _mm512_mask_storeu_epi64(y + i, m, op64(f, va, vb));
    }
}

/* 64 bytes of 8- or 16-bit lanes a step (op16), a masked tail. */
PZ_ALWAYS_INLINE void row8(pz_binary_func f, const uint8_t *a, int64_t sa, const uint8_t *b,
                           int64_t sb, uint8_t *y, int64_t n)
{
    const __m512i va0 = _mm512_set1_epi8((char)a[0]), vb0 = _mm512_set1_epi8((char)b[0]);
    for (int64_t i = 0; i < n; i += 64) {
        const __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
        const __m512i va = sa ? _mm512_maskz_loadu_epi8(m, a + i) : va0;
        const __m512i vb = sb ? _mm512_maskz_loadu_epi8(m, b + i) : vb0;
        _mm512_mask_storeu_epi8(y + i, m, op16(f, va, vb));
    }
}

PZ_ALWAYS_INLINE void row16(pz_binary_func f, const uint16_t *a, int64_t sa, const uint16_t *b,
                            int64_t sb, uint16_t *y, int64_t n)
{
    const __m512i va0 = _mm512_set1_epi16((short)a[0]), vb0 = _mm512_set1_epi16((short)b[0]);
    for (int64_t i = 0; i < n; i += 32) {
        const __mmask32 m = n - i >= 32 ? ~(__mmask32)0 : (__mmask32)((1ull << (n - i)) - 1);
        const __m512i va = sa ? _mm512_maskz_loadu_epi16(m, a + i) : va0;
        const __m512i vb = sb ? _mm512_maskz_loadu_epi16(m, b + i) : vb0;
        _mm512_mask_storeu_epi16(y + i, m, op16(f, va, vb));
    }
}

#define BIT_CASES(ROW, T)                                                          \
    case PZ_BIN_BITAND: ROW(PZ_BIN_BITAND, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_BITOR: ROW(PZ_BIN_BITOR, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_BITXOR: ROW(PZ_BIN_BITXOR, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_SHL: ROW(PZ_BIN_SHL, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_SHR: ROW(PZ_BIN_SHR, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break;

/* One row per function, so that op32/op64's switch is decided outside the loop. */
#define ROW_CASES(ROW, T, ...)                                                     \
    switch (f) {                                                                   \
    case PZ_BIN_ADD: ROW(PZ_BIN_ADD, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_SUB: ROW(PZ_BIN_SUB, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_MUL: ROW(PZ_BIN_MUL, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_MAX: ROW(PZ_BIN_MAX, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_MIN: ROW(PZ_BIN_MIN, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    case PZ_BIN_POW: ROW(PZ_BIN_POW, (const T *)a, sa, (const T *)b, sb, (T *)y, n); break; \
    BIT_CASES(ROW, T)                                                              \
    __VA_ARGS__                                                                    \
    default: pz_int_binary_row__fast(f, dt, a, sa, b, sb, y, n); break;            \
    }

/* One segment of the walk (pz_int_binary_walk). */
static void row(pz_binary_func f, int dt, const void *a, int64_t sa, const void *b, int64_t sb,
                void *y, int64_t n)
{
    if ((sa | sb) > 1) {   /* a strided operand: the plain row */
        pz_int_binary_row__fast(f, dt, a, sa, b, sb, y, n);
        return;
    }
    const size_t es = pz_dtype_size(dt);
    if (es == 1 && f >= PZ_BIN_BITAND && f <= PZ_BIN_BITXOR) {   /* no 8-bit shift: plain */
        switch (f) {
        case PZ_BIN_BITAND: row8(PZ_BIN_BITAND, a, sa, b, sb, y, n); break;
        case PZ_BIN_BITOR: row8(PZ_BIN_BITOR, a, sa, b, sb, y, n); break;
        default: row8(PZ_BIN_BITXOR, a, sa, b, sb, y, n); break;
        }
    } else if (es == 2) {
        switch (f) {
        BIT_CASES(row16, uint16_t)
        default: pz_int_binary_row__fast(f, dt, a, sa, b, sb, y, n); break;
        }
    } else if (es == 4) {
        ROW_CASES(row32, int32_t,
                  case PZ_BIN_DIV: row32(PZ_BIN_DIV, a, sa, b, sb, y, n); break;
                  case PZ_BIN_MOD: row32(PZ_BIN_MOD, a, sa, b, sb, y, n); break;
                  case PZ_BIN_FMOD: row32(PZ_BIN_FMOD, a, sa, b, sb, y, n); break;)
    } else if (es == 8) {
        ROW_CASES(row64, int64_t)
    } else {
        pz_int_binary_row__fast(f, dt, a, sa, b, sb, y, n);
    }
}

void pz_int_binary__avx512(const pz_binary_params *p, int dtype, const pz_bcast *bc,
                           const void *a, const void *b, void *y, int ith, int nth)
{
    pz_int_binary_walk(row, p, dtype, bc, a, b, y, ith, nth);
}
#endif
