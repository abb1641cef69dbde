/* conv16c_bf16_avx512bf16.c - the bf16 convolutions with AVX512-BF16
 * (conv16c_bf16.h; the scalar twins in conv16c_bf16.c).
 *
 * Direct: a tile of RW pixels (of one or two rows) x RM blocks of 16 output
 * channels in RW * ROWS * RM ZMM accumulators, as the fp32 kernel's. Per
 * run of q steps (one input block, one kernel row) the span of inputs the
 * tile reads is rounded to bf16 once (vcvtne2ps2bf16, 32 values an
 * instruction) into a buffer on the stack; then per q pair, RM weight
 * vectors (32 bf16: 16 lanes x 2 channels), a 32-bit broadcast of each
 * pixel's input pair and RW * ROWS * RM vdpbf16ps: twice the products of
 * an fp32 FMA each. A tile is its run's rounding plus the pairs: at 14
 * pixels of a 3x3 conv, 8 conversions for 24 q pairs of 28 vdpbf16ps.
 *
 * Winograd: the fp32 transforms (winograd_avx512.c), each point's 16 values
 * rounded to bf16 (vcvtneps2bf16) into the first half of their slot; the
 * tile GEMM as the fp32 one's over channel pairs (8 steps a block).
 */
#include <math.h>
#include <string.h>

#include "rt/kernels/conv/conv16c_bf16.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

static inline __mmask16 lanes(int64_t v)
{
    return v >= 16 ? (__mmask16)0xffff : v <= 0 ? 0 : (__mmask16)((1u << v) - 1);
}

/* n floats at x to bf16 at o (whole 32-value steps: o has room) */
static inline void round_span(const float *x, int64_t n, uint16_t *o)
{
    for (int64_t k = 0; k < n; k += 32) {
        const __m512 lo = _mm512_maskz_loadu_ps(lanes(n - k), x + k);
        const __m512 hi = _mm512_maskz_loadu_ps(lanes(n - k - 16), x + k + 16);
        _mm512_storeu_si512(o + k, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
    }
}

static inline __m512bh pair(const uint16_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return (__m512bh)_mm512_set1_epi32((int)v);
}

PZ_ALWAYS_INLINE void bk_tile(const pz_conv16c_uk_args *a, const float *restrict x,
                              float *restrict y, const float *restrict z, const int RW,
                              const int RM, const int PS, const int ROWS)
{
    const int64_t ps = PS ? PS : a->ps, ys = a->ys_mb, ys_row = a->ys_row;
    __m512 acc[14][4];
    UNROLL for (int r = 0; r < RM; r++) {
        if (a->init) {
            const __m512 bv = a->bias ? _mm512_loadu_ps(a->bias + 16 * r) : _mm512_setzero_ps();
            UNROLL for (int j = 0; j < RW * ROWS; j++) acc[j][r] = bv;
        } else {
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++)
                    acc[rr * RW + j][r] = _mm512_loadu_ps(y + r * ys + rr * ys_row + j * 16);
        }
    }
    const float *xr = x;
    const uint16_t *wr = (const uint16_t *)a->w0 + (a->w - a->w0);
    const int nrun = a->ncb * a->nkh, nkh = a->nkh;
    uint16_t xb[2][PZ_CONV16C_BF16_SPAN + 32] __attribute__((aligned(64)));
    for (int i = 0, kh = 0; i < nrun; i++) {
        const int nqc = i >= nrun - nkh ? a->nq_last : a->nq;
        UNROLL for (int rr = 0; rr < ROWS; rr++)
            round_span(xr + rr * a->xs_row, (RW - 1) * ps + nqc, xb[rr]);
        for (int qp = 0; qp < nqc / 2; qp++) {
            __m512bh wv[4];
            UNROLL for (int r = 0; r < RM; r++)
                wv[r] = (__m512bh)_mm512_loadu_si512(wr + r * a->ws_mb + qp * 32);
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++) {
                    const __m512bh xv = pair(xb[rr] + j * ps + 2 * qp);
                    UNROLL for (int r = 0; r < RM; r++)
                        acc[rr * RW + j][r] = _mm512_dpbf16_ps(acc[rr * RW + j][r], xv, wv[r]);
                }
        }
        if (++kh < nkh) {
            xr += a->xs_h;
            wr += a->ws_h;
        } else {
            kh = 0;
            xr += a->xs_cb - (nkh - 1) * a->xs_h;
            wr += a->ws_cb - (nkh - 1) * a->ws_h;
        }
    }
    if (a->fin) {
        const __m512 lo = _mm512_set1_ps(a->act ? a->lo : -INFINITY);
        const __m512 hi = _mm512_set1_ps(a->act == 1 ? a->hi : INFINITY);
        UNROLL for (int r = 0; r < RM; r++)
            UNROLL for (int rr = 0; rr < ROWS; rr++)
                UNROLL for (int j = 0; j < RW; j++) {
                    __m512 v = acc[rr * RW + j][r];
                    if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z + r * ys + rr * ys_row + j * 16));
                    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
                    if (r == a->tail_r) v = _mm512_maskz_mov_ps((__mmask16)a->tail, v);
                    acc[rr * RW + j][r] = v;
                }
    }
    UNROLL for (int r = 0; r < RM; r++)
        UNROLL for (int rr = 0; rr < ROWS; rr++)
            UNROLL for (int j = 0; j < RW; j++)
                _mm512_storeu_ps(y + r * ys + rr * ys_row + j * 16, acc[rr * RW + j][r]);
}

PZ_ALWAYS_INLINE void bk_body(const pz_conv16c_uk_args *a, const int RW, const int RM,
                              const int PS, const int ROWS)
{
    const float *x = a->x, *z = a->z;
    float *y = a->y;
    for (int t = 0; t < a->ntile; t++) {
        bk_tile(a, x, y, z, RW, RM, PS, ROWS);
        x += RW * (PS ? PS : a->ps);
        y += RW * 16;
        if (z) z += RW * 16;
    }
}

