/* spgemm_scalar.c - the scalar twin of the block-sparse GEMM's tile
 * (spgemm.h): the same order, one fmaf per weight, so the AVX-512 tile
 * gives the same bits. */
#include <math.h>

#include "rt/kernels/gemm/spgemm.h"

void pz_f32_sptile__scalar(const pz_sptile_args *t)
{
    for (int i = 0; i < t->mr; i++) {
        float acc[PZ_GEMM_NR] = {0};
        const float *ar = t->a + i * t->lda;
        for (int64_t b = 0; b < t->nb; b++) {
            const float *wb = t->w + b * PZ_SPGEMM_KB * PZ_GEMM_NR, *ab = ar + t->k0[b];
            for (int kk = 0; kk < t->kn[b]; kk++)
                for (int j = 0; j < PZ_GEMM_NR; j++)
                    acc[j] = fmaf(ab[kk], wb[kk * PZ_GEMM_NR + j], acc[j]);
        }
        for (int j = 0; j < t->nv; j++) t->y[i * t->ldy + j] = acc[j];
    }
}
