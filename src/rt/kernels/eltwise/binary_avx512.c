/* binary_avx512.c - the float32 BINARY in ZMM registers: Pow, Max, Min,
 * PRelu, Mod and Fmod on plain layouts (fast.h, f32_binary), where each
 * operand is contiguous along a segment or one value, and every float
 * function on NCHW16c (binary16c: each operand of Y's shape, one vector
 * per channel or one value; Add, Sub, Mul, Div as IEEE operations). The
 * scalar twins are the reference (binary_ref.c, pz_binary_f32) and
 * eltwise16c.c's, whose bits they give except Pow's:
 *   - Max, Min: (a > b or a NaN) ? a : b, as the reference (NaN propagates);
 *   - Fmod: a - trunc(a / b) b in double, exact where |a / b| < 2^24 (the
 *     double quotient cannot round across an integer there: its distance
 *     to one is at least 2^-48 of it; q b has 48 bits, a - q b is exact),
 *     the sign of a on a zero; Mod adds b where the signs differ, in float
 *     as the reference; other lanes (b 0, inf or NaN operands, larger
 *     quotients) by fmodf;
 *   - Pow: |x|^e = 2^(e log2 |x|) in double (log by atanh's series on
 *     [sqrt(1/2), sqrt 2), exp by Taylor on [-ln2/2, ln2/2], both below
 *     1e-15 relative), rounded once to float: within 1 ulp of the correctly
 *     rounded power, and so of powf's (glibc: below 1 ulp). A negative
 *     base with an integer exponent takes the sign of an odd one; e = 2 is
 *     x x (pz_binary_f32's bits); x < 0 with e not an integer NaN as
 *     glibc's powf makes it, (x - x) / (x - x); lanes with x 0, inf or
 *     NaN, e inf or NaN by the reference.
 * The activation after (Relu, Clip: a BINARY takes no other) as pz_act_f32. */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>
#include <math.h>

#include "rt/kernels/eltwise/pow_series.h"

/* ln |x| for 8 positive finite doubles: x = m 2^k, m in [sqrt(1/2), sqrt 2),
 * ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716: the series to
 * s^19 (the next term below 1e-16 of it). */
PZ_ALWAYS_INLINE __m512d ln8(__m512d x)
{
    __m512d m = _mm512_getmant_pd(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
    __m512d k = _mm512_getexp_pd(x);
    const __mmask8 big = _mm512_cmp_pd_mask(m, _mm512_set1_pd(PZ_POW_SQRT2), _CMP_GT_OQ);
    m = _mm512_mask_mul_pd(m, big, m, _mm512_set1_pd(0.5));
    k = _mm512_mask_add_pd(k, big, k, _mm512_set1_pd(1.0));
    const __m512d one = _mm512_set1_pd(1.0);
    const __m512d s = _mm512_div_pd(_mm512_sub_pd(m, one), _mm512_add_pd(m, one));
    const __m512d s2 = _mm512_mul_pd(s, s);
    __m512d p = _mm512_set1_pd(PZ_POW_LN_C[0]);
    for (int i = 1; i < 10; i++) p = _mm512_fmadd_pd(p, s2, _mm512_set1_pd(PZ_POW_LN_C[i]));
    const __m512d lnm = _mm512_mul_pd(_mm512_add_pd(s, s), p);
    return _mm512_fmadd_pd(k, _mm512_set1_pd(PZ_POW_LN2), lnm);
}

/* e^y for 8 doubles, y clamped to [-800, 800] (beyond: 0 or inf in float
 * anyway): y = n ln2 + r, |r| <= ln2 / 2, e^r by Taylor to r^13, times 2^n. */
PZ_ALWAYS_INLINE __m512d exp8(__m512d y)
{
    y = _mm512_min_pd(_mm512_max_pd(y, _mm512_set1_pd(-800)), _mm512_set1_pd(800));
    const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(y, _mm512_set1_pd(PZ_POW_LOG2E)),
                                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(PZ_POW_LN2_HI), y);
    r = _mm512_fnmadd_pd(n, _mm512_set1_pd(PZ_POW_LN2_LO), r);
    __m512d p = _mm512_set1_pd(PZ_POW_EXP_F[0]);
    for (int i = 1; i < 14; i++) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(PZ_POW_EXP_F[i]));
    return _mm512_scalef_pd(p, n);
}

