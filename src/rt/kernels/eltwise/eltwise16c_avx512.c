/* eltwise16c_avx512.c - AVX-512 unary functions on NCHW16c buffers, beside
 * eltwise16c.c's scalar twin (the same split and layout; see fast.h).
 *
 * ReLU, Clip and LeakyRelu (the reference's bits, NaN kept), and Sigmoid,
 * Swish (x * sigmoid(alpha x)), HardSigmoid and HardSwish in ZMM
 * registers: EfficientNet's SiLU
 * and MobileNetV3's HardSwish follow most of their convs, and the scalar
 * path spends a libm expf call per element on Sigmoid. Sigmoid is
 * 1 / (1 + e^-x) with e^t as 2^n * p(r): n = round(t * log2(e)), r = t - n
 * ln 2 (ln 2 in two parts), p the degree-6 Taylor polynomial of e^r on
 * |r| <= ln2/2 (relative error under 2e-7), 2^n by scalef, which gives inf
 * where e^t overflows, and e^t taken as 0 below t = -87 (exp_flush_ps: no
 * denormal, each a microcode assist), so sigmoid is 0 or 1 there, as the
 * reference's expf gives. Within a few float ulps of the reference;
 * not bitwise. GELU (ConvNeXt's; both forms) and Erf by vmath_avx512.h's
 * gelu_ps and erf_ps (erf a rational function, within 2.5e-7 max(|x|, 1)
 * of GELU; see there). Tanh, Exp, Log, Elu, Selu, Softplus and Mish by
 * vmath_avx512.h's tanh_acc_ps, exp_full_ps, log_ps, elu_ps, selu_ps,
 * softplus_ps, mish_ps (each within a few ulps of the function in double:
 * tests/unit/rt_unary_math.c). All are the conv, GEMM and MatMul
 * epilogues' formulas (pz_act16_ps), so a fused layer has the bits of this
 * one. Every other function goes to the scalar twin. Lanes of channels >= C are written as
 * zeros, as there.
 */
#include <math.h>

#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"

