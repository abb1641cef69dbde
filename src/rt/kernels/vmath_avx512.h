/* vmath_avx512.h - e^x, ln x, tanh, erf, GELU, ELU, SELU, Softplus and
 * Mish on 16 floats in ZMM registers, shared by the unary kernel
 * (eltwise16c_avx512.c: see its top for the method and the error), the
 * GEMM epilogues (gemm_epilogue_avx512.h: ConvNeXt's MatMul + GELU) and the
 * conv epilogues (pz_act16_ps, act16c_avx512.c).
 * Include only from a file built with AVX-512 (the Makefile's ISA_avx512
 * flags), after <immintrin.h>. */
#ifndef PZ_VMATH_AVX512_H
#define PZ_VMATH_AVX512_H

static inline __m512 exp_ps(__m512 t)
{
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), t);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.0f / 720);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

/* e^d for d <= 0, and 0 where d < -87: there e^d is below float's normal
 * range, and each vector with a denormal result would cost a microcode
 * assist (softmax's masked and padded keys, -inf - max). NaN gives 0. */
static inline __m512 exp_neg_ps(__m512 d)
{
    const __m512 lo = _mm512_set1_ps(-87.0f);
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(d, lo, _CMP_GE_OQ),
                               exp_ps(_mm512_max_ps(d, lo)));
}

/* e^t, and 0 where t < -87 (below float's normal range: a denormal costs
 * a microcode assist a vector), for sigmoid and swish, which add it to 1:
 * 1 + e^t is 1 there either way, so the bits do not change. NaN passes. */
static inline __m512 exp_flush_ps(__m512 t)
{
    const __m512 lo = _mm512_set1_ps(-87.0f);
    /* max(lo, t) is t for a NaN t (the second operand); t held at 89 (e^89
     * is inf by scalef): exp_ps of a larger t forms t - n ln 2 from two
     * huge terms (inf - inf: NaN for +inf), and sigmoid(-inf) must be 0 */
    return _mm512_mask_mov_ps(exp_ps(_mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(lo, t))),
                              _mm512_cmp_ps_mask(t, lo, _CMP_LT_OQ), _mm512_setzero_ps());
}

/* e^t for any t, the UNARY layer's Exp: inf above 88.72 (scalef), and 0
 * below ln(FLT_MIN) = -87.3365, where e^t is a denormal (a microcode assist
 * a vector; absolute error under 1.2e-38), no denormal formed. NaN passes. */
static inline __m512 exp_full_ps(__m512 t)
{
    const __m512 lo = _mm512_set1_ps(-87.3365f);
    return _mm512_mask_mov_ps(exp_ps(_mm512_min_ps(_mm512_set1_ps(89.0f), _mm512_max_ps(lo, t))),
                              _mm512_cmp_ps_mask(t, lo, _CMP_LT_OQ), _mm512_setzero_ps());
}

/* e^t - 1 for t <= 0 (ELU, SELU; a t above 0 gives 0): t = n ln 2 + r,
 * e^t - 1 = 2^n q + (2^n - 1) with q = e^r - 1 = r + r^2 P(r) (degree 7:
 * no cancellation for small t, where e^t - 1 would lose it all), one
 * rounding by the FMA. t held at -20 (e^-20 - 1 is -1 in float): no
 * denormal. NaN passes. */
static inline __m512 expm1_neg_ps(__m512 t)
{
    t = _mm512_min_ps(_mm512_setzero_ps(), _mm512_max_ps(_mm512_set1_ps(-20.0f), t));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), t);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    static const float C[6] = {0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
    __m512 p = _mm512_set1_ps(C[5]);
    for (int i = 4; i >= 0; i--) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(C[i]));
    const __m512 q = _mm512_fmadd_ps(_mm512_mul_ps(r, r), p, r);
    const __m512 s = _mm512_scalef_ps(_mm512_set1_ps(1.0f), n);   /* 2^n, n in [-29, 0] */
    return _mm512_fmadd_ps(q, s, _mm512_sub_ps(s, _mm512_set1_ps(1.0f)));
}

