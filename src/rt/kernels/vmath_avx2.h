/* vmath_avx2.h - the fused epilogue activations (pz_act) on 8 floats in YMM
 * registers, for the AVX2 GEMM and conv epilogues: the AVX-512 formulas
 * (vmath_avx512.h) with 2^n built in the exponent bits (no scalef: t is
 * held in [-87, 88], where e^t is a normal float; sigmoid and tanh are
 * then within 2e-38 of their limits); GELU and erf as there, 1 / Q by a
 * division (rcp_ps has 12 bits). ELU, SELU, SOFTPLUS, MISH and the
 * UNARY layer's Exp and Log by the AVX-512 forms on 8 lanes (the AVX2
 * unary kernel, eltwise16c_avx2.c, shares them: fused = unfused bitwise).
 * Include only from a file built with AVX2 and FMA, after <immintrin.h>
 * and kernels.h. */
#ifndef PZ_VMATH_AVX2_H
#define PZ_VMATH_AVX2_H

/* e^t: 2^n p(r), r = t - n ln 2, p of degree 7 (as exp_ps); also the
 * recurrent step's (rnn_avx2.c) */
static inline __m256 exp8_ps(__m256 t)
{
    t = _mm256_min_ps(_mm256_set1_ps(88.0f), _mm256_max_ps(_mm256_set1_ps(-87.0f), t));   /* NaN passes */
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), t);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 720);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    /* 2^n: n + 127 in the exponent field (n in [-126, 127] after the hold) */
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

/* tanh_acc_ps's method (vmath_avx512.h) on 8 floats. */
static inline __m256 tanh8_acc_ps(__m256 x)
{
    static const float C[9] = {1.0f, -1.0f / 3, 2.0f / 15, -17.0f / 315, 62.0f / 2835,
                               -1382.0f / 155925, 21844.0f / 6081075, -929569.0f / 638512875,
                               6404582.0f / 10854718875.0f};
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    const __m256 ax = _mm256_andnot_ps(sign, x), x2 = _mm256_mul_ps(x, x);
    __m256 p = _mm256_set1_ps(C[8]);
    for (int i = 7; i >= 0; i--) p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(C[i]));
    const __m256 small = _mm256_mul_ps(p, x);
    const __m256 e = exp8_ps(_mm256_add_ps(ax, ax));
    const __m256 big = _mm256_fnmadd_ps(_mm256_set1_ps(2.0f),
                                        _mm256_div_ps(one, _mm256_add_ps(one, e)), one);
    const __m256 lt = _mm256_cmp_ps(ax, _mm256_set1_ps(0.5f), _CMP_LT_OQ);
    /* NaN: ax < 1/2 is false, and big's sign bit or'ed in keeps it NaN */
    const __m256 r = _mm256_or_ps(big, _mm256_and_ps(sign, x));
    return _mm256_blendv_ps(r, small, lt);
}

/* exp_full_ps (vmath_avx512.h) on 8 floats, the UNARY layer's Exp: 0 below
 * ln(FLT_MIN) = -87.3365 (no denormal), inf above ln(FLT_MAX) = 88.7228,
 * NaN passes. exp8_ps's polynomial; 2^n for n = 128 (t near 88.7) as 2 *
 * 2^127. */
static inline __m256 exp8_full_ps(__m256 x)
{
    const __m256 lo = _mm256_set1_ps(-87.3365f), hi = _mm256_set1_ps(88.7228394f);
    const __m256 t = _mm256_min_ps(hi, _mm256_max_ps(lo, x));   /* NaN passes */
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), t);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    static const float C[7] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720};
    __m256 p = _mm256_set1_ps(C[6]);
    for (int i = 5; i >= 0; i--) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(C[i]));
    const __m256 big = _mm256_cmp_ps(n, _mm256_set1_ps(127.5f), _CMP_GT_OQ);
    p = _mm256_blendv_ps(p, _mm256_add_ps(p, p), big);
    const __m256 m = _mm256_sub_ps(n, _mm256_and_ps(big, _mm256_set1_ps(1.0f)));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(m), _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
    return _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
}

