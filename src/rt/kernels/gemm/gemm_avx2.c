/* gemm_avx2.c - the AVX2+FMA micro-kernels of the packed GEMM and GEMV;
 * gemm.c drives them.
 *
 * The same packing as AVX-512 ([ceil(N/32)][K][32]); a panel is done as two
 * 16-column halves. Tile: 6 rows x 16 columns in 12 YMM accumulators (2 B
 * loads, 6 broadcasts of A straight from its rows, 12 FMAs per k). GEMV: 8
 * accumulators (2 k phases x 4 quarters of the panel).
 */
#include "rt/kernels/gemm/gemm.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx2.h"

#define UNROLL _Pragma("GCC unroll 32")
#define MR 6
#define NR PZ_GEMM_NR

/* An integer lane mask for columns [col, col + 8) of n. */
static inline __m256i col_mask(int64_t n, int64_t col)
{
    int64_t v = n - col;
    int c = v >= 8 ? 8 : v <= 0 ? 0 : (int)v;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(c), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Y[m, col..col+8) = act(v + beta C + Z) under mask mk (PRELU: slope[col + l]). */
static inline void epilogue(const pz_gemm_desc *g, __m256 v, int64_t m, int64_t col, __m256i mk,
                            float *y)
{
    if (g->c) {
        const float *c = g->c + m * g->csm;
        __m256 cv;
        if (g->csn == 1) {
            cv = _mm256_maskload_ps(c + col, mk);
        } else if (g->csn == 0) {
            cv = _mm256_set1_ps(c[0]);
        } else {
            float t[8] = {0};
            for (int l = 0; l < 8 && col + l < g->n; l++) t[l] = c[(col + l) * g->csn];
            cv = _mm256_loadu_ps(t);
        }
        v = _mm256_fmadd_ps(_mm256_set1_ps(g->beta), cv, v);
    }
    if (g->z) v = _mm256_add_ps(v, _mm256_maskload_ps(g->z + m * g->ldz + col, mk));
    if (g->act.kind == PZ_ACT_RELU) v = _mm256_max_ps(v, _mm256_setzero_ps());
    else if (g->act.kind == PZ_ACT_CLIP)
        v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(g->act.lo)), _mm256_set1_ps(g->act.hi));
    else if (g->act.kind == PZ_ACT_PRELU)   /* a slope per column, none read past n */
        v = _mm256_blendv_ps(v, _mm256_mul_ps(v, _mm256_maskload_ps(g->act.slope + col, mk)),
                             _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
    else if (g->act.kind != PZ_ACT_NONE)
        v = pz_act8_ps(&g->act, v);   /* GELU: the scalar formula, lane by lane */
    _mm256_maskstore_ps(y + col, mk, v);
}

/* RM rows of A times a 16-column half panel slice (bq: [kc][32] packed;
 * STRIDED: kc rows of B g->ldb apart, loaded under the column masks where
 * the half runs past column n, which may lie past B's end). */
PZ_ALWAYS_INLINE void tile(const pz_gemm_desc *g, const float *restrict ap,
                           const float *restrict bq, int64_t kc, int64_t m0, int64_t col,
                           int init, int fin, float *restrict y, const int RM, const int STRIDED)
{
    const __m256i mk0 = col_mask(g->n, col), mk1 = col_mask(g->n, col + 8);
    const int64_t lda = g->lda, ldb = STRIDED ? g->ldb : NR;
    const int part = STRIDED && col + 16 > g->n;
    __m256 acc[MR][2];
    UNROLL for (int i = 0; i < RM; i++) {
        if (init) {
            acc[i][0] = acc[i][1] = _mm256_setzero_ps();
        } else {
            acc[i][0] = _mm256_maskload_ps(y + (m0 + i) * g->ldy + col, mk0);
            acc[i][1] = _mm256_maskload_ps(y + (m0 + i) * g->ldy + col + 8, mk1);
        }
    }
    for (int64_t k = 0; k < kc; k++) {
        __m256 b0, b1;
        if (part) {
            b0 = _mm256_maskload_ps(bq + k * ldb, mk0);
            b1 = _mm256_maskload_ps(bq + k * ldb + 8, mk1);
        } else {
            b0 = _mm256_loadu_ps(bq + k * ldb);
            b1 = _mm256_loadu_ps(bq + k * ldb + 8);
        }
        UNROLL for (int i = 0; i < RM; i++) {
            __m256 av = _mm256_broadcast_ss(ap + i * lda + k);
            acc[i][0] = _mm256_fmadd_ps(av, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(av, b1, acc[i][1]);
        }
    }
    UNROLL for (int i = 0; i < RM; i++) {
        float *yr = y + (m0 + i) * g->ldy;
        if (fin) {
            epilogue(g, acc[i][0], m0 + i, col, mk0, yr);
            epilogue(g, acc[i][1], m0 + i, col + 8, mk1, yr);
        } else {
            _mm256_maskstore_ps(yr + col, mk0, acc[i][0]);
            _mm256_maskstore_ps(yr + col + 8, mk1, acc[i][1]);
        }
    }
}

/* tile_RM: packed B; stile_RM: B read in place (g->ldb) */
#define TILE_FN(RM)                                                                       \
    static void tile_##RM(const pz_gemm_desc *g, const float *ap, const float *bq,        \
                          int64_t kc, int64_t m0, int64_t col, int init, int fin, float *y) \
    {                                                                                     \
        tile(g, ap, bq, kc, m0, col, init, fin, y, RM, 0);                                \
    }                                                                                     \
    static void stile_##RM(const pz_gemm_desc *g, const float *ap, const float *bq,       \
                           int64_t kc, int64_t m0, int64_t col, int init, int fin,        \
                           float *y)                                                      \
    {                                                                                     \
        tile(g, ap, bq, kc, m0, col, init, fin, y, RM, 1);                                \
    }