/* |x|^e for 16 floats (x finite, non-zero; e finite), rounded once. */
PZ_ALWAYS_INLINE __m512 powabs16(__m512 x, __m512 e)
{
    const __m512 ax = _mm512_abs_ps(x);
    const __m512d lo = exp8(_mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(e)),
                                          ln8(_mm512_cvtps_pd(_mm512_castps512_ps256(ax)))));
    const __m512d hi = exp8(_mm512_mul_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1)),
                                          ln8(_mm512_cvtps_pd(_mm512_extractf32x8_ps(ax, 1)))));
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
}

/* Pow of 16 lanes; *slow gets the lanes powf must give. */
PZ_ALWAYS_INLINE __m512 pow16(__m512 x, __m512 e, __mmask16 *slow)
{
    const __m512 inf = _mm512_set1_ps(INFINITY), zero = _mm512_setzero_ps();
    const __mmask16 xok = _mm512_cmp_ps_mask(_mm512_abs_ps(x), inf, _CMP_LT_OQ) &
                          _mm512_cmp_ps_mask(x, zero, _CMP_NEQ_OQ);
    const __mmask16 eok = _mm512_cmp_ps_mask(_mm512_abs_ps(e), inf, _CMP_LT_OQ);
    const __mmask16 eint = _mm512_cmp_ps_mask(
        e, _mm512_roundscale_ps(e, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), _CMP_EQ_OQ);
    const __mmask16 neg = _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ);
    /* odd: an integer below 2^24 (from there every float is even) with bit 0 set */
    const __mmask16 small = _mm512_cmp_ps_mask(_mm512_abs_ps(e), _mm512_set1_ps(16777216.0f), _CMP_LT_OQ);
    const __m512i ei = _mm512_cvttps_epi32(_mm512_maskz_mov_ps(small, e));
    const __mmask16 odd = eint & small & _mm512_test_epi32_mask(ei, _mm512_set1_epi32(1));
    *slow = (__mmask16) ~(xok & eok);
    __m512 r = powabs16(_mm512_mask_mov_ps(_mm512_set1_ps(1), xok, x), _mm512_maskz_mov_ps(eok, e));
    r = _mm512_mask_sub_ps(r, neg & odd, zero, r);   /* -(|x|^e), a negative odd power */
    /* x < 0, e not an integer: powf's NaN, (x - x) / (x - x) (glibc's __math_invalidf) */
    const __mmask16 nan = neg & xok & eok & (__mmask16)~eint;
    const __m512 d = _mm512_sub_ps(x, x);
    r = _mm512_mask_div_ps(r, nan, d, d);
    const __mmask16 two = _mm512_cmp_ps_mask(e, _mm512_set1_ps(2.0f), _CMP_EQ_OQ);
    return _mm512_mask_mul_ps(r, two, x, x);
}

