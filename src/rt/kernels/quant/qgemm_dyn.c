/* qgemm_dyn.c - the float GEMM through int8 with activations quantized at
 * run time (qgemm_dyn.h): B quantized per column at plan time, each worker
 * quantizing the rows of A it reads, the int8 product on qgemm.h's kernels,
 * then the row scale, beta C and the activation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qdq.h"
#include "rt/kernels/quant/qdyn_out.h"
#include "rt/kernels/quant/qgemm_dyn.h"
#include "rt/kernels/quant/qgemm_impl.h"   /* the tiles: PZ_QGEMM_RW rows, PZ_QGEMM_RM panels */

#define ROW_BLOCK PZ_QGEMM_RW
#define GROUP_COLS (PZ_QGEMM_RM * 16)

struct pz_qdyn {
    int64_t m, n, k;
    pz_qgemm_plan *p;
    const pz_qdq_kernels *qdq;
    uint32_t (*absmax)(const float *a, int64_t n);
    void (*epilogue)(const pz_gemm_desc *g, float *yr, int64_t i, float s, int64_t n0, int64_t n1);
};

static int64_t align64(int64_t b)
{
    return (b + 63) / 64 * 64;
}

pz_qdyn *pz_qdyn_new(int64_t m, int64_t n, int64_t k, const float *b, int trans_b, float alpha,
                     pz_isa isa, int novnni, char *err, size_t errsize)
{
    if (errsize) err[0] = 0;
    pz_qdyn *q = calloc(1, sizeof *q);
    float *bt = malloc((size_t)(n * k) * sizeof *bt);   /* alpha B, a row per column */
    int8_t *bq = malloc((size_t)(n * k));
    float *sb = malloc((size_t)n * sizeof *sb);
    if (!q || !bt || !bq || !sb) {
        snprintf(err, errsize, "int8 GEMM: out of memory");
        goto fail;
    }
    q->m = m, q->n = n, q->k = k;
    q->qdq = pz_qdq_for(isa);
    q->absmax = pz_qdyn_absmax__scalar;
    q->epilogue = pz_qdyn_epilogue__scalar;
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) {
        q->absmax = pz_qdyn_absmax__avx512;
        q->epilogue = pz_qdyn_epilogue__avx512;
    }
#endif
    /* column c of alpha B as row c of bt (B read in its memory order, in
     * tiles of 64 x 64 so that the writes stay in cache) */
    for (int64_t r0 = 0; r0 < k; r0 += 64)
        for (int64_t c0 = 0; c0 < n; c0 += 64)
            for (int64_t r = r0; r < r0 + 64 && r < k; r++)
                for (int64_t c = c0; c < c0 + 64 && c < n; c++)
                    bt[c * k + r] = alpha * (trans_b ? b[c * k + r] : b[r * n + c]);
    /* each column quantized as a row of A is (the same rule, qdq's kernel) */
    for (int64_t c = 0; c < n; c++) {
        uint32_t mx = q->absmax(bt + c * k, k);
        if (mx >= 0x7f800000u) {
            snprintf(err, errsize, "int8 GEMM: weight column %lld has an inf or NaN",
                     (long long)c);
            goto fail;
        }
        float mf;
        memcpy(&mf, &mx, sizeof mf);
        sb[c] = mf > 0.0f ? mf / 127.0f : 1.0f;
        q->qdq->quantize(k, bt + c * k, sb[c], 0, 1, bq + c * k);
    }
    pz_qgemm_desc d = {.m = m, .n = n, .k = k, .a_signed = 1, .a_zp = 0, .out_f32 = 1,
                       .novnni = novnni};
    q->p = pz_qgemm_plan_new(&d, isa, bq, 1, NULL, 1.0f, sb, 1.0f, err, errsize);
    if (!q->p) goto fail;
    free(bt), free(bq), free(sb);
    return q;
fail:
    free(bt), free(bq), free(sb);
    pz_qdyn_free(q);
    return NULL;
}

void pz_qdyn_free(pz_qdyn *q)
{
    if (!q) return;
    pz_qgemm_plan_free(q->p);
    free(q);
}

const char *pz_qdyn_kernel(const pz_qdyn *q)
{
    const pz_q8_kernel k = pz_qgemm_plan_kernel(q->p);
    return k == PZ_Q8_VNNI      ? "int8-dyn"
           : k == PZ_Q8_AVXVNNI ? "int8-dyn-avxvnni"
           : k == PZ_Q8_AVX2    ? "int8-dyn-avx2"
                                : "int8-dyn-scalar";
}