TILE_FN(1) TILE_FN(2) TILE_FN(3) TILE_FN(4) TILE_FN(5) TILE_FN(6)

typedef void (*tile_fn)(const pz_gemm_desc *, const float *, const float *, int64_t, int64_t,
                        int64_t, int, int, float *);
static const tile_fn TILES[2][MR + 1] = {
    {NULL, tile_1, tile_2, tile_3, tile_4, tile_5, tile_6},
    {NULL, stile_1, stile_2, stile_3, stile_4, stile_5, stile_6},
};

/* Rows [m0, m0 + mr) times one K slice of panel p (gemm.h), as two
 * 16-column halves. The prefetch hint is issued up front: these tiles are
 * short (6 rows), and no AVX2-only host was at hand to tune a spread. */
static void tile_panel(const pz_gemm_desc *g, const float *ar, const float *bq, int64_t kc,
                       int64_t m0, int64_t p, int64_t mr, int init, int fin, float *y,
                       const char *pf, int64_t npf)
{
    for (int64_t i = 0; i < npf; i++) _mm_prefetch(pf + i * 64, _MM_HINT_T1);
    for (int h = 0; h < 2; h++) {
        int64_t col = p * NR + h * 16;
        if (col >= g->n) break;
        TILES[g->ldb > 0][mr](g, ar, bq + h * 16, kc, m0, col, init, fin, y);
    }
}

/* GEMV (FC at batch 1): NP panels from p on, B streamed once; each column
 * sums K in order, as a GEMM tile does (a row of a batch gives the bits of
 * the same row alone), the panels side by side hiding the FMA latency. */
PZ_ALWAYS_INLINE void gemv_np(const pz_gemm_desc *g, const float *restrict a,
                              const float *restrict bp, int64_t p, float *restrict y, const int NP)
{
    const int64_t K = g->k;
    const float *bq[2];
    __m256 acc[2][4];
    UNROLL for (int c = 0; c < NP; c++) {
        bq[c] = bp + (p + c) * K * NR;
        UNROLL for (int q = 0; q < 4; q++) acc[c][q] = _mm256_setzero_ps();
    }
    for (int64_t k = 0; k < K; k++) {
        __m256 av = _mm256_broadcast_ss(a + k);
        UNROLL for (int c = 0; c < NP; c++)
            UNROLL for (int q = 0; q < 4; q++)
                acc[c][q] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bq[c] + k * NR + q * 8), acc[c][q]);
    }
    UNROLL for (int c = 0; c < NP; c++)
        UNROLL for (int q = 0; q < 4; q++) {
            int64_t col = (p + c) * NR + q * 8;
            if (col >= g->n) break;
            epilogue(g, acc[c][q], 0, col, col_mask(g->n, col), y);
        }
}

/* Panels [p0, p1) of the GEMV, two at a time. */
static void gemv_panels(const pz_gemm_desc *g, const float *restrict a, const float *restrict bp,
                        int64_t p0, int64_t p1, float *restrict y)
{
    int64_t p = p0;
    for (; p + 2 <= p1; p += 2) gemv_np(g, a, bp, p, y, 2);
    if (p < p1) gemv_np(g, a, bp, p, y, 1);
}

/* Tiles of up to 6 rows x one 32-column panel; B in blocks of 16 panels x
 * 256 of K (512 KiB; the AVX-512 set's smaller blocks not measured here). */
static const pz_gemm_ukset UKSET = {.max_mr = MR, .kc = 256, .nb = 16, .tile = tile_panel,
                                    .gemv_panels = gemv_panels};

void pz_f32_gemm_packed__avx2(const pz_gemm_desc *g, const float *restrict a,
                              const float *restrict bp, float *restrict y, int ith, int nth)
{
    pz_gemm_drive(&UKSET, g, a, bp, y, ith, nth);
}

void pz_f32_gemv_packed__avx2(const pz_gemm_desc *g, const float *restrict a,
                              const float *restrict bp, float *restrict y, int ith, int nth)
{
    pz_gemv_drive(&UKSET, g, a, bp, y, ith, nth);
}

#endif