/* ln x of 16 floats: x = m 2^k, m in [sqrt(1/2), sqrt 2) (getmant and
 * getexp: exact, a denormal x included), ln m = f - f^2/2 + f^3 P(f), f =
 * m - 1 exact (Cephes' logf polynomial), k ln 2 in two parts. ln 0 = -inf,
 * ln of x < 0 is NaN, ln inf = inf; NaN passes. */
static inline __m512 log_ps(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_zero);
    __m512 k = _mm512_getexp_ps(x);
    const __mmask16 hi = _mm512_cmp_ps_mask(m, _mm512_set1_ps(1.41421356f), _CMP_GT_OQ);
    m = _mm512_mask_mul_ps(m, hi, m, _mm512_set1_ps(0.5f));
    k = _mm512_mask_add_ps(k, hi, k, one);
    const __m512 f = _mm512_sub_ps(m, one), z = _mm512_mul_ps(f, f);
    static const float P[9] = {3.3333331174e-1f, -2.4999993993e-1f, 2.0000714765e-1f,
                               -1.6668057665e-1f, 1.4249322787e-1f,  -1.2420140846e-1f,
                               1.1676998740e-1f,  -1.1514610310e-1f, 7.0376836292e-2f};
    __m512 p = _mm512_set1_ps(P[8]);
    for (int i = 7; i >= 0; i--) p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(P[i]));
    __m512 y = _mm512_mul_ps(_mm512_mul_ps(p, f), z);
    y = _mm512_fmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), y);
    y = _mm512_fnmadd_ps(_mm512_set1_ps(0.5f), z, y);
    __m512 r = _mm512_fmadd_ps(k, _mm512_set1_ps(0.693359375f), _mm512_add_ps(f, y));
    const __m512 zero = _mm512_setzero_ps();
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, zero, _CMP_EQ_OQ), _mm512_set1_ps(-INFINITY));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ), _mm512_set1_ps(NAN));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ), x);
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

/* ln(1 + u) for u in [0, 1] (softplus's e^-|x|): w = 1 + u rounded, ln w +
 * (u - (w - 1)) / w, the rounding error of 1 + u (exact here) put back:
 * u itself for a u under 2^-24. */
static inline __m512 log1p_ps(__m512 u)
{
    const __m512 w = _mm512_add_ps(_mm512_set1_ps(1.0f), u);
    const __m512 c = _mm512_sub_ps(u, _mm512_sub_ps(w, _mm512_set1_ps(1.0f)));
    return _mm512_add_ps(log_ps(w), _mm512_div_ps(c, w));
}

/* ELU: x < 0 ? alpha (e^x - 1) : x (-0 and NaN stay). */
static inline __m512 elu_ps(__m512 x, __m512 alpha)
{
    return _mm512_mask_mul_ps(x, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), alpha,
                              expm1_neg_ps(x));
}

/* SELU: gamma (x <= 0 ? alpha (e^x - 1) : x), by expm1 (the reference's
 * alpha e^x - alpha in float loses the digits of a small x). */
static inline __m512 selu_ps(__m512 x, __m512 alpha, __m512 gamma)
{
    const __m512 e = _mm512_mask_mul_ps(x, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LE_OQ),
                                        alpha, expm1_neg_ps(x));
    return _mm512_mul_ps(gamma, e);
}

/* Softplus: max(x, 0) + ln(1 + e^-|x|) (e^-|x| in [0, 1]: 0 below
 * -87.3, so the result for x under -87.3 is 0, no denormal). inf, -inf
 * give inf, 0; NaN passes. */
static inline __m512 softplus_ps(__m512 x)
{
    const __m512 u = exp_full_ps(_mm512_or_ps(x, _mm512_set1_ps(-0.0f)));   /* e^-|x| */
    return _mm512_add_ps(_mm512_max_ps(_mm512_setzero_ps(), x), log1p_ps(u));
}

/* Mish: x tanh(ln(1 + e^x)) = x n / (n + 2), n = e^x (e^x + 2) (tanh(ln
 * w) = (w^2 - 1) / (w^2 + 1), w = 1 + e^x): no log, no cancellation. x
 * above 15: x (tanh(15) rounds to 1). x below -80: x e^x (n / (n + 2) is
 * e^x in float there), as (x e^(x + 16 ln 2)) 2^-16, which is normal down
 * to x = -91.85677, where x e^x reaches FLT_MIN (e^x alone is a denormal from
 * -87.3); below that -0, no denormal formed. -inf gives NaN (-inf 0), as
 * the reference; NaN passes. */
