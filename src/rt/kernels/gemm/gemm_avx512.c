/* gemm_avx512.c - the AVX-512 micro-kernels of the packed GEMM and GEMV
 * (B as [ceil(N/32)][K][32], see fast.h); gemm.c drives them.
 *
 * GEMM: a tile of up to 14 rows x 32 columns (one panel) in 28 ZMM
 * accumulators; per k, 2 loads of B, 14 broadcasts of A straight from its
 * rows, 28 FMAs. The M rows go in T = ceil(M/14) balanced tiles (M = 49: 13,
 * 12, 12, 12 rather than 14, 14, 14, 7; the driver's). Between K slices the partial sums
 * live in Y. A is read straight from its rows, not copied per tile and
 * slice: at small N too few panels reuse the copy to pay for it
 * (bench/RESULTS.md, 'gemm: copy of A'). The driver's prefetch of the
 * next block of B (gemm.c) is issued one line every few k steps, so that
 * the misses to memory never hold all of L1's fill buffers at once.
 *
 * GEMV (M == 1, a FC layer at batch 1): memory bound, B is streamed once;
 * eight accumulators (4 k phases x 2 halves of the panel) hide the FMA
 * latency.
 */
#include "rt/kernels/gemm/gemm.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"
#include "rt/kernels/gemm/gemm_epilogue_avx512.h"

#define UNROLL _Pragma("GCC unroll 32")
#define MR 14
#define NR PZ_GEMM_NR

/* RM rows of A (ap: row i at ap + i * g->lda) times one panel slice (bq:
 * [kc][32] packed; STRIDED: kc rows of B g->ldb apart, loaded under the
 * panel's masks, as past column n may lie past B's end). */
PZ_ALWAYS_INLINE void tile(const pz_gemm_desc *g, const float *restrict ap,
                           const float *restrict bq, int64_t kc, int64_t m0, int64_t col,
                           __mmask16 mk0, __mmask16 mk1, int init, int fin, float *restrict y,
                           const char *pf, int64_t npf, const int RM, const int STRIDED)
{
    const int64_t lda = g->lda, ldb = STRIDED ? g->ldb : NR;
    __m512 acc[MR][2];
    if (init) {
        UNROLL for (int i = 0; i < RM; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    } else {
        UNROLL for (int i = 0; i < RM; i++) {
            acc[i][0] = _mm512_maskz_loadu_ps(mk0, y + (m0 + i) * g->ldy + col);
            acc[i][1] = _mm512_maskz_loadu_ps(mk1, y + (m0 + i) * g->ldy + col + 16);
        }
    }
    /* npf lines from pf into L2, one each pfs steps of k (gemm.h) */
    const int64_t pfs = npf > 0 ? (kc / npf > 0 ? kc / npf : 1) : kc + 1;
    int64_t pfk = 0;
    for (int64_t k = 0; k < kc; k++) {
        __m512 b0, b1;
        if (!STRIDED && npf > 0 && ++pfk == pfs) {
            _mm_prefetch(pf, _MM_HINT_T1);
            pf += 64;
            npf--;
            pfk = 0;
        }
        if (STRIDED) {
            b0 = _mm512_maskz_loadu_ps(mk0, bq + k * ldb);
            b1 = _mm512_maskz_loadu_ps(mk1, bq + k * ldb + 16);
        } else {
            b0 = _mm512_loadu_ps(bq + k * NR);
            b1 = _mm512_loadu_ps(bq + k * NR + 16);
        }
        UNROLL for (int i = 0; i < RM; i++) {
            __m512 av = _mm512_set1_ps(ap[i * lda + k]);
            acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
        }
    }
    for (; !STRIDED && npf > 0; npf--, pf += 64) _mm_prefetch(pf, _MM_HINT_T1);
    UNROLL for (int i = 0; i < RM; i++) {
        float *yr = y + (m0 + i) * g->ldy;
        if (fin) {
            pz_gemm_epilogue16(g, acc[i][0], m0 + i, col, mk0, yr);
            if (mk1) pz_gemm_epilogue16(g, acc[i][1], m0 + i, col + 16, mk1, yr);
        } else {
            _mm512_mask_storeu_ps(yr + col, mk0, acc[i][0]);
            _mm512_mask_storeu_ps(yr + col + 16, mk1, acc[i][1]);
        }
    }
}

/* tile_RM: packed B; stile_RM: B read in place (g->ldb) */
#define TILE_FN(RM)                                                                          \
    static void tile_##RM(const pz_gemm_desc *g, const float *ap, const float *bq,           \
                          int64_t kc, int64_t m0, int64_t col, __mmask16 mk0, __mmask16 mk1,  \
                          int init, int fin, float *y, const char *pf, int64_t npf)          \
    {                                                                                        \
        tile(g, ap, bq, kc, m0, col, mk0, mk1, init, fin, y, pf, npf, RM, 0);                       \
    }                                                                                        \
    static void stile_##RM(const pz_gemm_desc *g, const float *ap, const float *bq,          \
                           int64_t kc, int64_t m0, int64_t col, __mmask16 mk0, __mmask16 mk1, \
                           int init, int fin, float *y, const char *pf, int64_t npf)         \
    {                                                                                        \
        tile(g, ap, bq, kc, m0, col, mk0, mk1, init, fin, y, pf, npf, RM, 1);                       \
    }
