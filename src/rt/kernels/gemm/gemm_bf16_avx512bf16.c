/* gemm_bf16_avx512bf16.c - the bf16 GEMM with AVX512-BF16 (gemm_bf16.h).
 *
 * A worker takes a share of the 32-column panels (or, with fewer panels
 * than workers, of the row tiles) and walks K in slices of PZ_BF16_KC. Per
 * slice and tile of up to 14 rows, A's rows are rounded to bf16 once into a
 * small buffer (vcvtne2ps2bf16), then every panel of the share runs the
 * micro-kernel: per k pair, 2 loads of B, a broadcast pair of A per row,
 * 28 vdpbf16ps into 28 accumulators (32 products each). Partial sums live
 * in Y between slices; the last slice adds beta C and the activation. */
#include "rt/kernels/gemm/gemm_bf16.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"
#include "rt/kernels/gemm/gemm_epilogue_avx512.h"

#define UNROLL _Pragma("GCC unroll 32")
#define MR 14
#define NR PZ_GEMM_NR

static inline __mmask16 lanes(int64_t v)
{
    return v >= 16 ? (__mmask16)0xffff : v <= 0 ? 0 : (__mmask16)((1u << v) - 1);
}

/* RM rows (ab: their bf16 pairs, kpc per row) times a panel slice (bq:
 * [kpc][32][2]) into columns [col, col + 32) of Y. */
static inline __attribute__((always_inline)) void
tile(const pz_gemm_desc *g, const uint32_t *ab, int64_t kpc, const uint16_t *bq, int64_t m0,
     int64_t col, int init, int fin, float *y, const int RM)
{
    const __mmask16 mk0 = lanes(g->n - col), mk1 = lanes(g->n - col - 16);
    __m512 acc[MR][2];
    UNROLL for (int i = 0; i < RM; i++) {
        float *yr = y + (m0 + i) * g->ldy + col;
        acc[i][0] = init ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mk0, yr);
        acc[i][1] = init ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mk1, yr + 16);
    }
    for (int64_t q = 0; q < kpc; q++) {
        const __m512bh b0 = (__m512bh)_mm512_loadu_si512(bq + q * NR * 2);
        const __m512bh b1 = (__m512bh)_mm512_loadu_si512(bq + q * NR * 2 + 32);
        UNROLL for (int i = 0; i < RM; i++) {
            const __m512bh av = (__m512bh)_mm512_set1_epi32((int)ab[i * kpc + q]);
            acc[i][0] = _mm512_dpbf16_ps(acc[i][0], av, b0);
            acc[i][1] = _mm512_dpbf16_ps(acc[i][1], av, b1);
        }
    }
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

#define TILE_FN(RM)                                                                         \
    static void tile_##RM(const pz_gemm_desc *g, const uint32_t *ab, int64_t kpc,           \
                          const uint16_t *bq, int64_t m0, int64_t col, int init, int fin,   \
                          float *y)                                                          \
    {                                                                                        \
        tile(g, ab, kpc, bq, m0, col, init, fin, y, RM);                                     \
    }
TILE_FN(1) TILE_FN(2) TILE_FN(3) TILE_FN(4) TILE_FN(5) TILE_FN(6) TILE_FN(7)
TILE_FN(8) TILE_FN(9) TILE_FN(10) TILE_FN(11) TILE_FN(12) TILE_FN(13) TILE_FN(14)

typedef void (*tile_fn)(const pz_gemm_desc *, const uint32_t *, int64_t, const uint16_t *,
                        int64_t, int64_t, int, int, float *);
static const tile_fn TILES[MR + 1] = {
    NULL, tile_1, tile_2, tile_3, tile_4, tile_5, tile_6, tile_7,
    tile_8, tile_9, tile_10, tile_11, tile_12, tile_13, tile_14,
};

/* Rows [m0, m0 + mr) of A, columns [k0, k0 + kc), as bf16 pairs (zero past
 * K) into ab: kpc pairs a row. */
static void round_a(const pz_gemm_desc *g, const float *a, int64_t m0, int64_t mr, int64_t k0,
                    int64_t kc, int64_t kpc, uint32_t *ab)
{
    for (int64_t i = 0; i < mr; i++) {
        const float *ar = a + (m0 + i) * g->lda + k0;
        uint32_t *o = ab + i * kpc;
        for (int64_t k = 0; k < 2 * kpc; k += 32) {
            const __m512 lo = _mm512_maskz_loadu_ps(lanes(kc - k), ar + k);
            const __m512 hi = _mm512_maskz_loadu_ps(lanes(kc - k - 16), ar + k + 16);
            const __m512i v = (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
            const int64_t pairs = kpc - k / 2;   /* pairs left in this row */
            _mm512_mask_storeu_epi32(o + k / 2, lanes(pairs), v);
        }
    }
}

void pz_f32_gemm_bf16__avx512bf16(const pz_gemm_desc *g, const float *restrict a,
                                  const uint16_t *restrict bp, float *restrict y, int ith,
                                  int nth)
{
    const int64_t P = (g->n + NR - 1) / NR, T = (g->m + MR - 1) / MR;
    const int64_t kp = (g->k + 1) / 2;
    int64_t plo = 0, phi = P, tlo = 0, thi = T;
    if (P >= nth) pz_split(P, ith, nth, &plo, &phi);
    else pz_split(T, ith, nth, &tlo, &thi);
    uint32_t ab[MR * (PZ_BF16_KC / 2)];
    for (int64_t k0 = 0; k0 < g->k || k0 == 0; k0 += PZ_BF16_KC) {
        const int64_t kc = g->k - k0 < PZ_BF16_KC ? g->k - k0 : PZ_BF16_KC;
        const int64_t kpc = (kc + 1) / 2, q0 = k0 / 2;
        const int init = k0 == 0, fin = k0 + PZ_BF16_KC >= g->k;
        for (int64_t t = tlo; t < thi; t++) {
            const int64_t m0 = g->m * t / T, mr = g->m * (t + 1) / T - m0;   /* balanced */
            round_a(g, a, m0, mr, k0, kc, kpc, ab);
            for (int64_t p = plo; p < phi; p++)
                TILES[mr](g, ab, kpc, bp + (p * kp + q0) * NR * 2, m0, p * NR, init, fin, y);
        }
        if (g->k == 0) break;
    }
}

#endif
