/* binary_avx2.c - the float32 BINARY in YMM registers: Pow, Max, Min,
 * PRelu, Mod and Fmod on plain layouts (fast.h, f32_binary: each operand
 * contiguous along a segment or one value, 8 lanes a step), and every float
 * function on NCHW16c in two halves of 8 lanes a pixel (binary16c: each
 * operand of Y's shape, one vector per channel or one value), beside the
 * scalar twins (binary_ref.c's pz_binary_f32, eltwise16c.c's) and
 * binary_avx512.c's kernels, whose forms these are:
 *   - Add, Sub, Mul, Div as IEEE operations, no contraction (C11 mode);
 *   - Max, Min: (a > b or a NaN) ? a : b; PRelu: a < 0 ? a b : a;
 *   - Fmod, Mod: a - trunc(a / b) b in double where |a / b| < 2^24 (exact
 *     there, binary_avx512.c says why), the dividend's sign, Mod adding b
 *     where the signs differ: the twin's bits;
 *   - Pow: 2^(e log2 |x|) in double by the AVX-512 form's series (ln by
 *     atanh to s^19, exp by Taylor to r^13), the exponent and mantissa by
 *     their bits for getexp, getmant and scalef (e ln|x| clamped to
 *     [-110, 100]: beyond, 0 and inf in float as at +-800), so within
 *     1 ulp of powf as that form; the sign, NaN and e = 2 rules as there.
 * Lanes the forms leave (x 0, inf or NaN, b 0, large quotients) by the
 * twin's function; lanes of channels >= C are written as zeros. */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>
#include <math.h>

#include "rt/kernels/eltwise/pow_series.h"

/* ln x for 4 positive normal doubles: x = m 2^k by the bits, m in
 * [sqrt(1/2), sqrt 2), ln m = 2 atanh((m - 1) / (m + 1)) to s^19. */
PZ_ALWAYS_INLINE __m256d ln4(__m256d x)
{
    const __m256i bits = _mm256_castpd_si256(x);
    __m256d m = _mm256_castsi256_pd(_mm256_or_si256(
        _mm256_and_si256(bits, _mm256_set1_epi64x(0x000fffffffffffffLL)),
        _mm256_set1_epi64x(0x3ff0000000000000LL)));
    /* the biased exponent as a double: its bits under 2^52's, minus 2^52 + 1023 */
    __m256d k = _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(bits, 52),
                                            _mm256_set1_epi64x(0x4330000000000000LL))),
        _mm256_set1_pd(4503599627370496.0 + 1023.0));
    const __m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(PZ_POW_SQRT2), _CMP_GT_OQ);
    m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
    k = _mm256_add_pd(k, _mm256_and_pd(big, _mm256_set1_pd(1.0)));
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d s = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one));
    const __m256d s2 = _mm256_mul_pd(s, s);
    __m256d p = _mm256_set1_pd(PZ_POW_LN_C[0]);
    for (int i = 1; i < 10; i++) p = _mm256_fmadd_pd(p, s2, _mm256_set1_pd(PZ_POW_LN_C[i]));
    const __m256d lnm = _mm256_mul_pd(_mm256_add_pd(s, s), p);
    return _mm256_fmadd_pd(k, _mm256_set1_pd(PZ_POW_LN2), lnm);
}

/* e^y for 4 doubles, y clamped to [-110, 100]: y = n ln2 + r, e^r by Taylor
 * to r^13, times 2^n built from its bits (n in [-159, 145]: normal). */
PZ_ALWAYS_INLINE __m256d exp4(__m256d y)
{
    y = _mm256_min_pd(_mm256_max_pd(y, _mm256_set1_pd(-110)), _mm256_set1_pd(100));
    const __m256d n = _mm256_round_pd(_mm256_mul_pd(y, _mm256_set1_pd(PZ_POW_LOG2E)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(PZ_POW_LN2_HI), y);
    r = _mm256_fnmadd_pd(n, _mm256_set1_pd(PZ_POW_LN2_LO), r);
    __m256d p = _mm256_set1_pd(PZ_POW_EXP_F[0]);
    for (int i = 1; i < 14; i++) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(PZ_POW_EXP_F[i]));
    const __m256i e = _mm256_slli_epi64(
        _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n)), _mm256_set1_epi64x(1023)), 52);
    return _mm256_mul_pd(p, _mm256_castsi256_pd(e));
}

