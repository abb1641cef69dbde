/* gemm_epilogue_avx512.h - the GEMM epilogue on 16 columns in a ZMM, shared
 * by the fp32 (gemm_avx512.c) and bf16 (gemm_bf16_avx512bf16.c) GEMMs:
 * Y[m, col..col+16) under mk = act(v + beta C + Z) (PRELU: slope[col + l]). Include after <immintrin.h>
 * and vmath_avx512.h, from a file built with AVX-512. */
#ifndef PZ_GEMM_EPILOGUE_AVX512_H
#define PZ_GEMM_EPILOGUE_AVX512_H

PZ_ALWAYS_INLINE void pz_gemm_epilogue16(const pz_gemm_desc *g, __m512 v, int64_t m,
                                         int64_t col, __mmask16 mk, float *y)
{
    if (g->c) {
        const float *c = g->c + m * g->csm;
        __m512 cv;
        if (g->csn == 1) {
            cv = _mm512_maskz_loadu_ps(mk, c + col);
        } else if (g->csn == 0) {
            cv = _mm512_set1_ps(c[0]);
        } else {
            float t[16] = {0};
            for (int l = 0; l < 16; l++)
                if (mk >> l & 1) t[l] = c[(col + l) * g->csn];
            cv = _mm512_loadu_ps(t);
        }
        v = _mm512_fmadd_ps(_mm512_set1_ps(g->beta), cv, v);
    }
    if (g->z) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mk, g->z + m * g->ldz + col));
    if (g->act.kind == PZ_ACT_RELU) v = _mm512_max_ps(v, _mm512_setzero_ps());
    else if (g->act.kind == PZ_ACT_CLIP)
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(g->act.lo)), _mm512_set1_ps(g->act.hi));
    else if (g->act.kind == PZ_ACT_PRELU)
        v = pz_prelu16_ps(&g->act, v, col, mk);   /* a slope per column */
    else if (g->act.kind != PZ_ACT_NONE)
        v = pz_act16_ps(&g->act, v);   /* the unary kernel's formulas (GELU: gelu_ps) */
    _mm512_mask_storeu_ps(y + col, mk, v);
}

#endif
