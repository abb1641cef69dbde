/* gemm_f16w_avx512.c - the fp16-weight GEMM with AVX-512 (gemm_f16w.h).
 *
 * Per k, one 64-byte line of the panel: two vcvtph2ps make its 32 weights
 * fp32, and each row of the tile adds them times its broadcast A into two
 * accumulators per partial sum (ph of them, pz_f16w_phases). A GEMV tile
 * (M = 1) has 4 partial sums x 2 halves = 8 FMA chains; B is streamed once.
 * No software prefetch: 32 lines ahead made the 9216 x 4096 GEMV from DRAM
 * slower, 4.2 ms against 3.45 ms (bench/RESULTS.md, 'fp16 weights'). */
#include "rt/kernels/gemm/gemm_f16w.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"
#include "rt/kernels/gemm/gemm_epilogue_avx512.h"

#define UNROLL _Pragma("GCC unroll 32")
#define NR PZ_GEMM_NR

static inline __mmask16 lanes(int64_t v)
{
    return v >= 16 ? (__mmask16)0xffff : v <= 0 ? 0 : (__mmask16)((1u << v) - 1);
}

static inline __m512 half16(const uint16_t *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}

/* RM rows, PH partial sums (PH == pz_f16w_phases(RM)) */
PZ_ALWAYS_INLINE void tile(const pz_gemm_desc *g, const float *restrict a,
                           const uint16_t *restrict bq, int64_t m0, int64_t p, float *restrict y,
                           const int RM, const int PH)
{
    const int64_t K = g->k, lda = g->lda, col = p * NR;
    const float *ar = a + m0 * lda;
    __m512 acc[4][PZ_F16W_MR][2];
    UNROLL for (int c = 0; c < PH; c++)
        UNROLL for (int i = 0; i < RM; i++) acc[c][i][0] = acc[c][i][1] = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + PH <= K; k += PH) {
        UNROLL for (int c = 0; c < PH; c++) {
            const uint16_t *bk = bq + (k + c) * NR;
            const __m512 b0 = half16(bk), b1 = half16(bk + 16);
            UNROLL for (int i = 0; i < RM; i++) {
                const __m512 av = _mm512_set1_ps(ar[i * lda + k + c]);
                acc[c][i][0] = _mm512_fmadd_ps(av, b0, acc[c][i][0]);
                acc[c][i][1] = _mm512_fmadd_ps(av, b1, acc[c][i][1]);
            }
        }
    }
    for (; k < K; k++) {
        const __m512 b0 = half16(bq + k * NR), b1 = half16(bq + k * NR + 16);
        UNROLL for (int i = 0; i < RM; i++) {
            const __m512 av = _mm512_set1_ps(ar[i * lda + k]);
            acc[0][i][0] = _mm512_fmadd_ps(av, b0, acc[0][i][0]);
            acc[0][i][1] = _mm512_fmadd_ps(av, b1, acc[0][i][1]);
        }
    }
    const __mmask16 mk0 = lanes(g->n - col), mk1 = lanes(g->n - col - 16);
    UNROLL for (int i = 0; i < RM; i++) {
        __m512 s[2];
        UNROLL for (int h = 0; h < 2; h++) {
            if (PH == 4)
                s[h] = _mm512_add_ps(_mm512_add_ps(acc[0][i][h], acc[1][i][h]),
                                     _mm512_add_ps(acc[2][i][h], acc[3][i][h]));
            else if (PH == 2)
                s[h] = _mm512_add_ps(acc[0][i][h], acc[1][i][h]);
            else
                s[h] = acc[0][i][h];
        }
        float *yr = y + (m0 + i) * g->ldy;
        pz_gemm_epilogue16(g, s[0], m0 + i, col, mk0, yr);
        if (mk1) pz_gemm_epilogue16(g, s[1], m0 + i, col + 16, mk1, yr);
    }
}

#define TILE_FN(RM, PH)                                                                      \
    static void tile_##RM(const pz_gemm_desc *g, const float *a, const uint16_t *bq,         \
                          int64_t m0, int64_t p, float *y)                                   \
    {                                                                                        \
        tile(g, a, bq, m0, p, y, RM, PH);                                                    \
    }
TILE_FN(1, 4) TILE_FN(2, 2) TILE_FN(3, 1) TILE_FN(4, 1)
TILE_FN(5, 1) TILE_FN(6, 1) TILE_FN(7, 1) TILE_FN(8, 1)

typedef void (*tile_rm_fn)(const pz_gemm_desc *, const float *, const uint16_t *, int64_t,
                           int64_t, float *);
static const tile_rm_fn TILES[PZ_F16W_MR + 1] = {NULL, tile_1, tile_2, tile_3, tile_4,
                                                 tile_5, tile_6, tile_7, tile_8};

static void tile_any(const pz_gemm_desc *g, const float *a, const uint16_t *bq, int64_t m0,
                     int64_t mr, int64_t p, float *y)
{
    TILES[mr](g, a, bq, m0, p, y);
}

void pz_f32_gemm_f16w__avx512(const pz_gemm_desc *g, const float *restrict a,
                              const uint16_t *restrict bp, float *restrict y, int ith, int nth)
{
    pz_gemm_f16w_drive(tile_any, g, a, bp, y, ith, nth);
}

#endif