/* expm1_neg_ps (vmath_avx512.h) on 8 floats: e^t - 1 for t <= 0. */
static inline __m256 expm1_8_neg_ps(__m256 t)
{
    t = _mm256_min_ps(_mm256_setzero_ps(), _mm256_max_ps(_mm256_set1_ps(-20.0f), t));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), t);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    static const float C[6] = {0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
    __m256 p = _mm256_set1_ps(C[5]);
    for (int i = 4; i >= 0; i--) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(C[i]));
    const __m256 q = _mm256_fmadd_ps(_mm256_mul_ps(r, r), p, r);
    /* 2^n, n in [-29, 0]: n + 127 in the exponent field */
    const __m256 s = _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
    return _mm256_fmadd_ps(q, s, _mm256_sub_ps(s, _mm256_set1_ps(1.0f)));
}

/* log_ps (vmath_avx512.h) on 8 floats: m and k from the bits (a denormal x
 * scaled by 2^23 first), the same polynomial and special values. */
static inline __m256 log8_ps(__m256 x)
{
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    const __m256 den = _mm256_cmp_ps(x, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
    const __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(8388608.0f)), den);
    const __m256i b = _mm256_castps_si256(xs);
    __m256 k = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(127)));
    k = _mm256_sub_ps(k, _mm256_and_ps(den, _mm256_set1_ps(23.0f)));
    __m256 m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)),
                                                   _mm256_set1_epi32(0x3f800000)));
    const __m256 hi = _mm256_cmp_ps(m, _mm256_set1_ps(1.41421356f), _CMP_GT_OQ);
    m = _mm256_blendv_ps(m, _mm256_mul_ps(m, _mm256_set1_ps(0.5f)), hi);
    k = _mm256_add_ps(k, _mm256_and_ps(hi, one));
    const __m256 f = _mm256_sub_ps(m, one), z = _mm256_mul_ps(f, f);
    static const float P[9] = {3.3333331174e-1f, -2.4999993993e-1f, 2.0000714765e-1f,
                               -1.6668057665e-1f, 1.4249322787e-1f,  -1.2420140846e-1f,
                               1.1676998740e-1f,  -1.1514610310e-1f, 7.0376836292e-2f};
    __m256 p = _mm256_set1_ps(P[8]);
    for (int i = 7; i >= 0; i--) p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(P[i]));
    __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, f), z);
    y = _mm256_fmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), y);
    y = _mm256_fnmadd_ps(_mm256_set1_ps(0.5f), z, y);
    __m256 r = _mm256_fmadd_ps(k, _mm256_set1_ps(0.693359375f), _mm256_add_ps(f, y));
    r = _mm256_blendv_ps(r, _mm256_set1_ps(-INFINITY), _mm256_cmp_ps(x, zero, _CMP_EQ_OQ));
    r = _mm256_blendv_ps(r, _mm256_set1_ps(NAN), _mm256_cmp_ps(x, zero, _CMP_LT_OQ));
    r = _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
    return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* elu_ps, selu_ps, softplus_ps, mish_ps (vmath_avx512.h) on 8 floats. */
static inline __m256 elu8_ps(__m256 x, __m256 alpha)
{
    return _mm256_blendv_ps(x, _mm256_mul_ps(alpha, expm1_8_neg_ps(x)),
                            _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
}

static inline __m256 selu8_ps(__m256 x, __m256 alpha, __m256 gamma)
{
    const __m256 e = _mm256_blendv_ps(x, _mm256_mul_ps(alpha, expm1_8_neg_ps(x)),
                                      _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OQ));
    return _mm256_mul_ps(gamma, e);
}

static inline __m256 softplus8_ps(__m256 x)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 u = exp8_full_ps(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)));   /* e^-|x| */
    const __m256 w = _mm256_add_ps(one, u), c = _mm256_sub_ps(u, _mm256_sub_ps(w, one));
    const __m256 l = _mm256_add_ps(log8_ps(w), _mm256_div_ps(c, w));   /* ln(1 + u) */
    return _mm256_add_ps(_mm256_max_ps(_mm256_setzero_ps(), x), l);
}