/* |x|^e for 8 floats (x finite, non-zero; e finite), rounded once. */
PZ_ALWAYS_INLINE __m256 powabs8(__m256 x, __m256 e)
{
    const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const __m256d lo = exp4(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(e)),
                                          ln4(_mm256_cvtps_pd(_mm256_castps256_ps128(ax)))));
    const __m256d hi = exp4(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)),
                                          ln4(_mm256_cvtps_pd(_mm256_extractf128_ps(ax, 1)))));
    return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
}

#define CMP(a, b, op) _mm256_cmp_ps(a, b, op)
#define ABS(v) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v)

/* Pow of 8 lanes; *slow (all ones in a lane) the lanes powf must give. */
PZ_ALWAYS_INLINE __m256 pow8(__m256 x, __m256 e, __m256 *slow)
{
    const __m256 inf = _mm256_set1_ps(INFINITY), zero = _mm256_setzero_ps();
    const __m256 xok = _mm256_and_ps(CMP(ABS(x), inf, _CMP_LT_OQ), CMP(x, zero, _CMP_NEQ_OQ));
    const __m256 eok = CMP(ABS(e), inf, _CMP_LT_OQ);
    const __m256 eint = CMP(e, _mm256_round_ps(e, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), _CMP_EQ_OQ);
    const __m256 neg = CMP(x, zero, _CMP_LT_OQ);
    /* odd: an integer below 2^24 (from there every float is even) with bit 0 set */
    const __m256 small = CMP(ABS(e), _mm256_set1_ps(16777216.0f), _CMP_LT_OQ);
    const __m256i ei = _mm256_cvttps_epi32(_mm256_and_ps(small, e));
    const __m256 bit0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
        _mm256_and_si256(ei, _mm256_set1_epi32(1)), _mm256_set1_epi32(1)));
    const __m256 odd = _mm256_and_ps(_mm256_and_ps(eint, small), bit0);
    const __m256 ok = _mm256_and_ps(xok, eok);
    *slow = _mm256_xor_ps(ok, _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
    __m256 r = powabs8(_mm256_blendv_ps(_mm256_set1_ps(1), x, xok), _mm256_and_ps(eok, e));
    r = _mm256_blendv_ps(r, _mm256_sub_ps(zero, r), _mm256_and_ps(neg, odd));
    /* x < 0, e not an integer: powf's NaN, (x - x) / (x - x) */
    const __m256 d = _mm256_sub_ps(x, x);
    r = _mm256_blendv_ps(r, _mm256_div_ps(d, d), _mm256_andnot_ps(eint, _mm256_and_ps(neg, ok)));
    return _mm256_blendv_ps(r, _mm256_mul_ps(x, x), CMP(e, _mm256_set1_ps(2.0f), _CMP_EQ_OQ));
}

