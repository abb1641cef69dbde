/* qmatmul_dyn.c - MatMulInteger with a run-time zero point (qmatmul_dyn.h).
 * A unit is a block of at most RB rows and a range of qgemm's panel groups:
 * the GEMM writes G into y, then the zero points' terms go in over the same
 * block. Few rows (a token at a time) split the columns instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qgemm_impl.h"   /* PZ_QGEMM_RM: a panel group's width */
#include "rt/kernels/quant/qmatmul_dyn.h"

/* rows a unit: its A block (RB k bytes) stays in L2 over all its panels */
#define RB 96

struct pz_qmm_dyn {
    pz_qmm_dyn_desc d;
    pz_qgemm_plan *p;
    int64_t npg;           /* qgemm's panel groups */
    int64_t *s;            /* [n] sums of b' */
    int32_t *zb;           /* [n] zb' */
};

void pz_qmm_dyn_free(pz_qmm_dyn *q)
{
    if (!q) return;
    pz_qgemm_plan_free(q->p);
    free(q->s), free(q->zb);
    free(q);
}

pz_qmm_dyn *pz_qmm_dyn_new(const pz_qmm_dyn_desc *d, pz_isa isa, const void *b, const void *bzp,
                           int bzp_per_n, char *err, size_t errsize)
{
    if (errsize) err[0] = 0;
    if (d->rows < 1 || d->n < 1 || d->k < 1) {
        snprintf(err, errsize, "qmatmul_dyn: sizes must be >= 1");
        return NULL;
    }
    const int64_t N = d->n, K = d->k;
    pz_qmm_dyn *q = calloc(1, sizeof *q);
    int8_t *bq = malloc((size_t)(N * K));
    if (q) q->s = calloc((size_t)N, sizeof *q->s), q->zb = malloc((size_t)N * sizeof *q->zb);
    if (!q || !bq || !q->s || !q->zb) {
        snprintf(err, errsize, "qmatmul_dyn: out of memory");
        goto fail;
    }
    q->d = *d;
    /* b' = b for int8, b - 128 for uint8 (vpdpbusd's signed operand) */
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++) {
            const int64_t i = k * N + n;
            const int v = d->b_signed ? ((const int8_t *)b)[i] : ((const uint8_t *)b)[i] - 128;
            bq[i] = (int8_t)v;
            q->s[n] += v;
        }
    for (int64_t n = 0; n < N; n++) {
        const int64_t i = bzp_per_n ? n : 0;
        q->zb[n] = !bzp ? (d->b_signed ? 0 : -128)
                   : d->b_signed ? ((const int8_t *)bzp)[i] : ((const uint8_t *)bzp)[i] - 128;
    }
    /* an int8 A: qgemm flips it and folds the 128 back (a_zp 0), so G is
     * sum a b' in A's own type */
    const pz_qgemm_desc gd = {.m = d->rows < RB ? d->rows : RB, .n = N, .k = K,
                              .a_signed = d->a_signed, .out_i32 = 1, .novnni = d->novnni};
    q->p = pz_qgemm_plan_new(&gd, isa, bq, 0, NULL, 1.0f, NULL, 1.0f, err, errsize);
    if (!q->p) goto fail;
    q->npg = pz_qgemm_panel_groups(q->p);
    free(bq);
    return q;
fail:
    free(bq);
    pz_qmm_dyn_free(q);
    return NULL;
}

pz_q8_kernel pz_qmm_dyn_kernel(const pz_qmm_dyn *q)
{
    return pz_qgemm_plan_kernel(q->p);
}

void pz_qmm_dyn_run(const pz_qmm_dyn *q, const void *a, int32_t a_zp, const pz_qdyn_out *o,
                    void *y, int ith, int nth)
{
    const int64_t R = q->d.rows, N = q->d.n, K = q->d.k, npg = q->npg;
    const int64_t nrb = (R + RB - 1) / RB;
    /* column chunks: enough units for every worker twice when rows are few */
    int64_t ncc = nrb >= 2 * nth ? 1 : (2 * nth + nrb - 1) / nrb;
    if (ncc > npg) ncc = npg;
    int64_t u0, u1;
    pz_split(nrb * ncc, ith, nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        const int64_t r0 = u / ncc * RB, r1 = r0 + RB < R ? r0 + RB : R;
        int64_t pg0, pg1;
        pz_split(npg, (int)(u % ncc), (int)ncc, &pg0, &pg1);
        if (pg0 >= pg1) continue;
        const uint8_t *ab = (const uint8_t *)a + r0 * K;
        int32_t *yb = (int32_t *)y + r0 * N;   /* G as int32; float32 over it with o */
        pz_qgemm_run_block(q->p, ab, K, yb, N, r1 - r0, pg0, pg1);
        /* the columns of groups [pg0, pg1) */
        const int64_t gw = (int64_t)16 * PZ_QGEMM_RM;
        const int64_t c0 = pg0 * gw, c1 = pg1 * gw < N ? pg1 * gw : N;
        for (int64_t i = 0; i < r1 - r0; i++) {
            int64_t rs = 0;
            if (q->d.a_signed)
                for (int64_t k = 0; k < K; k++) rs += ((const int8_t *)ab)[i * K + k];
            else
                for (int64_t k = 0; k < K; k++) rs += ab[i * K + k];
            const int64_t t = rs - K * (int64_t)a_zp;
            int32_t *yr = yb + i * N;
            if (!o) {
                for (int64_t n = c0; n < c1; n++)
                    yr[n] = (int32_t)(uint32_t)((int64_t)yr[n] - a_zp * q->s[n] - q->zb[n] * t);
                continue;
            }
            /* float32 out over G: a chunk's sums copied out first (memcpy:
             * the float stores cannot move above the int32 reads) */
            int32_t acc[64];
            for (int64_t n0 = c0; n0 < c1; n0 += 64) {
                const int64_t n1 = n0 + 64 < c1 ? n0 + 64 : c1;
                memcpy(acc, yr + n0, (size_t)(n1 - n0) * sizeof *acc);
                for (int64_t n = n0; n < n1; n++)
                    acc[n - n0] = (int32_t)(uint32_t)((int64_t)acc[n - n0] - a_zp * q->s[n] -
                                                      q->zb[n] * t);
                pz_qdyn_out_cols(o, n0, acc, (float *)yr + n0, n1 - n0);
            }
        }
    }
}
