/* gemm.c - the ISA-independent driver of the packed GEMM and GEMV (gemm.h):
 * the share of each worker, the K slices, the blocks of panels and the
 * balanced row tiles; the micro-kernels of one ISA compute the tiles. */
#include "rt/kernels/gemm/gemm.h"

#define KC 256
#define NB 16   /* panels per block */
#define NR PZ_GEMM_NR

void pz_gemm_drive(const pz_gemm_ukset *ks, const pz_gemm_desc *g, const float *restrict a,
                   const float *restrict bp, float *restrict y, int ith, int nth)
{
    if (g->m == 1 && !g->ldb) {
        pz_gemv_drive(ks, g, a, bp, y, ith, nth);
        return;
    }
    const int64_t MR = ks->max_mr;
    const int64_t P = (g->n + NR - 1) / NR, T = (g->m + MR - 1) / MR, K = g->k;

    /* the workers share out the panels (or, with fewer panels than workers,
     * the row tiles); each walks K in slices, its panels in blocks of NB
     * (NB * KC * NR floats = 512 KiB, kept in L2 while every row tile passes
     * over them), and the row tiles. A worker with fewer than NB panels
     * takes deeper slices (KCD: the same bytes of B per block), so fewer
     * partial sums go through Y. */
    int64_t plo = 0, phi = P, tlo = 0, thi = T;
    if (P >= nth) pz_split(P, ith, nth, &plo, &phi);
    else pz_split(T, ith, nth, &tlo, &thi);
    const int64_t npb = phi - plo < NB ? phi - plo : NB, KCD = npb > 0 ? NB * KC / npb : KC;
    for (int64_t k0 = 0; k0 < K || k0 == 0; k0 += KCD) {
        int64_t kc = K - k0 < KCD ? K - k0 : KCD;
        for (int64_t pb = plo; pb < phi; pb += NB) {
            int64_t pe = phi < pb + NB ? phi : pb + NB;
            for (int64_t t = tlo; t < thi; t++) {
                /* balanced tiles: floor or ceil(M / T) rows each */
                const int64_t m0 = g->m * t / T, mr = g->m * (t + 1) / T - m0;
                const float *ar = a + m0 * g->lda + k0;
                for (int64_t p = pb; p < pe; p++) {
                    /* slice k0 of panel p: packed [K][NR], or B's rows in place */
                    const float *bq = g->ldb ? bp + k0 * g->ldb + p * NR : bp + (p * K + k0) * NR;
                    ks->tile(g, ar, bq, kc, m0, p, mr, k0 == 0, k0 + KCD >= K, y);
                }
            }
        }
        if (K == 0) break;
    }
}

void pz_gemv_drive(const pz_gemm_ukset *ks, const pz_gemm_desc *g, const float *restrict a,
                   const float *restrict bp, float *restrict y, int ith, int nth)
{
    const int64_t P = (g->n + NR - 1) / NR;
    int64_t lo, hi;
    pz_split(P, ith, nth, &lo, &hi);
    ks->gemv_panels(g, a, bp, lo, hi, y);
}
