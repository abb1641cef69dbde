/* eltwise16c_avx2.c - AVX2 unary functions on NCHW16c buffers, beside
 * eltwise16c.c's scalar twin (the same split and layout; see fast.h): Tanh,
 * Exp, Log, Elu, Selu, Softplus, Mish, GELU (both forms), Erf, LeakyRelu,
 * Sigmoid, Swish, HardSigmoid and HardSwish in YMM registers, two halves a
 * pixel, by vmath_avx2.h's forms, the AVX2 conv and GEMM epilogues'
 * (pz_act8_ps), so a fused layer has the bits of this one. Each within a
 * few ulps of the function in double (tests/unit/rt_act.c; LeakyRelu the
 * reference's bits). Every other function goes to the scalar twin. Lanes
 * of channels >= C are written as zeros, as there.
 */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx2.h"

static inline __m256 unary8_ps(const pz_unary_params *p, __m256 t)
{
    switch (p->func) {
    case PZ_UN_TANH: return tanh8_acc_ps(t);
    case PZ_UN_EXP: return exp8_full_ps(t);
    case PZ_UN_LOG: return log8_ps(t);
    case PZ_UN_ELU: return elu8_ps(t, _mm256_set1_ps(p->alpha));
    case PZ_UN_SELU: return selu8_ps(t, _mm256_set1_ps(p->alpha), _mm256_set1_ps(p->gamma));
    case PZ_UN_SOFTPLUS: return softplus8_ps(t);
    case PZ_UN_GELU: return gelu8_ps(t, p->alpha != 0);
    case PZ_UN_ERF: return erf8_ps(t);
    case PZ_UN_LEAKY_RELU: return leaky_relu8_ps(t, _mm256_set1_ps(p->alpha));
    case PZ_UN_SIGMOID: return sigmoid8_ps(t);
    case PZ_UN_SWISH: return swish8_ps(t, _mm256_set1_ps(p->alpha));
    case PZ_UN_HARD_SIGMOID:
        return hard_sigmoid8_ps(t, _mm256_set1_ps(p->alpha), _mm256_set1_ps(p->beta));
    case PZ_UN_HARD_SWISH: return hard_swish8_ps(t);
    default: return mish8_ps(t);
    }
}

/* Whether unary8_ps has a form for f (else the scalar twin). */
static bool vector_form(pz_unary_func f)
{
    switch (f) {
    case PZ_UN_TANH: case PZ_UN_EXP: case PZ_UN_LOG: case PZ_UN_ELU: case PZ_UN_SELU:
    case PZ_UN_SOFTPLUS: case PZ_UN_MISH: case PZ_UN_GELU: case PZ_UN_ERF:
    case PZ_UN_LEAKY_RELU: case PZ_UN_SIGMOID: case PZ_UN_SWISH: case PZ_UN_HARD_SIGMOID:
    case PZ_UN_HARD_SWISH:
        return true;
    default: return false;
    }
}

void pz_f32_unary_nchw16c__avx2(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                                const float *restrict x, float *restrict y, int ith, int nth)
{
    if (!vector_form(p->func)) {
        pz_f32_unary_nchw16c__scalar(p, n, c, hw, x, y, ith, nth);
        return;
    }
    int64_t cb = (c + 15) / 16, lo, hi;
    pz_split(n * cb * hw, ith, nth, &lo, &hi);
    /* the lanes of real channels in the last block, as two 8-lane masks */
    int32_t lanes[16];
    for (int l = 0; l < 16; l++) lanes[l] = l < c - (cb - 1) * 16 ? -1 : 0;
    const __m256 k0 = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)lanes));
    const __m256 k1 = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(lanes + 8)));
    const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    for (int64_t v = lo; v < hi; v++) {
        const int last = (v / hw) % cb == cb - 1;
        const __m256 r0 = unary8_ps(p, _mm256_loadu_ps(x + v * 16));
        const __m256 r1 = unary8_ps(p, _mm256_loadu_ps(x + v * 16 + 8));
        _mm256_storeu_ps(y + v * 16, _mm256_and_ps(last ? k0 : all, r0));
        _mm256_storeu_ps(y + v * 16 + 8, _mm256_and_ps(last ? k1 : all, r1));
    }
}
#endif
