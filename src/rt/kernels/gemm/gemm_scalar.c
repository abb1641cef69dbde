/* gemm_scalar.c - the scalar twin of the packed GEMM and GEMV: plain loops
 * over the same packed B as the SIMD kernels. */
#include "rt/kernels/fast.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Row m of panel p: y[m, p*NR + j] for j < NR and inside n. B packed, or
 * (g->ldb > 0) read in place, its rows ldb apart. */
static void gemm_row_panel(const pz_gemm_desc *g, const float *a, const float *bp, float *y,
                           int64_t m, int64_t p)
{
    float acc[PZ_GEMM_NR] = {0};
    const int64_t ldb = g->ldb ? g->ldb : PZ_GEMM_NR;
    const int64_t nj = g->n - p * PZ_GEMM_NR < PZ_GEMM_NR ? g->n - p * PZ_GEMM_NR : PZ_GEMM_NR;
    const float *ar = a + m * g->lda;
    const float *bq = g->ldb ? bp + p * PZ_GEMM_NR : bp + p * g->k * PZ_GEMM_NR;
    /* a full panel by a loop of constant trip count: the compiler's
     * cheapest vectorizer takes only those */
    if (nj == PZ_GEMM_NR)
        for (int64_t k = 0; k < g->k; k++)
            for (int j = 0; j < PZ_GEMM_NR; j++) acc[j] += ar[k] * bq[k * ldb + j];
    else
        for (int64_t k = 0; k < g->k; k++)
            for (int64_t j = 0; j < nj; j++) acc[j] += ar[k] * bq[k * ldb + j];
    for (int64_t j = 0; j < nj; j++) {
        int64_t col = p * PZ_GEMM_NR + j;
        float v = acc[j];
        if (g->c) v += g->beta * g->c[m * g->csm + col * g->csn];
        if (g->z) v += g->z[m * g->ldz + col];
        y[m * g->ldy + col] = pz_act_c_f32(&g->act, v, col);
    }
}

void pz_f32_gemm_packed__scalar(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth)
{
    const int64_t np = cdiv(g->n, PZ_GEMM_NR);
    /* one unit = one panel of one row */
    int64_t lo, hi;
    pz_split(np * g->m, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) gemm_row_panel(g, a, bp, y, u % g->m, u / g->m);
}

void pz_f32_gemv_packed__scalar(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(cdiv(g->n, PZ_GEMM_NR), ith, nth, &lo, &hi);
    for (int64_t p = lo; p < hi; p++) gemm_row_panel(g, a, bp, y, 0, p);
}