static inline __m512 mish_ps(__m512 x)
{
    const __m512 two = _mm512_set1_ps(2.0f), top = _mm512_set1_ps(15.0f);
    const __m512 u = exp_full_ps(_mm512_min_ps(top, x));
    const __m512 n = _mm512_mul_ps(u, _mm512_add_ps(u, two));
    __m512 r = _mm512_div_ps(_mm512_mul_ps(x, n), _mm512_add_ps(n, two));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, top, _CMP_GT_OQ), x);
    const __mmask16 low = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-80.0f), _CMP_LT_OQ);
    if (!low) return r;
    const __m512 lim = _mm512_set1_ps(-91.85677f), xl = _mm512_max_ps(lim, x);
    const __m512 e = exp_ps(_mm512_add_ps(xl, _mm512_set1_ps(11.0903549f)));   /* 16 ln 2 */
    __m512 rl = _mm512_scalef_ps(_mm512_mul_ps(xl, e), _mm512_set1_ps(-16.0f));
    rl = _mm512_mask_mul_ps(rl, _mm512_cmp_ps_mask(x, lim, _CMP_LT_OQ), x, _mm512_setzero_ps());
    return _mm512_mask_mov_ps(r, low, rl);
}

/* erf of 16 floats (the UNARY layer's Erf, and GELU's erf form below):
 * u P(u^2) / Q(u^2), u held in [-4, 4] (erf(4) is 1 - 1.5e-8: 1 in float),
 * P of degree 6 and Q of degree 4 in u^2 (Eigen's and XLA's float erf: at
 * most 6.5e-8 from erf in exact arithmetic), 1 / Q by rcp14 and one Newton
 * step (a ZMM division is one per 16 cycles). u^2 is taken as u u + 2^-100
 * (one FMA): never a denormal (each would cost a microcode assist), and
 * u^2 itself wherever it changes P or Q. NaN passes (max and min return
 * their second operand on a NaN); +-inf gives +-1. */
static inline __m512 erf_ps(__m512 x)
{
    const __m512 u = _mm512_min_ps(_mm512_set1_ps(4.0f), _mm512_max_ps(_mm512_set1_ps(-4.0f), x));
    const __m512 u2 = _mm512_fmadd_ps(u, u, _mm512_set1_ps(0x1p-100f));
    static const float P[7] = PZ_ERF_P, Q[5] = PZ_ERF_Q;
    __m512 p = _mm512_set1_ps(P[0]), q = _mm512_set1_ps(Q[0]);
    for (int i = 1; i < 7; i++) p = _mm512_fmadd_ps(p, u2, _mm512_set1_ps(P[i]));
    for (int i = 1; i < 5; i++) q = _mm512_fmadd_ps(q, u2, _mm512_set1_ps(Q[i]));
    __m512 r = _mm512_rcp14_ps(q);   /* q in [-2.4, -0.014]: no zero, no denormal */
    r = _mm512_fmadd_ps(r, _mm512_fnmadd_ps(q, r, _mm512_set1_ps(1.0f)), r);
    return _mm512_mul_ps(_mm512_mul_ps(u, p), r);
}

/* GELU of 16 floats, the erf form: x/2 + x/2 erf(x / sqrt 2) (erf_ps), one
 * FMA. About 22 vector ops. Error: erf_ps's absolute error, so within
 * 2.5e-7 * max(|x|, 1) of GELU(x) (tests/unit/rt_act.c, rt_fast.c sweep
 * it); for x below -5.7 the result is 0 or of magnitude under that bound.
 * NaN passes; +inf gives +inf, -inf NaN, as x/2 (1 + erf(u)) does (and
 * PyTorch's gelu). */
static inline __m512 gelu_erf_ps(__m512 x)
{
    const __m512 hx = _mm512_mul_ps(x, _mm512_set1_ps(0.5f));
    return _mm512_fmadd_ps(hx, erf_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f))), hx);
}