void pz_f32_unary_nchw16c__avx512(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                                  const float *restrict x, float *restrict y, int ith, int nth)
{
    const pz_unary_func f = p->func;
    if (f != PZ_UN_SIGMOID && f != PZ_UN_HARD_SIGMOID && f != PZ_UN_HARD_SWISH &&
        f != PZ_UN_SWISH && f != PZ_UN_RELU && f != PZ_UN_CLIP && f != PZ_UN_LEAKY_RELU &&
        f != PZ_UN_GELU && f != PZ_UN_TANH && f != PZ_UN_EXP && f != PZ_UN_LOG && f != PZ_UN_ELU &&
        f != PZ_UN_SELU && f != PZ_UN_SOFTPLUS && f != PZ_UN_MISH && f != PZ_UN_ERF) {
        pz_f32_unary_nchw16c__scalar(p, n, c, hw, x, y, ith, nth);
        return;
    }
    int64_t cb = (c + 15) / 16, lo, hi;
    pz_split(n * cb * hw, ith, nth, &lo, &hi);
    /* lanes of real channels in the last block */
    const __mmask16 tail = (__mmask16)(c % 16 ? (1u << (c % 16)) - 1 : 0xffffu);
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    const __m512 a = _mm512_set1_ps(p->alpha), b = _mm512_set1_ps(p->beta);
    const __m512 sixth = _mm512_set1_ps(1.0f / 6.0f), half = _mm512_set1_ps(0.5f);
    const __m512 g = _mm512_set1_ps(p->gamma);
    for (int64_t v = lo; v < hi; v++) {
        __m512 t = _mm512_loadu_ps(x + v * 16), r;
        if (f == PZ_UN_RELU) {
            r = _mm512_max_ps(zero, t);   /* t when t is NaN or -0, as t < 0 ? 0 : t */
        } else if (f == PZ_UN_CLIP) {
            r = _mm512_min_ps(b, _mm512_max_ps(a, t));   /* the reference's order, NaN kept */
        } else if (f == PZ_UN_LEAKY_RELU) {
            r = _mm512_mask_mul_ps(t, _mm512_cmp_ps_mask(t, zero, _CMP_LT_OQ), t, a);
        } else if (f == PZ_UN_SIGMOID) {
            r = _mm512_div_ps(one, _mm512_add_ps(one, exp_flush_ps(_mm512_sub_ps(zero, t))));
        } else if (f == PZ_UN_SWISH) {
            __m512 e = exp_flush_ps(_mm512_sub_ps(zero, _mm512_mul_ps(a, t)));
            r = _mm512_mul_ps(t, _mm512_div_ps(one, _mm512_add_ps(one, e)));
        } else if (f == PZ_UN_GELU) {
            r = gelu_ps(t, p->alpha != 0);
        } else if (f == PZ_UN_TANH) {
            r = tanh_acc_ps(t);
        } else if (f == PZ_UN_EXP) {
            r = exp_full_ps(t);
        } else if (f == PZ_UN_LOG) {
            r = log_ps(t);
        } else if (f == PZ_UN_ELU) {
            r = elu_ps(t, a);
        } else if (f == PZ_UN_SELU) {
            r = selu_ps(t, a, g);
        } else if (f == PZ_UN_SOFTPLUS) {
            r = softplus_ps(t);
        } else if (f == PZ_UN_MISH) {
            r = mish_ps(t);
        } else if (f == PZ_UN_ERF) {
            r = erf_ps(t);
        } else if (f == PZ_UN_HARD_SIGMOID) {
            /* pz_act16_ps's order: a NaN passes, as in the reference */
            r = _mm512_min_ps(one, _mm512_max_ps(zero, _mm512_fmadd_ps(a, t, b)));
        } else {
            __m512 h = _mm512_fmadd_ps(t, sixth, half);
            r = _mm512_mul_ps(t, _mm512_min_ps(_mm512_max_ps(h, zero), one));
        }
        /* the padded lanes of the last block stay zero */
        if ((v / hw) % cb == cb - 1) r = _mm512_maskz_mov_ps(tail, r);
        _mm512_storeu_ps(y + v * 16, r);
    }
}
void pz_f32_batchnorm_nchw16c__avx512(const pz_bn_params *p, int64_t n, int64_t c, int64_t hw,
                                      const float *restrict x, const float *restrict scale,
                                      const float *restrict bias, const float *restrict mean,
                                      const float *restrict var, float *restrict y, int ith,
                                      int nth)
{
    const int64_t cb = (c + 15) / 16;
    int64_t lo, hi;
    pz_split(n * cb, ith, nth, &lo, &hi);
    const int act = p->act.kind != PZ_ACT_NONE;
    const __m512 alo = _mm512_set1_ps(p->act.kind == PZ_ACT_CLIP ? p->act.lo : 0.0f);
    const __m512 ahi = _mm512_set1_ps(p->act.kind == PZ_ACT_CLIP ? p->act.hi : INFINITY);
    const __m512 eps = _mm512_set1_ps(p->epsilon);
    for (int64_t u = lo; u < hi; u++) {
        int64_t b0 = (u % cb) * 16;
        const __mmask16 keep = (__mmask16)(c - b0 >= 16 ? 0xffffu : (1u << (c - b0)) - 1);
        /* the twin's factors (the block's real lanes; zero in the padded
         * ones), in registers: no local array (ASan's use-after-return
         * fake stack and this function's 64-byte realigned frame fault
         * together on an array's address) */
        const __m512 va = _mm512_maskz_div_ps(
            keep, _mm512_maskz_loadu_ps(keep, scale + b0),
            _mm512_sqrt_ps(_mm512_add_ps(_mm512_maskz_loadu_ps(keep, var + b0), eps)));
        const __m512 vb = _mm512_maskz_sub_ps(
            keep, _mm512_maskz_loadu_ps(keep, bias + b0),
            _mm512_mul_ps(_mm512_maskz_loadu_ps(keep, mean + b0), va));
        const float *xp = x + u * hw * 16;
        float *yp = y + u * hw * 16;
        for (int64_t i = 0; i < hw; i++) {
            __m512 v = _mm512_fmadd_ps(_mm512_loadu_ps(xp + i * 16), va, vb);
            if (act) v = _mm512_min_ps(ahi, _mm512_max_ps(alo, v));
            _mm512_storeu_ps(yp + i * 16, _mm512_maskz_mov_ps(keep, v));
        }
    }
}
#endif
