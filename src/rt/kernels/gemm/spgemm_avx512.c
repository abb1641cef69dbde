/* spgemm_avx512.c - the block-sparse GEMM's tile on AVX-512 (spgemm.h): up
 * to 8 rows x one 32-column panel in 16 ZMM accumulators; per row of a
 * block, 2 loads of B, a broadcast of A per row, 2 FMAs per row. The order
 * of the scalar twin (spgemm_scalar.c), so the same bits. */
#include "rt/kernels/gemm/spgemm.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define NR PZ_GEMM_NR

static inline __attribute__((always_inline)) void tile(const pz_sptile_args *t, const int RM)
{
    __m512 acc[PZ_SPGEMM_MR][2];
#pragma GCC unroll 8
    for (int i = 0; i < RM; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    for (int64_t b = 0; b < t->nb; b++) {
        const float *wb = t->w + b * PZ_SPGEMM_KB * NR, *ab = t->a + t->k0[b];
        const int kn = t->kn[b];
        for (int kk = 0; kk < kn; kk++) {
            __m512 b0 = _mm512_load_ps(wb + kk * NR), b1 = _mm512_load_ps(wb + kk * NR + 16);
#pragma GCC unroll 8
            for (int i = 0; i < RM; i++) {
                __m512 av = _mm512_set1_ps(ab[i * t->lda + kk]);
                acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
                acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
            }
        }
    }
    int v0 = t->nv >= 16 ? 16 : t->nv, v1 = t->nv - 16 > 0 ? t->nv - 16 : 0;
    __mmask16 mk0 = (__mmask16)((1u << v0) - 1), mk1 = (__mmask16)((1u << v1) - 1);
#pragma GCC unroll 8
    for (int i = 0; i < RM; i++) {
        _mm512_mask_storeu_ps(t->y + i * t->ldy, mk0, acc[i][0]);
        _mm512_mask_storeu_ps(t->y + i * t->ldy + 16, mk1, acc[i][1]);
    }
}

void pz_f32_sptile__avx512(const pz_sptile_args *t)
{
    switch (t->mr) {
#define PZ_SPG_CASE(n) case n: tile(t, n); break;
    PZ_SPG_CASE(1) PZ_SPG_CASE(2) PZ_SPG_CASE(3) PZ_SPG_CASE(4)
    PZ_SPG_CASE(5) PZ_SPG_CASE(6) PZ_SPG_CASE(7) PZ_SPG_CASE(8)
#undef PZ_SPG_CASE
    default: break;
    }
}

#endif