static inline __m256 mish8_ps(__m256 x)
{
    const __m256 two = _mm256_set1_ps(2.0f), top = _mm256_set1_ps(15.0f);
    const __m256 u = exp8_full_ps(_mm256_min_ps(top, x));
    const __m256 n = _mm256_mul_ps(u, _mm256_add_ps(u, two));
    __m256 r = _mm256_div_ps(_mm256_mul_ps(x, n), _mm256_add_ps(n, two));
    r = _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, top, _CMP_GT_OQ));
    const __m256 low = _mm256_cmp_ps(x, _mm256_set1_ps(-80.0f), _CMP_LT_OQ);
    if (_mm256_testz_ps(low, low)) return r;
    /* x e^x as (x e^(x + 16 ln 2)) 2^-16, normal down to -91.85677 */
    const __m256 lim = _mm256_set1_ps(-91.85677f), xl = _mm256_max_ps(lim, x);
    const __m256 e = exp8_full_ps(_mm256_add_ps(xl, _mm256_set1_ps(11.0903549f)));
    __m256 rl = _mm256_mul_ps(_mm256_mul_ps(xl, e), _mm256_set1_ps(1.0f / 65536));
    rl = _mm256_blendv_ps(rl, _mm256_mul_ps(x, _mm256_setzero_ps()), _mm256_cmp_ps(x, lim, _CMP_LT_OQ));
    return _mm256_blendv_ps(r, rl, low);
}

/* erf_ps's method (vmath_avx512.h) on 8 floats, u P(u^2) / Q(u^2) by a
 * division. NaN passes; +-inf gives +-1. */
static inline __m256 erf8_ps(__m256 x)
{
    const __m256 u = _mm256_min_ps(_mm256_set1_ps(4.0f), _mm256_max_ps(_mm256_set1_ps(-4.0f), x));
    const __m256 u2 = _mm256_fmadd_ps(u, u, _mm256_set1_ps(0x1p-100f));   /* no denormal */
    static const float P[7] = PZ_ERF_P, Q[5] = PZ_ERF_Q;
    __m256 p = _mm256_set1_ps(P[0]), q = _mm256_set1_ps(Q[0]);
    for (int i = 1; i < 7; i++) p = _mm256_fmadd_ps(p, u2, _mm256_set1_ps(P[i]));
    for (int i = 1; i < 5; i++) q = _mm256_fmadd_ps(q, u2, _mm256_set1_ps(Q[i]));
    return _mm256_div_ps(_mm256_mul_ps(u, p), q);
}

/* gelu_ps (vmath_avx512.h) on 8 floats: the erf form, or tanh's
 * (tanh_form != 0); NaN passes, +inf gives +inf, -inf NaN. */
static inline __m256 gelu8_ps(__m256 x, int tanh_form)
{
    const __m256 one = _mm256_set1_ps(1.0f), hx = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
    if (!tanh_form)
        return _mm256_fmadd_ps(hx, erf8_ps(_mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f))), hx);
    const __m256 x2 = _mm256_fmadd_ps(x, x, _mm256_set1_ps(0x1p-100f));
    const __m256 u = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(-1.5957691216f), x),
                                   _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), x2, one));
    const __m256 w = exp8_ps(_mm256_max_ps(_mm256_set1_ps(-86.5f), _mm256_or_ps(u, _mm256_set1_ps(-0.0f))));
    const __m256 upos = _mm256_cmp_ps(u, _mm256_setzero_ps(), _CMP_GT_OQ);
    const __m256 live = _mm256_cmp_ps(u, _mm256_set1_ps(86.5f), _CMP_LE_OQ);
    const __m256 s = _mm256_div_ps(_mm256_blendv_ps(one, w, upos), _mm256_add_ps(one, w));
    return _mm256_mul_ps(x, _mm256_and_ps(live, s));
}

/* LeakyRelu, Sigmoid, Swish (x sigmoid(alpha x)), HardSigmoid (clamp(alpha x + beta,
 * 0, 1), NaN kept) and HardSwish (x clamp(x/6 + 1/2, 0, 1)): pz_act16_ps's
 * forms (vmath_avx512.h) on 8 floats, e^t by exp8_ps; the epilogues' and
 * the AVX2 UNARY layer's (eltwise16c_avx2.c): fused = unfused bitwise. */
static inline __m256 leaky_relu8_ps(__m256 v, __m256 alpha)   /* v < 0 ? alpha v : v */
{
    return _mm256_blendv_ps(v, _mm256_mul_ps(v, alpha), _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
}

static inline __m256 sigmoid8_ps(__m256 v)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    return _mm256_div_ps(one, _mm256_add_ps(one, exp8_ps(_mm256_sub_ps(_mm256_setzero_ps(), v))));
}