/* each instance with ps == 16 (stride 1) a constant, and any other ps */
#define SK(RM, RW)                                                       \
    static void sk_##RM##_##RW(const pz_conv16c_uk_args *a)              \
    {                                                                    \
        if (a->ps == 16) bk_body(a, RW, RM, 16, 1);                      \
        else bk_body(a, RW, RM, 0, 1);                                   \
    }
#define SK2(RM, RW)                                                      \
    static void sk2_##RM##_##RW(const pz_conv16c_uk_args *a)             \
    {                                                                    \
        if (a->ps == 16) bk_body(a, RW, RM, 16, 2);                      \
        else bk_body(a, RW, RM, 0, 2);                                   \
    }
#include "rt/kernels/conv/conv16c_bf16_tiles.h"

const pz_conv16c_ukset pz_conv16c_ukset__avx512bf16 = {
    .max_rm = 4, .rwmax = {0, 14, 14, 9, 6}, .pick = sk_pick, .rw2max = 7, .pick2 = sk_pick2,
    .act16c = pz_f32_act16c__avx512,
};

void pz_f32_conv2d_nchw16c_bf16__avx512bf16(const pz_conv16c_desc *d, const float *restrict x,
                                            const float *restrict w, const float *restrict b,
                                            const float *restrict z, float *restrict y,
                                            int ith, int nth)
{
    pz_conv16c_drive(d, &pz_conv16c_ukset__avx512bf16, x, w, b, z, y, ith, nth);
}

/* ---- Winograd ------------------------------------------------------------- */

static void wb_in(const float *x, int64_t rs, float *v, int64_t vs)
{
    pz_wino_isa__avx512.in(x, rs, v, vs);
    UNROLL for (int xi = 0; xi < PZ_WINO_NPT; xi++)
        _mm256_storeu_si256((__m256i *)(v + xi * vs),
                            (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(v + xi * vs)));
}

PZ_ALWAYS_INLINE void wb_body(const pz_wino_gemm_args *a, const int NT, const int RM)
{
    __m512 acc[14][2];
    UNROLL for (int j = 0; j < NT; j++)
        UNROLL for (int r = 0; r < RM; r++) acc[j][r] = _mm512_setzero_ps();
    const float *pf = a->pf;
    int64_t pfn = a->pf_n;
    const int64_t half = a->us_cb / 2;
    for (int cb = 0; cb < a->ncb; cb++) {
        const uint16_t *v = (const uint16_t *)(a->v + cb * a->vs_cb);
        const uint16_t *u = (const uint16_t *)(a->u + cb * a->us_cb);
        for (int qp = 0; qp < 8; qp++) {
            __m512bh wv[2];
            UNROLL for (int r = 0; r < RM; r++)
                wv[r] = (__m512bh)_mm512_loadu_si512(u + (qp * RM + r) * 32);
            /* the driver's lines of the next slice of U, at its pace (two
             * q steps a pair), skipping those of a chunk's unused half */
            for (int k = 0; k < 2 * a->pf_q && pfn > 0; k++, pfn--, pf += 16)
                if (((pf - a->u) % a->us_cb + a->us_cb) % a->us_cb < half)
                    _mm_prefetch((const char *)pf, _MM_HINT_T1);
            UNROLL for (int j = 0; j < NT; j++) {
                const __m512bh xv = pair(v + j * 32 + 2 * qp);
                UNROLL for (int r = 0; r < RM; r++)
                    acc[j][r] = _mm512_dpbf16_ps(acc[j][r], xv, wv[r]);
            }
        }
    }
    UNROLL for (int r = 0; r < RM; r++)
        UNROLL for (int j = 0; j < NT; j++) _mm512_storeu_ps(a->m + r * a->ms_mb + j * 16, acc[j][r]);
}

#define WK(NT, RM) \
    static void wk_##NT##_##RM(const pz_wino_gemm_args *a) { wb_body(a, NT, RM); }
#define WK2(NT) WK(NT, 1) WK(NT, 2)
WK2(1) WK2(2) WK2(3) WK2(4) WK2(5) WK2(6) WK2(7)
WK2(8) WK2(9) WK2(10) WK2(11) WK2(12) WK2(13) WK2(14)
#define WROW(NT) {wk_##NT##_1, wk_##NT##_2}
static void (*const WGEMMS[15][2])(const pz_wino_gemm_args *) = {
    {NULL, NULL}, WROW(1), WROW(2), WROW(3), WROW(4), WROW(5), WROW(6), WROW(7),
    WROW(8), WROW(9), WROW(10), WROW(11), WROW(12), WROW(13), WROW(14),
};

static void wb_gemm(const pz_wino_gemm_args *a)
{
    WGEMMS[a->nt][a->rm - 1](a);
}

static void wb_out(const float *m, int64_t ms, const float *b, const float *z, float *y,
                   int64_t ys, int nh, int nw, const pz_act *act, int tail)
{
    pz_wino_isa__avx512.out(m, ms, b, z, y, ys, nh, nw, act, tail);
}

static const pz_wino_isa WB_AVX = {.in = wb_in, .gemm = wb_gemm, .out = wb_out};

void pz_f32_conv3x3_winograd_bf16__avx512bf16(const pz_conv16c_desc *d, const float *restrict x,
                                              const float *restrict u, const float *restrict b,
                                              const float *restrict z, float *restrict y,
                                              float *restrict scratch, int ith, int nth)
{
    pz_winograd_drive(d, &WB_AVX, x, u, b, z, y, scratch, ith, nth);
}

#endif