TILE_FN(1) TILE_FN(2) TILE_FN(3) TILE_FN(4) TILE_FN(5) TILE_FN(6) TILE_FN(7)
TILE_FN(8) TILE_FN(9) TILE_FN(10) TILE_FN(11) TILE_FN(12) TILE_FN(13) TILE_FN(14)

typedef void (*tile_fn)(const pz_gemm_desc *, const float *, const float *, int64_t, int64_t,
                        int64_t, __mmask16, __mmask16, int, int, float *, const char *,
                        int64_t);
static const tile_fn TILES[2][MR + 1] = {
    {NULL, tile_1, tile_2, tile_3, tile_4, tile_5, tile_6, tile_7,
     tile_8, tile_9, tile_10, tile_11, tile_12, tile_13, tile_14},
    {NULL, stile_1, stile_2, stile_3, stile_4, stile_5, stile_6, stile_7,
     stile_8, stile_9, stile_10, stile_11, stile_12, stile_13, stile_14},
};

static void panel_masks(int64_t n, int64_t col, __mmask16 *mk0, __mmask16 *mk1)
{
    int64_t v = n - col;   /* valid columns from col */
    *mk0 = v >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << v) - 1);
    *mk1 = v >= 32 ? (__mmask16)0xffff : v <= 16 ? 0 : (__mmask16)((1u << (v - 16)) - 1);
}

/* Rows [m0, m0 + mr) times one K slice of panel p (gemm.h). */
static void tile_panel(const pz_gemm_desc *g, const float *ar, const float *bq, int64_t kc,
                       int64_t m0, int64_t p, int64_t mr, int init, int fin, float *y,
                       const char *pf, int64_t npf)
{
    __mmask16 mk0, mk1;
    panel_masks(g->n, p * NR, &mk0, &mk1);
    TILES[g->ldb > 0][mr](g, ar, bq, kc, m0, p * NR, mk0, mk1, init, fin, y, pf, npf);
}

/* GEMV (FC at batch 1): NP panels from p on, B streamed once, from memory
 * in a net. Each column sums K in order, as a GEMM tile does, so that a
 * row of a batch gives the bits of the same row alone (--batch); the
 * panels side by side give the independent accumulators that hide the FMA
 * latency. No software prefetch of B: it did not pay, the stream already
 * runs at memory speed (bench/RESULTS.md, 'gemm: GEMV prefetch'). */
PZ_ALWAYS_INLINE void gemv_np(const pz_gemm_desc *g, const float *restrict a,
                              const float *restrict bp, int64_t p, float *restrict y, const int NP)
{
    const int64_t K = g->k;
    const float *bq[4];
    __m512 acc[4][2];
    UNROLL for (int c = 0; c < NP; c++) {
        bq[c] = bp + (p + c) * K * NR;
        acc[c][0] = acc[c][1] = _mm512_setzero_ps();
    }
    for (int64_t k = 0; k < K; k++) {
        __m512 av = _mm512_set1_ps(a[k]);
        UNROLL for (int c = 0; c < NP; c++) {
            acc[c][0] = _mm512_fmadd_ps(av, _mm512_loadu_ps(bq[c] + k * NR), acc[c][0]);
            acc[c][1] = _mm512_fmadd_ps(av, _mm512_loadu_ps(bq[c] + k * NR + 16), acc[c][1]);
        }
    }
    UNROLL for (int c = 0; c < NP; c++) {
        __mmask16 mk0, mk1;
        panel_masks(g->n, (p + c) * NR, &mk0, &mk1);
        pz_gemm_epilogue16(g, acc[c][0], 0, (p + c) * NR, mk0, y);
        if (mk1) pz_gemm_epilogue16(g, acc[c][1], 0, (p + c) * NR + 16, mk1, y);
    }
}

/* Panels [p0, p1) of the GEMV, four at a time. */
static void gemv_panels(const pz_gemm_desc *g, const float *restrict a, const float *restrict bp,
                        int64_t p0, int64_t p1, float *restrict y)
{
    int64_t p = p0;
    for (; p + 4 <= p1; p += 4) gemv_np(g, a, bp, p, y, 4);
    switch (p1 - p) {
    case 3: gemv_np(g, a, bp, p, y, 3); break;
    case 2: gemv_np(g, a, bp, p, y, 2); break;
    case 1: gemv_np(g, a, bp, p, y, 1); break;
    default: break;
    }
}

/* Tiles of up to 14 rows x one 32-column panel. Blocks of 3 panels, K in
 * slices of 1024: a small block of B (384 KiB) and of Y, deep slices (K =
 * 768 in one: no partial sums through Y) ran the transformer GEMMs 2.5-6%
 * faster than 16 panels x 256 (bench/RESULTS.md, 'GEMM blocking'). */
static const pz_gemm_ukset UKSET = {.max_mr = MR, .kc = 1024, .nb = 3, .tile = tile_panel,
                                    .gemv_panels = gemv_panels};

void pz_f32_gemm_packed__avx512(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth)
{
    pz_gemm_drive(&UKSET, g, a, bp, y, ith, nth);
}

void pz_f32_gemv_packed__avx512(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth)
{
    pz_gemv_drive(&UKSET, g, a, bp, y, ith, nth);
}

#endif
