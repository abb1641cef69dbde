/* spgemm.c - the block-sparse GEMM's plan and driver (spgemm.h). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/gemm/spgemm.h"

#define KB PZ_SPGEMM_KB
#define NR PZ_GEMM_NR

int64_t pz_spgemm_block_count(int64_t k, int64_t n)
{
    return (k + KB - 1) / KB * ((n + NR - 1) / NR);
}

/* B[k][j] of the logical [K][N] */
static float b_at(const float *b, int64_t k, int64_t n, int trans_b, int64_t r, int64_t j)
{
    return trans_b ? b[j * k + r] : b[r * n + j];
}

int pz_spgemm_plan_make(pz_spgemm_plan *p, int64_t k, int64_t n, const float *b, int trans_b,
                        float alpha, pz_isa isa)
{
    memset(p, 0, sizeof *p);
    p->k = k;
    p->n = n;
    p->np = (n + NR - 1) / NR;
    p->nblocks = pz_spgemm_block_count(k, n);
    const int64_t nkb = (k + KB - 1) / KB;
    /* pass 1 counts the non-zero blocks, pass 2 packs them */
    for (int pass = 0; pass < 2; pass++) {
        int64_t nz = 0;
        for (int64_t pn = 0; pn < p->np; pn++) {
            int64_t c0 = pn * NR, nv = n - c0 < NR ? n - c0 : NR;
            if (pass) p->start[pn] = nz;
            for (int64_t q = 0; q < nkb; q++) {
                int64_t r0 = q * KB, kn = k - r0 < KB ? k - r0 : KB, any = 0;
                for (int64_t r = r0; r < r0 + kn && !any; r++)
                    for (int64_t j = 0; j < nv && !any; j++)
                        any = b_at(b, k, n, trans_b, r, c0 + j) != 0.0f;
                if (!any) continue;
                if (pass) {
                    float *w = p->w + nz * KB * NR;
                    for (int64_t r = 0; r < kn; r++)
                        for (int64_t j = 0; j < nv; j++)
                            w[r * NR + j] = alpha * b_at(b, k, n, trans_b, r0 + r, c0 + j);
                    p->k0[nz] = r0;
                    p->kn[nz] = (int32_t)kn;
                }
                nz++;
            }
        }
        if (pass) {
            p->start[p->np] = nz;
            break;
        }
        p->nnz = nz;
        size_t wb = ((size_t)(nz ? nz : 1) * KB * NR * sizeof(float) + 63) / 64 * 64;
        p->start = malloc((size_t)(p->np + 1) * sizeof *p->start);
        p->k0 = malloc((size_t)(nz ? nz : 1) * sizeof *p->k0);
        p->kn = malloc((size_t)(nz ? nz : 1) * sizeof *p->kn);
        p->w = aligned_alloc(64, wb);
        if (!p->start || !p->k0 || !p->kn || !p->w) {
            pz_spgemm_plan_free(p);
            return -1;
        }
        memset(p->w, 0, wb);   /* the padding of partial blocks */
    }
    p->tile = pz_f32_sptile__scalar;
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) p->tile = pz_f32_sptile__avx512;
#else
    (void)isa;
#endif
    return 0;
}

void pz_spgemm_plan_free(pz_spgemm_plan *p)
{
    free(p->start);
    free(p->k0);
    free(p->kn);
    free(p->w);
    memset(p, 0, sizeof *p);
}

void pz_spgemm_run(const pz_spgemm_plan *p, const pz_gemm_desc *g, const float *a, float *y,
                   int ith, int nth)
{
    const int64_t T = (g->m + PZ_SPGEMM_MR - 1) / PZ_SPGEMM_MR;
    int64_t lo, hi;
    pz_split(p->np * T, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t pn = u / T, m0 = u % T * PZ_SPGEMM_MR, c0 = pn * NR;
        const int64_t mr = g->m - m0 < PZ_SPGEMM_MR ? g->m - m0 : PZ_SPGEMM_MR;
        const int64_t nv = p->n - c0 < NR ? p->n - c0 : NR, b0 = p->start[pn];
        pz_sptile_args t = {.a = a + m0 * g->lda, .lda = g->lda, .k0 = p->k0 + b0,
                            .kn = p->kn + b0, .w = p->w + b0 * KB * NR,
                            .nb = p->start[pn + 1] - b0, .mr = (int)mr, .nv = (int)nv,
                            .y = y + m0 * g->ldy + c0, .ldy = g->ldy};
        p->tile(&t);
        /* the epilogue, shared by both tiles */
        for (int64_t i = m0; i < m0 + mr; i++)
            for (int64_t j = c0; j < c0 + nv; j++) {
                float v = y[i * g->ldy + j];
                if (g->c) v += g->beta * g->c[i * g->csm + j * g->csn];
                if (g->z) v += g->z[i * g->ldz + j];
                y[i * g->ldy + j] = pz_act_c_f32(&g->act, v, j);
            }
    }
}
