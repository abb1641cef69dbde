/* gemm_f16w_scalar.c - the scalar twin of the fp16-weight GEMM: the sums
 * in the order gemm_f16w.h fixes, each step fmaf (one rounding, as the
 * vector FMA), so it gives the AVX-512 kernel's bits. */
#include <math.h>

#include "rt/elem.h"
#include "rt/kernels/gemm/gemm_f16w.h"

#define NR PZ_GEMM_NR

/* vmaxps / vminps: the second operand unless the first is greater (less) */
static float max_ps(float a, float b)
{
    return a > b ? a : b;
}

static float min_ps(float a, float b)
{
    return a < b ? a : b;
}

static void tile(const pz_gemm_desc *g, const float *a, const uint16_t *bq, int64_t m0,
                 int64_t mr, int64_t p, float *y)
{
    const int ph = pz_f16w_phases(mr);
    const int64_t K = g->k, col0 = p * NR, nj = g->n - col0 < NR ? g->n - col0 : NR;
    for (int64_t i = 0; i < mr; i++) {
        const float *ar = a + (m0 + i) * g->lda;
        float acc[4][NR] = {{0}};
        int64_t k = 0;
        for (; k + ph <= K; k += ph)
            for (int c = 0; c < ph; c++)
                for (int64_t j = 0; j < nj; j++)
                    acc[c][j] = fmaf(ar[k + c], pz_f16_to_f32(bq[(k + c) * NR + j]), acc[c][j]);
        for (; k < K; k++)
            for (int64_t j = 0; j < nj; j++)
                acc[0][j] = fmaf(ar[k], pz_f16_to_f32(bq[k * NR + j]), acc[0][j]);
        float *yr = y + (m0 + i) * g->ldy;
        for (int64_t j = 0; j < nj; j++) {
            const int64_t col = col0 + j;
            float v = ph == 4 ? (acc[0][j] + acc[1][j]) + (acc[2][j] + acc[3][j])
                    : ph == 2 ? acc[0][j] + acc[1][j] : acc[0][j];
            if (g->c) v = fmaf(g->beta, g->c[(m0 + i) * g->csm + col * g->csn], v);
            if (g->z) v += g->z[(m0 + i) * g->ldz + col];
            if (g->act.kind == PZ_ACT_RELU) v = max_ps(v, 0.0f);
            else if (g->act.kind == PZ_ACT_CLIP) v = min_ps(max_ps(v, g->act.lo), g->act.hi);
            else v = pz_act_c_f32(&g->act, v, col);
            yr[col] = v;
        }
    }
}

void pz_f32_gemm_f16w__scalar(const pz_gemm_desc *g, const float *restrict a,
                              const uint16_t *restrict bp, float *restrict y, int ith, int nth)
{
    pz_gemm_f16w_drive(tile, g, a, bp, y, ith, nth);
}