/* a worker's scratch: every row of A quantized, then the rows' scales */
static int64_t worker_bytes(const pz_qdyn *q)
{
    return align64(q->m * q->k) + align64(q->m * (int64_t)sizeof(float));
}

size_t pz_qdyn_scratch(const pz_qdyn *q, int nth)
{
    return (size_t)(worker_bytes(q) * (nth > 0 ? nth : 1));
}

uint32_t pz_qdyn_absmax__scalar(const float *a, int64_t n)
{
    /* on the bits: magnitudes order as their integers */
    uint32_t mx = 0;
    for (int64_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &a[k], sizeof u);
        u &= 0x7fffffffu;
        mx = u > mx ? u : mx;
    }
    return mx;
}

void pz_qdyn_epilogue__scalar(const pz_gemm_desc *g, float *yr, int64_t i, float s, int64_t n0,
                              int64_t n1)
{
    for (int64_t n = n0; n < n1; n++) {
        float v = yr[n] * s;
        if (g->c) v += g->beta * g->c[i * g->csm + n * g->csn];
        if (g->z) v += g->z[i * g->ldz + n];
        yr[n] = pz_act_c_f32(&g->act, v, n);
    }
}

void pz_qdyn_out_row__scalar(const pz_qdyn_out *o, int64_t m, const int32_t *acc, float *y,
                             int64_t n)
{
    const float s = o->xs * o->ws[o->ws_per ? m : 0];
    const float b = o->b ? o->b[o->b_per ? m : 0] : 0.0f;
    const int relu = o->act.kind == PZ_ACT_RELU;
    for (int64_t i = 0; i < n; i++) {
        float v = (float)acc[i] * s;
        if (o->b) v += b;   /* no Add in the graph: no +0 (it would turn -0 into +0) */
        y[i] = relu && v < 0 ? 0.0f : v;
    }
}

/* Row i of A quantized into aq: its scale, or NaN when it has an inf or NaN. */
static float quantize_row(const pz_qdyn *q, const float *a, int8_t *aq)
{
    uint32_t mx = q->absmax(a, q->k);
    if (mx >= 0x7f800000u) {
        memset(aq, 0, (size_t)q->k);
        return NAN;
    }
    float m;
    memcpy(&m, &mx, sizeof m);
    const float s = m > 0.0f ? m / 127.0f : 1.0f;
    q->qdq->quantize(q->k, a, s, 0, 1, aq);
    return s;
}

void pz_qdyn_run(const pz_qdyn *q, const pz_gemm_desc *g, const float *a, float *y,
                 void *scratch, int ith, int nth)
{
    const int64_t M = g->m, N = q->n, K = q->k;
    const int64_t nrb = (M + ROW_BLOCK - 1) / ROW_BLOCK, npg = pz_qgemm_panel_groups(q->p);
    int64_t i0 = 0, i1 = M, pg0 = 0, pg1 = npg;
    /* enough rows: each worker its rows (it quantizes only those); else
     * each its panel groups, every worker quantizing all the rows */
    if (nth == 1 || nrb >= 2 * (int64_t)nth) {
        int64_t b0, b1;
        pz_split(nrb, ith, nth, &b0, &b1);
        i0 = b0 * ROW_BLOCK;
        i1 = b1 * ROW_BLOCK < M ? b1 * ROW_BLOCK : M;
    } else {
        pz_split(npg, ith, nth, &pg0, &pg1);
    }
    if (i0 >= i1 || pg0 >= pg1) return;
    int8_t *aq = (int8_t *)((char *)scratch + worker_bytes(q) * ith);
    float *sa = (float *)((char *)aq + align64(q->m * K));
    for (int64_t i = i0; i < i1; i++) sa[i - i0] = quantize_row(q, a + i * g->lda, aq + (i - i0) * K);
    pz_qgemm_run_block(q->p, aq, K, y + i0 * g->ldy, g->ldy, i1 - i0, pg0, pg1);
    const int64_t n0 = pg0 * GROUP_COLS, n1 = pg1 * GROUP_COLS < N ? pg1 * GROUP_COLS : N;
    for (int64_t i = i0; i < i1; i++) q->epilogue(g, y + i * g->ldy, i, sa[i - i0], n0, n1);
}