static inline __m256 swish8_ps(__m256 v, __m256 alpha)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 e = exp8_ps(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_mul_ps(alpha, v)));
    return _mm256_mul_ps(v, _mm256_div_ps(one, _mm256_add_ps(one, e)));
}

static inline __m256 hard_sigmoid8_ps(__m256 v, __m256 alpha, __m256 beta)
{
    /* max and min return their second operand on a NaN: it passes */
    return _mm256_min_ps(_mm256_set1_ps(1.0f),
                         _mm256_max_ps(_mm256_setzero_ps(), _mm256_fmadd_ps(alpha, v, beta)));
}

static inline __m256 hard_swish8_ps(__m256 v)
{
    const __m256 h = _mm256_fmadd_ps(v, _mm256_set1_ps(1.0f / 6.0f), _mm256_set1_ps(0.5f));
    return _mm256_mul_ps(v, _mm256_min_ps(_mm256_max_ps(h, _mm256_setzero_ps()), _mm256_set1_ps(1.0f)));
}

/* pz_select16_ps's SELECT (vmath_avx512.h) on 8 floats. */
static inline __m256 pz_select8_ps(const pz_act *a, __m256 v)
{
    const __m256 t = _mm256_set1_ps(a->t), lo = _mm256_set1_ps(a->lo), hi = _mm256_set1_ps(a->hi);
    __m256 m;
    switch (a->cmp) {
    case PZ_CMP_LT: m = _mm256_cmp_ps(v, t, _CMP_LT_OQ); break;
    case PZ_CMP_LE: m = _mm256_cmp_ps(v, t, _CMP_LE_OQ); break;
    case PZ_CMP_GT: m = _mm256_cmp_ps(v, t, _CMP_GT_OQ); break;
    case PZ_CMP_GE: m = _mm256_cmp_ps(v, t, _CMP_GE_OQ); break;
    default: m = _mm256_cmp_ps(v, t, _CMP_EQ_OQ); break;
    }
    const __m256 va = a->sel & 1 ? lo : _mm256_mul_ps(lo, v);
    const __m256 vb = a->sel & 2 ? hi : _mm256_mul_ps(hi, v);
    return _mm256_blendv_ps(vb, va, m);
}

static inline __m256 pz_act8_ps(const pz_act *a, __m256 v)
{
    const __m256 zero = _mm256_setzero_ps();
    switch (a->kind) {
    case PZ_ACT_RELU: return _mm256_max_ps(zero, v);
    case PZ_ACT_CLIP: return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(a->lo)), _mm256_set1_ps(a->hi));
    case PZ_ACT_LEAKY_RELU: return leaky_relu8_ps(v, _mm256_set1_ps(a->lo));
    case PZ_ACT_SIGMOID: return sigmoid8_ps(v);
    case PZ_ACT_SWISH: return swish8_ps(v, _mm256_set1_ps(a->lo));
    case PZ_ACT_HARD_SIGMOID: return hard_sigmoid8_ps(v, _mm256_set1_ps(a->lo), _mm256_set1_ps(a->hi));
    case PZ_ACT_HARD_SWISH: return hard_swish8_ps(v);
    case PZ_ACT_TANH: return tanh8_acc_ps(v);
    case PZ_ACT_SELECT: return pz_select8_ps(a, v);
    case PZ_ACT_ELU: return elu8_ps(v, _mm256_set1_ps(a->lo));
    case PZ_ACT_SELU: return selu8_ps(v, _mm256_set1_ps(a->lo), _mm256_set1_ps(a->hi));
    case PZ_ACT_SOFTPLUS: return softplus8_ps(v);
    case PZ_ACT_MISH: return mish8_ps(v);
    case PZ_ACT_GELU: return gelu8_ps(v, a->lo != 0);   /* the AVX2 UNARY layer's */
    case PZ_ACT_NONE: return v;
    default: {   /* the scalar formula, lane by lane */
        float t[8];
        _mm256_storeu_ps(t, v);
        for (int l = 0; l < 8; l++) t[l] = pz_act_f32(a, t[l]);
        return _mm256_loadu_ps(t);
    }
    }
}

#endif