/* GELU of 16 floats, the tanh form: x/2 (1 + tanh(v)), v = sqrt(2/pi) (x +
 * 0.044715 x^3), as x / (1 + e^u), u = -2v = -2 sqrt(2/pi) x (1 + 0.044715
 * x^2) (x^2 + 2^-100: no denormal), as x w / (1 + w) (u > 0) or x / (1 + w)
 * (u <= 0), w = e^-|u| held normal (e^t at t >= -86.5); 0 (x * 0: NaN for
 * -inf) where u > 86.5. NaN passes; +inf gives +inf. */
static inline __m512 gelu_tanh_ps(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 x2 = _mm512_fmadd_ps(x, x, _mm512_set1_ps(0x1p-100f));
    const __m512 u = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-1.5957691216f), x),   /* -2 sqrt(2/pi) */
                                   _mm512_fmadd_ps(_mm512_set1_ps(0.044715f), x2, one));
    const __m512 w = exp_ps(_mm512_max_ps(_mm512_set1_ps(-86.5f), _mm512_or_ps(u, _mm512_set1_ps(-0.0f))));
    const __mmask16 upos = _mm512_cmp_ps_mask(u, _mm512_setzero_ps(), _CMP_GT_OQ);
    const __mmask16 live = _mm512_cmp_ps_mask(u, _mm512_set1_ps(86.5f), _CMP_LE_OQ);
    const __m512 s = _mm512_div_ps(_mm512_mask_mov_ps(one, upos, w), _mm512_add_ps(one, w));
    return _mm512_mul_ps(x, _mm512_maskz_mov_ps(live, s));
}

/* GELU of 16 floats: the erf form, or tanh's (tanh_form != 0). The one
 * vector GELU of the UNARY layer (eltwise16c_avx512.c) and of every
 * epilogue (pz_act16_ps: conv, GEMM, MatMul; pz_act.lo 1 the tanh form),
 * so a fused layer gives the unfused layer's bits (vmath_avx2.h gelu8_ps:
 * the same at AVX2). */
static inline __m512 gelu_ps(__m512 x, int tanh_form)
{
    return tanh_form ? gelu_tanh_ps(x) : gelu_erf_ps(x);
}

/* tanh of 16 floats: |x| < 1/2 by its Taylor series to x^17 (the next term
 * is under 1e-9 of it), else 1 - 2 / (1 + e^(2|x|)) (at least 0.46, so the
 * subtraction loses under 1.2x of e^t's error), the sign put back; +-1 for
 * +-inf. NaN passes. */
static inline __m512 tanh_acc_ps(__m512 x)
{
    static const float C[9] = {1.0f, -1.0f / 3, 2.0f / 15, -17.0f / 315, 62.0f / 2835,
                               -1382.0f / 155925, 21844.0f / 6081075, -929569.0f / 638512875,
                               6404582.0f / 10854718875.0f};
    const __m512 sign = _mm512_set1_ps(-0.0f), one = _mm512_set1_ps(1.0f);
    const __m512 ax = _mm512_andnot_ps(sign, x), x2 = _mm512_mul_ps(x, x);
    __m512 p = _mm512_set1_ps(C[8]);
    for (int i = 7; i >= 0; i--) p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(C[i]));
    const __m512 small = _mm512_mul_ps(p, x);
    /* 2|x| held at 20 (NaN passes): tanh(10) rounds to 1, and e^(2|x|)
     * for |x| above 44 would be inf (then NaN for an infinite x) */
    const __m512 e = exp_ps(_mm512_min_ps(_mm512_set1_ps(20.0f), _mm512_add_ps(ax, ax)));
    const __m512 big = _mm512_fnmadd_ps(_mm512_set1_ps(2.0f),
                                        _mm512_div_ps(one, _mm512_add_ps(one, e)), one);
    const __mmask16 lt = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.5f), _CMP_LT_OQ);
    const __m512 r = _mm512_or_ps(big, _mm512_and_ps(sign, x));   /* copysign(big, x) */
    return _mm512_mask_mov_ps(r, lt, small);
}