/* Fmod (mod 0) or Mod (1) of 16 lanes; *slow as pow16's. */
PZ_ALWAYS_INLINE __m512 mod16(__m512 a, __m512 b, int python, __mmask16 *slow)
{
    const __m512 inf = _mm512_set1_ps(INFINITY), zero = _mm512_setzero_ps();
    __mmask16 ok = _mm512_cmp_ps_mask(_mm512_abs_ps(a), inf, _CMP_LT_OQ) &
                   _mm512_cmp_ps_mask(_mm512_abs_ps(b), inf, _CMP_LT_OQ) &
                   _mm512_cmp_ps_mask(b, zero, _CMP_NEQ_OQ);
    __m512d r2[2];
    for (int h = 0; h < 2; h++) {
        const __m512d ad = _mm512_cvtps_pd(h ? _mm512_extractf32x8_ps(a, 1) : _mm512_castps512_ps256(a));
        const __m512d bd = _mm512_cvtps_pd(h ? _mm512_extractf32x8_ps(b, 1) : _mm512_castps512_ps256(b));
        const __m512d q = _mm512_roundscale_pd(_mm512_div_pd(ad, bd), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __mmask8 qok = _mm512_cmp_pd_mask(_mm512_abs_pd(q), _mm512_set1_pd(16777216.0), _CMP_LT_OQ);
        ok &= (__mmask16)~((__mmask16)(__mmask8)~qok << (8 * h));
        r2[h] = _mm512_fnmadd_pd(q, bd, ad);
    }
    __m512 r = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(r2[0])), _mm512_cvtpd_ps(r2[1]), 1);
    /* the dividend's sign (a zero's too) */
    const __m512 sgn = _mm512_castsi512_ps(_mm512_set1_epi32((int)0x80000000u));
    r = _mm512_or_ps(_mm512_andnot_ps(sgn, r), _mm512_and_ps(sgn, a));
    if (python) {   /* r != 0 with a sign other than b's: r + b */
        const __mmask16 fix = _mm512_cmp_ps_mask(r, zero, _CMP_NEQ_OQ) &
                              (_mm512_cmp_ps_mask(r, zero, _CMP_LT_OQ) ^ _mm512_cmp_ps_mask(b, zero, _CMP_LT_OQ));
        r = _mm512_mask_add_ps(r, fix, r, b);
    }
    *slow = (__mmask16)~ok;
    return r;
}

PZ_ALWAYS_INLINE __m512 op16(pz_binary_func f, __m512 a, __m512 b, __mmask16 *slow)
{
    *slow = 0;
    switch (f) {
    case PZ_BIN_ADD: return _mm512_add_ps(a, b);
    case PZ_BIN_SUB: return _mm512_sub_ps(a, b);
    case PZ_BIN_MUL: return _mm512_mul_ps(a, b);
    case PZ_BIN_DIV: return _mm512_div_ps(a, b);
    case PZ_BIN_POW: return pow16(a, b, slow);
    case PZ_BIN_MAX:
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ) | _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), b, a);
    case PZ_BIN_MIN:
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ) | _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), b, a);
    case PZ_BIN_PRELU: return _mm512_mask_mul_ps(a, _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_LT_OQ), a, b);
    case PZ_BIN_FMOD: return mod16(a, b, 0, slow);
    default: return mod16(a, b, 1, slow);
    }
}

/* One segment (strides 0 or 1), f decided outside the loop: 16 lanes a
 * step, a masked tail, the slow lanes by the reference's function. */
PZ_ALWAYS_INLINE void row(pz_binary_func f, const float *a, int64_t sa, const float *b, int64_t sb,
                          float *y, int64_t n)
{
    const __m512 va0 = _mm512_set1_ps(a[0]), vb0 = _mm512_set1_ps(b[0]);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        const __m512 va = sa ? _mm512_mask_loadu_ps(_mm512_set1_ps(1), m, a + i) : va0;
        const __m512 vb = sb ? _mm512_mask_loadu_ps(_mm512_set1_ps(1), m, b + i) : vb0;
        __mmask16 slow;
        __m512 v = op16(f, va, vb, &slow);
        if ((slow &= m)) {   /* before the store: Y may be A or B */
            float t[16];
            _mm512_storeu_ps(t, v);
            for (; slow; slow &= (__mmask16)(slow - 1)) {
                const int64_t j = __builtin_ctz(slow);
                t[j] = pz_binary_f32(f, a[(i + j) * sa], b[(i + j) * sb]);
            }
            v = _mm512_loadu_ps(t);
        }
        _mm512_mask_storeu_ps(y + i, m, v);
    }
}

/* One segment: row with f decided outside its loop. */
static void seg_row(pz_binary_func f, const float *a, int64_t sa, const float *b, int64_t sb,
                    float *y, int64_t n)
{
#define ROW(F) row(F, a, sa, b, sb, y, n)
    PZ_BIN16C_SWITCH(f, ROW)
#undef ROW
}

void pz_f32_binary__avx512(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                           const float *b, float *y, int ith, int nth)
{
    pz_f32_binary_walk(seg_row, p, bc, a, b, y, ith, nth);
}