/* a - trunc(a / b) b for 4 lanes in double; *qok where |a / b| < 2^24. */
PZ_ALWAYS_INLINE __m128 rem4(__m128 a, __m128 b, __m128 *qok)
{
    const __m256d ad = _mm256_cvtps_pd(a), bd = _mm256_cvtps_pd(b);
    const __m256d q = _mm256_round_pd(_mm256_div_pd(ad, bd), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256d aq = _mm256_andnot_pd(_mm256_set1_pd(-0.0), q);
    *qok = _mm256_cvtpd_ps(_mm256_and_pd(_mm256_cmp_pd(aq, _mm256_set1_pd(16777216.0), _CMP_LT_OQ),
                                         _mm256_set1_pd(1.0)));
    return _mm256_cvtpd_ps(_mm256_fnmadd_pd(q, bd, ad));
}

/* Fmod (python 0) or Mod (1) of 8 lanes; *slow as pow8's. */
PZ_ALWAYS_INLINE __m256 mod8(__m256 a, __m256 b, int python, __m256 *slow)
{
    const __m256 inf = _mm256_set1_ps(INFINITY), zero = _mm256_setzero_ps();
    __m128 q0, q1;
    const __m128 r0 = rem4(_mm256_castps256_ps128(a), _mm256_castps256_ps128(b), &q0);
    const __m128 r1 = rem4(_mm256_extractf128_ps(a, 1), _mm256_extractf128_ps(b, 1), &q1);
    const __m256 ok = _mm256_and_ps(
        _mm256_and_ps(CMP(ABS(a), inf, _CMP_LT_OQ), CMP(ABS(b), inf, _CMP_LT_OQ)),
        _mm256_and_ps(CMP(b, zero, _CMP_NEQ_OQ), CMP(_mm256_set_m128(q1, q0), zero, _CMP_NEQ_OQ)));
    __m256 r = _mm256_set_m128(r1, r0);
    const __m256 sgn = _mm256_set1_ps(-0.0f);   /* the dividend's sign (a zero's too) */
    r = _mm256_or_ps(_mm256_andnot_ps(sgn, r), _mm256_and_ps(sgn, a));
    if (python) {   /* r != 0 with a sign other than b's: r + b */
        const __m256 fix = _mm256_and_ps(CMP(r, zero, _CMP_NEQ_OQ),
                                         _mm256_xor_ps(CMP(r, zero, _CMP_LT_OQ), CMP(b, zero, _CMP_LT_OQ)));
        r = _mm256_blendv_ps(r, _mm256_add_ps(r, b), fix);
    }
    *slow = _mm256_xor_ps(ok, _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
    return r;
}

PZ_ALWAYS_INLINE __m256 op8(pz_binary_func f, __m256 a, __m256 b, __m256 *slow)
{
    *slow = _mm256_setzero_ps();
    switch (f) {
    case PZ_BIN_ADD: return _mm256_add_ps(a, b);
    case PZ_BIN_SUB: return _mm256_sub_ps(a, b);
    case PZ_BIN_MUL: return _mm256_mul_ps(a, b);
    case PZ_BIN_DIV: return _mm256_div_ps(a, b);
    case PZ_BIN_POW: return pow8(a, b, slow);
    case PZ_BIN_MAX:
        return _mm256_blendv_ps(b, a, _mm256_or_ps(CMP(a, b, _CMP_GT_OQ), CMP(a, a, _CMP_UNORD_Q)));
    case PZ_BIN_MIN:
        return _mm256_blendv_ps(b, a, _mm256_or_ps(CMP(a, b, _CMP_LT_OQ), CMP(a, a, _CMP_UNORD_Q)));
    case PZ_BIN_PRELU:
        return _mm256_blendv_ps(a, _mm256_mul_ps(a, b), CMP(a, _mm256_setzero_ps(), _CMP_LT_OQ));
    case PZ_BIN_FMOD: return mod8(a, b, 0, slow);
    default: return mod8(a, b, 1, slow);
    }
}

/* v with lanes j of m (bits) by the twin's function of a[j sa], b[j sb]:
 * before the store, as Y may be A or B. */
static __m256 slow_lanes(pz_binary_func f, __m256 v, unsigned m, const float *a, int64_t sa,
                         const float *b, int64_t sb)
{
    float t[8];
    _mm256_storeu_ps(t, v);
    for (; m; m &= m - 1) {
        const int j = __builtin_ctz(m);
        t[j] = pz_binary_f32(f, a[j * sa], b[j * sb]);
    }
    return _mm256_loadu_ps(t);
}

/* 8 lanes (n of them: a tail when below 8) of a plain segment from a, b
 * (strides sa, sb of 1 or 0; va0, vb0 their values for a stride 0). */
PZ_ALWAYS_INLINE void row_step(pz_binary_func f, const float *a, int64_t sa, __m256 va0,
                               const float *b, int64_t sb, __m256 vb0, float *y, int64_t n)
{
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n >= 8 ? 8 : (int)n),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256 va = !sa ? va0 : n >= 8 ? _mm256_loadu_ps(a) : _mm256_maskload_ps(a, m);
    const __m256 vb = !sb ? vb0 : n >= 8 ? _mm256_loadu_ps(b) : _mm256_maskload_ps(b, m);
    __m256 slow;
    __m256 v = op8(f, va, vb, &slow);
    const unsigned s = (unsigned)_mm256_movemask_ps(_mm256_and_ps(slow, _mm256_castsi256_ps(m)));
    if (s) v = slow_lanes(f, v, s, a, sa, b, sb);
    if (n >= 8) _mm256_storeu_ps(y, v);
    else _mm256_maskstore_ps(y, m, v);
}

/* One segment of the walk (pz_f32_binary_walk), f decided outside its loop. */
static void seg_row(pz_binary_func f, const float *a, int64_t sa, const float *b, int64_t sb,
                    float *y, int64_t n)
{
    const __m256 va0 = _mm256_set1_ps(a[0]), vb0 = _mm256_set1_ps(b[0]);
#define ROW(F)                                                                         \
    for (int64_t i = 0; i < n; i += 8)                                                 \
        row_step(F, a + i * sa, sa, va0, b + i * sb, sb, vb0, y + i, n - i)
    PZ_BIN16C_SWITCH(f, ROW)
#undef ROW
}

void pz_f32_binary__avx2(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                         const float *b, float *y, int ith, int nth)
{
    pz_f32_binary_walk(seg_row, p, bc, a, b, y, ith, nth);
}

/* n vectors of one (image, block) plane (binary_avx512.c's plane, in two
 * halves h): keep0, keep1 the real channels' lanes; the slow lanes of the
 * real channels by the twin's function before the store (Y may be A or B);
 * then the clamp max(lo, v), min(hi, v) (a NaN v kept, as pz_act_f32). */
PZ_ALWAYS_INLINE void plane(pz_binary_func f, const float *a, int am, const float *b, int bm,
                            float *y, int64_t n, const __m256 keep[2], int act, __m256 lo, __m256 hi)
{
    const int64_t sa = am == 0 ? 16 : 0, sb = bm == 0 ? 16 : 0;   /* per pixel */
    const int64_t la = am != 3, lb = bm != 3;                     /* per lane */
    __m256 ca[2], cb[2];
    for (int h = 0; h < 2; h++) {
        ca[h] = am == 3 ? _mm256_set1_ps(*a) : _mm256_loadu_ps(a + 8 * h);
        cb[h] = bm == 3 ? _mm256_set1_ps(*b) : _mm256_loadu_ps(b + 8 * h);
    }
    for (int64_t i = 0; i < n; i++)
        for (int h = 0; h < 2; h++) {
            const __m256 va = sa ? _mm256_loadu_ps(a + i * sa + 8 * h) : ca[h];
            const __m256 vb = sb ? _mm256_loadu_ps(b + i * sb + 8 * h) : cb[h];
            __m256 slow;
            __m256 v = op8(f, va, vb, &slow);
            const unsigned m = (unsigned)_mm256_movemask_ps(_mm256_and_ps(slow, keep[h]));
            if (m) v = slow_lanes(f, v, m, a + i * sa + 8 * h * la, la, b + i * sb + 8 * h * lb, lb);
            if (act) v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
            _mm256_storeu_ps(y + i * 16 + 8 * h, _mm256_and_ps(keep[h], v));
        }
}

/* plane with f decided outside its loop. */
static void plane_f(pz_binary_func f, const float *a, int am, const float *b, int bm, float *y,
                    int64_t n, const __m256 keep[2], int act, __m256 lo, __m256 hi)
{
#define PLANE(F) plane(F, a, am, b, bm, y, n, keep, act, lo, hi)
    PZ_BIN16C_SWITCH(f, PLANE)
#undef PLANE
}

void pz_f32_binary16c__avx2(const pz_binary_params *p, int64_t n, int64_t c, int64_t hw,
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
    int32_t lanes[16];   /* the real channels of the last block */
    for (int l = 0; l < 16; l++) lanes[l] = l < c - (cb - 1) * 16 ? -1 : 0;
    const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    const __m256 full[2] = {all, all};
    const __m256 tail[2] = {_mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)lanes)),
                            _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(lanes + 8)))};
    const int act = p->act.kind != PZ_ACT_NONE;
    const __m256 alo = _mm256_set1_ps(p->act.kind == PZ_ACT_CLIP ? p->act.lo : 0.0f);
    const __m256 ahi = _mm256_set1_ps(p->act.kind == PZ_ACT_CLIP ? p->act.hi : INFINITY);
    for (int64_t v = lo; v < hi;) {   /* by (image, block) planes */
        const int64_t pl = v / hw, img = pl / cb, blk = pl % cb;
        const int64_t end = (pl + 1) * hw < hi ? (pl + 1) * hw : hi;
        plane_f(f, pz_bin16c_operand(a, abc, v, img, blk, cb), abc,
                pz_bin16c_operand(b, bbc, v, img, blk, cb), bbc, y + v * 16, end - v,
                blk == cb - 1 ? tail : full, act, alo, ahi);
        v = end;
    }
}
#endif