/* PRELU on the 16 columns from col of a row (GEMM epilogues: slope per
 * output column): v < 0 ? slope[col + l] v : v; the slopes loaded under mk
 * (the valid columns), none read past them. */
static inline __m512 pz_prelu16_ps(const pz_act *a, __m512 v, int64_t col, __mmask16 mk)
{
    const __m512 s = _mm512_maskz_loadu_ps(mk, a->slope + col);
    return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v, s);
}

/* SELECT (pz_act) of 16 floats: the comparison ordered and quiet (NaN
 * false, as COMPARE's), each branch lo * v or the constant, blended. */
static inline __m512 pz_select16_ps(const pz_act *a, __m512 v)
{
    const __m512 t = _mm512_set1_ps(a->t), lo = _mm512_set1_ps(a->lo), hi = _mm512_set1_ps(a->hi);
    __mmask16 m;
    switch (a->cmp) {
    case PZ_CMP_LT: m = _mm512_cmp_ps_mask(v, t, _CMP_LT_OQ); break;
    case PZ_CMP_LE: m = _mm512_cmp_ps_mask(v, t, _CMP_LE_OQ); break;
    case PZ_CMP_GT: m = _mm512_cmp_ps_mask(v, t, _CMP_GT_OQ); break;
    case PZ_CMP_GE: m = _mm512_cmp_ps_mask(v, t, _CMP_GE_OQ); break;
    default: m = _mm512_cmp_ps_mask(v, t, _CMP_EQ_OQ); break;
    }
    const __m512 va = a->sel & 1 ? lo : _mm512_mul_ps(lo, v);
    const __m512 vb = a->sel & 2 ? hi : _mm512_mul_ps(hi, v);
    return _mm512_mask_blend_ps(m, vb, va);
}

/* A fused epilogue activation (pz_act) of 16 floats: the formulas of the
 * unary kernel (eltwise16c_avx512.c), so a fused layer gives the unfused
 * layer's bits (GELU: gelu_ps, lo 1 the tanh form). */
static inline __m512 pz_act16_ps(const pz_act *a, __m512 v)
{
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    switch (a->kind) {
    case PZ_ACT_RELU: return _mm512_max_ps(zero, v);
    case PZ_ACT_CLIP: return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(a->lo)), _mm512_set1_ps(a->hi));
    case PZ_ACT_GELU: return gelu_ps(v, a->lo != 0);
    case PZ_ACT_LEAKY_RELU:
        return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, _mm512_set1_ps(a->lo));
    case PZ_ACT_SIGMOID:
        return _mm512_div_ps(one, _mm512_add_ps(one, exp_flush_ps(_mm512_sub_ps(zero, v))));
    case PZ_ACT_SWISH: {
        __m512 e = exp_flush_ps(_mm512_sub_ps(zero, _mm512_mul_ps(_mm512_set1_ps(a->lo), v)));
        return _mm512_mul_ps(v, _mm512_div_ps(one, _mm512_add_ps(one, e)));
    }
    case PZ_ACT_HARD_SIGMOID:
        /* max, min return their second operand on a NaN: it passes, as in the reference */
        return _mm512_min_ps(one, _mm512_max_ps(zero, _mm512_fmadd_ps(_mm512_set1_ps(a->lo), v,
                                                                        _mm512_set1_ps(a->hi))));
    case PZ_ACT_HARD_SWISH: {
        __m512 h = _mm512_fmadd_ps(v, _mm512_set1_ps(1.0f / 6.0f), _mm512_set1_ps(0.5f));
        return _mm512_mul_ps(v, _mm512_min_ps(_mm512_max_ps(h, zero), one));
    }
    case PZ_ACT_TANH: return tanh_acc_ps(v);
    case PZ_ACT_SELECT: return pz_select16_ps(a, v);
    case PZ_ACT_ELU: return elu_ps(v, _mm512_set1_ps(a->lo));
    case PZ_ACT_SELU: return selu_ps(v, _mm512_set1_ps(a->lo), _mm512_set1_ps(a->hi));
    case PZ_ACT_SOFTPLUS: return softplus_ps(v);
    case PZ_ACT_MISH: return mish_ps(v);
    default: return v;
    }
}

#endif
