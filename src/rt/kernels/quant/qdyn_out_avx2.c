/* qdyn_out_avx2.c - the float32 output stage of a folded ConvInteger
 * (qdyn_out.h) in AVX2, 8 sums a vector, the tail masked: the same bits as
 * the twin (qgemm_dyn.c) and the AVX-512 row, one rounding a step. */
#include "rt/kernels/quant/qdyn_out.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

void pz_qdyn_out_row__avx2(const pz_qdyn_out *o, int64_t m, const int32_t *acc, float *y,
                           int64_t n)
{
    const __m256 sv = _mm256_set1_ps(o->xs * o->ws[o->ws_per ? m : 0]);
    const __m256 bv = _mm256_set1_ps(o->b ? o->b[o->b_per ? m : 0] : 0.0f);
    const int relu = o->act.kind == PZ_ACT_RELU;
    for (int64_t i = 0; i < n; i += 8) {
        /* lane j on when i + j < n: its index below the count */
        const int cnt = n - i >= 8 ? 8 : (int)(n - i);
        const __m256i mk = _mm256_cmpgt_epi32(_mm256_set1_epi32(cnt),
                                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_maskload_epi32(acc + i, mk)), sv);
        if (o->b) v = _mm256_add_ps(v, bv);
        /* max returns its second operand on a NaN or two zeros: v, as the twin */
        if (relu) v = _mm256_max_ps(_mm256_setzero_ps(), v);
        _mm256_maskstore_ps(y + i, mk, v);
    }
}
#endif
