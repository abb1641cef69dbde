/* qmatmul_dyn.c - MatMulInteger with a run-time zero point (qmatmul_dyn.h).
 * A unit is a block of at most RB rows and a range of qgemm's panel groups:
 * the GEMM writes G into y, then the zero points' terms go in over the same
 * block. Few rows (a token at a time) split the columns instead. */
#include <math.h>
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
    int32_t *s;            /* [n] sums of b' (mod 2^32: the result wraps as int32) */
    int32_t *zb;           /* [n] zb' */
    const pz_qmm_cols *cols;
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
    q->cols = &pz_qmm_cols__scalar;
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) q->cols = &pz_qmm_cols__avx512;
#endif
    /* b' = b for int8, b - 128 for uint8 (vpdpbusd's signed operand) */
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++) {
            const int64_t i = k * N + n;
            const int v = d->b_signed ? ((const int8_t *)b)[i] : ((const uint8_t *)b)[i] - 128;
            bq[i] = (int8_t)v;
            q->s[n] = (int32_t)((uint32_t)q->s[n] + (uint32_t)v);
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

/* a block's sums: RB rows of n int32 */
size_t pz_qmm_dyn_scratch(const pz_qmm_dyn *q)
{
    return (size_t)((RB * q->d.n * 4 + 63) / 64 * 64);
}

/* Worker ith's units: G of each block into g (y itself for int32 and
 * float32 out, scratch rows for 8-bit), then the column stage. */
static void run_units(const pz_qmm_dyn *q, const void *a, int32_t a_zp, const pz_qdyn_out *o,
                      const pz_qmm_requant *r, void *y, int32_t *scratch, int ith, int nth)
{
    const int64_t R = q->d.rows, N = q->d.n, K = q->d.k, npg = q->npg;
    const int64_t nrb = (R + RB - 1) / RB;
    const pz_qmm_cols *cs = q->cols;
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
        /* G as int32: in y (float32 over it with o), or the scratch's rows */
        int32_t *gb = r ? scratch : (int32_t *)y + r0 * N;
        pz_qgemm_run_block(q->p, ab, K, gb, N, r1 - r0, pg0, pg1);
        /* the columns of groups [pg0, pg1) */
        const int64_t gw = (int64_t)16 * PZ_QGEMM_RM;
        const int64_t c0 = pg0 * gw, c1 = pg1 * gw < N ? pg1 * gw : N;
        for (int64_t i = 0; i < r1 - r0; i++) {
            const int64_t t = cs->rowsum(ab + i * K, K, q->d.a_signed) - K * (int64_t)a_zp;
            const int32_t t32 = (int32_t)(uint32_t)t;   /* the result wraps as int32 */
            int32_t *gr = gb + i * N;
            if (!o) {
                cs->zp(gr + c0, q->s + c0, q->zb + c0, a_zp, t32, c1 - c0);
                if (r) cs->q8out(r, c0, gr + c0, (uint8_t *)y + (r0 + i) * N + c0, c1 - c0);
                continue;
            }
            /* float32 out over G: a chunk's sums copied out first (memcpy:
             * the float stores cannot move above the int32 reads) */
            int32_t acc[64];
            for (int64_t n0 = c0; n0 < c1; n0 += 64) {
                const int64_t n1 = n0 + 64 < c1 ? n0 + 64 : c1;
                memcpy(acc, gr + n0, (size_t)(n1 - n0) * sizeof *acc);
                cs->zp(acc, q->s + n0, q->zb + n0, a_zp, t32, n1 - n0);
                cs->fout(o, n0, acc, (float *)gr + n0, n1 - n0);
            }
        }
    }
}

void pz_qmm_dyn_run(const pz_qmm_dyn *q, const void *a, int32_t a_zp, const pz_qdyn_out *o,
                    void *y, int ith, int nth)
{
    run_units(q, a, a_zp, o, NULL, y, NULL, ith, nth);
}

void pz_qmm_dyn_run_q8(const pz_qmm_dyn *q, const void *a, int32_t a_zp, const pz_qmm_requant *r,
                       void *y, void *scratch, int ith, int nth)
{
    int32_t *g = (int32_t *)((char *)scratch + pz_qmm_dyn_scratch(q) * (size_t)ith);
    run_units(q, a, a_zp, NULL, r, y, g, ith, nth);
}

/* The scalar twins of the column stage. */
static int64_t rowsum__scalar(const void *a, int64_t k, int a_signed)
{
    int64_t rs = 0;
    if (a_signed)
        for (int64_t j = 0; j < k; j++) rs += ((const int8_t *)a)[j];
    else
        for (int64_t j = 0; j < k; j++) rs += ((const uint8_t *)a)[j];
    return rs;
}

static void zp__scalar(int32_t *g, const int32_t *s, const int32_t *zb, int32_t za, int32_t t,
                       int64_t n)
{
    /* in uint32: int32's wrap without signed overflow */
    for (int64_t j = 0; j < n; j++)
        g[j] = (int32_t)((uint32_t)g[j] - (uint32_t)za * (uint32_t)s[j] -
                         (uint32_t)zb[j] * (uint32_t)t);
}

static void q8out__scalar(const pz_qmm_requant *r, int64_t c0, const int32_t *acc, void *y,
                          int64_t n)
{
    for (int64_t j = 0; j < n; j++) {
        double v = nearbyint((double)acc[j] * r->mult[r->mult_per ? c0 + j : 0]) + r->yzp;
        if (isnan(v)) v = 0;
        v = v < r->lo ? r->lo : v > r->hi ? r->hi : v;
        if (r->y_signed)
            ((int8_t *)y)[j] = (int8_t)v;
        else
            ((uint8_t *)y)[j] = (uint8_t)v;
    }
}

const pz_qmm_cols pz_qmm_cols__scalar = {rowsum__scalar, zp__scalar, pz_qdyn_out_cols,
                                         q8out__scalar};