/* n vectors of one (image, block) plane of a blocked binary (fast.h,
 * binary16c): A a vector a pixel (am 0), one vector for all (1, 2) or one
 * value (3), B likewise (bm); then the clamp (lo, hi: the reference's
 * pz_act_f32, NaN kept, as max(lo, v) and min(hi, v) return a NaN v);
 * lanes outside keep zero. The slow lanes (pow16's, mod16's) of the real
 * channels by the reference's function, before the store (Y may be A or B). */
PZ_ALWAYS_INLINE void plane(pz_binary_func f, const float *a, int am, const float *b, int bm,
                            float *y, int64_t n, __mmask16 keep, int act, __m512 lo, __m512 hi)
{
    const int64_t sa = am == 0 ? 16 : 0, sb = bm == 0 ? 16 : 0;   /* per pixel */
    const int64_t la = am != 3, lb = bm != 3;                     /* per lane */
    const __m512 ca = am == 3 ? _mm512_set1_ps(*a) : _mm512_loadu_ps(a);
    const __m512 cb = bm == 3 ? _mm512_set1_ps(*b) : _mm512_loadu_ps(b);
    for (int64_t i = 0; i < n; i++) {
        const __m512 va = sa ? _mm512_loadu_ps(a + i * sa) : ca;
        const __m512 vb = sb ? _mm512_loadu_ps(b + i * sb) : cb;
        __mmask16 slow;
        __m512 v = op16(f, va, vb, &slow);
        if ((slow &= keep)) {
            float t[16];
            _mm512_storeu_ps(t, v);
            for (; slow; slow &= (__mmask16)(slow - 1)) {
                const int64_t j = __builtin_ctz(slow);
                t[j] = pz_binary_f32(f, a[i * sa + j * la], b[i * sb + j * lb]);
            }
            v = _mm512_loadu_ps(t);
        }
        if (act) v = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
        _mm512_storeu_ps(y + i * 16, _mm512_maskz_mov_ps(keep, v));
    }
}

/* plane with f decided outside its loop. */
static void plane_f(pz_binary_func f, const float *a, int am, const float *b, int bm, float *y,
                    int64_t n, __mmask16 keep, int act, __m512 lo, __m512 hi)
{
#define PLANE(F) plane(F, a, am, b, bm, y, n, keep, act, lo, hi)
    PZ_BIN16C_SWITCH(f, PLANE)
#undef PLANE
}

void pz_f32_binary16c__avx512(const pz_binary_params *p, int64_t n, int64_t c, int64_t hw,
                              const float *restrict a, int abc, const float *restrict b, int bbc,
                              float *restrict y, int ith, int nth)
{
    const pz_binary_func f = p->func;
    if (!pz_f32_binary16c_vec_takes(f)) {
        pz_f32_binary16c__scalar(p, n, c, hw, a, abc, b, bbc, y, ith, nth);
        return;
    }
    int64_t cb = (c + 15) / 16, lo, hi;
    pz_split(n * cb * hw, ith, nth, &lo, &hi);
    const __mmask16 tail = (__mmask16)(c % 16 ? (1u << (c % 16)) - 1 : 0xffffu);
    const int act = p->act.kind != PZ_ACT_NONE;
    const __m512 alo = _mm512_set1_ps(p->act.kind == PZ_ACT_CLIP ? p->act.lo : 0.0f);
    const __m512 ahi = _mm512_set1_ps(p->act.kind == PZ_ACT_CLIP ? p->act.hi : INFINITY);
    /* by (image, block) planes: the operands' plane offsets divided out once */
    for (int64_t v = lo; v < hi;) {
        const int64_t pl = v / hw, img = pl / cb, blk = pl % cb;
        const int64_t end = (pl + 1) * hw < hi ? (pl + 1) * hw : hi;
        plane_f(f, pz_bin16c_operand(a, abc, v, img, blk, cb), abc,
                pz_bin16c_operand(b, bbc, v, img, blk, cb), bbc, y + v * 16, end - v,
                blk == cb - 1 ? tail : 0xffffu, act, alo, ahi);
        v = end;
    }
}
#endif
