/* qgemm_dyn_avx512.c - the AVX-512 parts of the dynamic int8 GEMM
 * (qgemm_dyn.h): a row's largest magnitude, and the epilogue y = act((y *
 * sa) + beta C) on a row. The scalar twins are in qgemm_dyn.c; the same
 * bits but for the activations pz_act16_ps computes by a vector formula
 * (GELU, SIGMOID, ...: the fp32 GEMM's and the UNARY layer's) where the
 * twin calls libm. */
#include "rt/kernels/quant/qdyn_out.h"
#include "rt/kernels/quant/qgemm_dyn.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"

uint32_t pz_qdyn_absmax__avx512(const float *a, int64_t n)
{
    /* on the bits: magnitudes order as their integers */
    const __m512i mag = _mm512_set1_epi32(0x7fffffff);
    __m512i m0 = _mm512_setzero_si512(), m1 = m0;
    int64_t k = 0;
    for (; k + 32 <= n; k += 32) {
        m0 = _mm512_max_epu32(m0, _mm512_and_si512(_mm512_loadu_si512(a + k), mag));
        m1 = _mm512_max_epu32(m1, _mm512_and_si512(_mm512_loadu_si512(a + k + 16), mag));
    }
    for (; k < n; k += 16) {
        const __mmask16 mk = (__mmask16)(n - k >= 16 ? 0xffff : (1u << (n - k)) - 1);
        m0 = _mm512_max_epu32(m0, _mm512_and_si512(_mm512_maskz_loadu_epi32(mk, a + k), mag));
    }
    return (uint32_t)_mm512_reduce_max_epu32(_mm512_max_epu32(m0, m1));
}

void pz_qdyn_epilogue__avx512(const pz_gemm_desc *g, float *yr, int64_t i, float s, int64_t n0,
                              int64_t n1)
{
    const __m512 sv = _mm512_set1_ps(s), bv = _mm512_set1_ps(g->beta);
    for (int64_t n = n0; n < n1; n += 16) {
        const __mmask16 mk = (__mmask16)(n1 - n >= 16 ? 0xffff : (1u << (n1 - n)) - 1);
        __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(mk, yr + n), sv);
        if (g->c) {
            const float *c = g->c + i * g->csm;
            __m512 cv;
            if (g->csn == 1) {
                cv = _mm512_maskz_loadu_ps(mk, c + n);
            } else if (g->csn == 0) {
                cv = _mm512_set1_ps(c[0]);
            } else {
                float t[16] = {0};
                for (int l = 0; l < 16; l++)
                    if (mk >> l & 1) t[l] = c[(n + l) * g->csn];
                cv = _mm512_loadu_ps(t);
            }
            v = _mm512_add_ps(v, _mm512_mul_ps(bv, cv));   /* two roundings, as the twin */
        }
        if (g->z) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, g->z + i * g->ldz + n));
        /* max and min return their second operand on a NaN: v, as the twin */
        if (g->act.kind == PZ_ACT_RELU)
            v = _mm512_max_ps(_mm512_setzero_ps(), v);
        else if (g->act.kind == PZ_ACT_CLIP)
            v = _mm512_min_ps(_mm512_set1_ps(g->act.hi),
                              _mm512_max_ps(_mm512_set1_ps(g->act.lo), v));
        else if (g->act.kind == PZ_ACT_PRELU)
            v = pz_prelu16_ps(&g->act, v, n, mk);
        else if (g->act.kind != PZ_ACT_NONE)
            v = pz_act16_ps(&g->act, v);
        _mm512_mask_storeu_ps(yr + n, mk, v);
    }
}
void pz_qdyn_out_row__avx512(const pz_qdyn_out *o, int64_t m, const int32_t *acc, float *y,
                             int64_t n)
{
    const __m512 sv = _mm512_set1_ps(o->xs * o->ws[o->ws_per ? m : 0]);
    const __m512 bv = _mm512_set1_ps(o->b ? o->b[o->b_per ? m : 0] : 0.0f);
    const int relu = o->act.kind == PZ_ACT_RELU;
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 mk = (__mmask16)(n - i >= 16 ? 0xffff : (1u << (n - i)) - 1);
        __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(mk, acc + i)), sv);
        if (o->b) v = _mm512_add_ps(v, bv);
        /* max returns its second operand on a NaN or two zeros: v, as the twin */
        if (relu) v = _mm512_max_ps(_mm512_setzero_ps(), v);
        _mm512_mask_storeu_ps(y + i, mk, v);
    }
}
#endif
