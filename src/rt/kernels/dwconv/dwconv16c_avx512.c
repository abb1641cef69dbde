/* dwconv16c_avx512.c - depthwise 3x3 convolution in NCHW16c with AVX-512.
 *
 * The 16 channels of a block are the 16 lanes, so there is no reduction: a
 * pixel is 9 FMAs of input vectors by weight vectors. A worker takes its
 * output rows block by block; the block's 9 weights, bias and clamp bounds
 * stay in registers over all its rows. Rows go two at a time when both
 * strides are 1 or both 2 (sharing the loads of their common input rows;
 * other strides go one pixel at a time), in balanced tiles of up to 8
 * pixels (2 x RW accumulators). Each input vector is loaded once per tile
 * and feeds every accumulator that reads it (up to 6 FMAs): on this host
 * FMAs that each take a load from L1 run at about 1.4 a cycle, against 2.06
 * with none (an asm probe; README, "Depthwise 3x3"). Tiles
 * whose window lies inside the input have no branch and no mask; the first
 * and last tile of a row have code of their own in which the FMAs of the
 * columns in the padding are left out at compile time (or, for unusual
 * widths and pads, masked loads read them as zeros), so padding costs no
 * per-pixel path. Kernel rows in the top/bottom padding are skipped.
 * The tiles are small non-inlined functions (dwt_*), picked from tables by
 * shape (dw_pick). Small planes (7x7, 14x14 and 14x14 -> 7x7 stride 2, the
 * last stages of MobileNetV2) take a whole-plane function instead, fully
 * unrolled for the shape (dw_plane), and the row pairs of 28-wide planes
 * take band functions built on it (dw_band).
 * Note: the clamp of ReLU6 and the FMAs share the two 512-bit ALU ports, so
 * with a fused clip the ceiling is 9/11 of the FMA peak.
 */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

/* Pixels per register group of the whole-plane path (dw_plane): 14
 * accumulators + 9 weights + bias and clamp bounds; 17 spilled (measured). */
#define GMAX 14

/* What a tile needs: one struct per block, filled by dw_rows and dw_pass,
 * read by the tile functions. The tiles are separate (non-inlined)
 * functions, each with its compile-time shape: in one function that
 * inlined them all, the register allocator spilled weights and
 * accumulators to the stack (the 9 weights, up to 16 accumulators and the
 * clamp bounds just fit in the 32 ZMM registers of one small function). A
 * tile reloads the block's 9 weights and bias from L1: a dozen loads next
 * to its 36 to 120 input loads. */
typedef struct {
    const float *rows[5];    /* input rows of the tile at column 0 (NULL: padding) */
    int64_t iw0, W;          /* first input column of the tile; input width */
    const float *z;          /* residual at the tile's first output, or NULL */
    float *y;                /* output at the tile's first output */
    int64_t ys_row;          /* floats between the tile's two output rows */
    const float *w;          /* the block's 9 weight vectors (kh, kw) */
    const float *b;          /* its bias vector, or NULL */
    float lo, hi;            /* clamp bounds (act != 0) */
    int act;
    int partial;             /* the block has lanes past C: zero them */
    __mmask16 mask;          /* valid lanes of the block */
} dw_args;

typedef void (*dw_tile_fn)(const dw_args *a);

/* acc + v * w in the accumulating form (vfmadd231ps). With the intrinsic,
 * GCC often puts the sum in v's register and moves it back, a move for
 * about every other FMA in the 14x14 plane (bench/RESULTS.md, 'dwconv16c'). */
static inline __m512 dw_fma(__m512 acc, __m512 v, __m512 w)
{
    __asm__("vfmadd231ps %2, %1, %0" : "+v"(acc) : "v"(v), "v"(w));
    return acc;
}

/* An input vector loaded into a register once, for every FMA that reads
 * it: without the empty asm, GCC folds the load into each FMA as its
 * memory operand, which is what this file avoids. */
PZ_ALWAYS_INLINE __m512 dw_load(__m512 v)
{
    __asm__("" : "+v"(v));
    return v;
}

/* RW output pixels from input column iw0 (stride S) in each of ROWS (1 or 2)
 * output rows, the second ys_row floats after the first. The tile reads the
 * NV = (RW-1)*S + 3 columns iw0 .. iw0+NV-1 of the input rows rows[0 ..
 * (ROWS-1)*S + 2] (NULL: a row in the padding); output row rr uses input
 * rows rr*S + kh, so two output rows share the loads of their common rows.
 * MASKED reads the columns outside [0, W) as zeros through masked loads
 * (any tile); otherwise the first LZ and the last TZ columns are known at
 * compile time to lie outside and their FMAs are left out (interior tiles:
 * LZ = TZ = 0). */
PZ_ALWAYS_INLINE void dw_tile(const dw_args *a, const int RW, const int S, const int LZ,
                              const int TZ, const int MASKED, const int ROWS)
{
    const int NV = (RW - 1) * S + 3, NR = (ROWS - 1) * S + 3;
    const int64_t iw0 = a->iw0, W = a->W;
    __m512 wv[9];
    UNROLL for (int i = 0; i < 9; i++) wv[i] = _mm512_loadu_ps(a->w + i * 16);
    const __m512 bias = a->b ? _mm512_loadu_ps(a->b) : _mm512_setzero_ps();
    __m512 acc[2][8];
    UNROLL for (int rr = 0; rr < ROWS; rr++)
        UNROLL for (int j = 0; j < RW; j++) acc[rr][j] = bias;
    /* Per input row, a sweep over its columns: each input vector is loaded
     * once and feeds every accumulator that reads it (up to 3 kw x ROWS
     * kh), so a load serves 3 to 6 FMAs. Measured on this host: FMAs that
     * each take a load from L1 run at about 1.4 a cycle, against 1.9 with
     * a load for every third FMA and 2.06 with none. An accumulator gets its
     * taps in the order kh, then kw, the order of every other path, so a
     * pixel has the same bits whatever tile, row window or worker computes
     * it. */
    UNROLL for (int ir = 0; ir < NR; ir++) {
        const float *p = a->rows[ir];
        if (!p) continue;
        const float *pb = p + iw0 * 16;   /* constant offsets from here: one-uop loads */
        UNROLL for (int i = 0; i < NV; i++) {   /* the tile's input column */
            if (!MASKED && (i < LZ || i >= NV - TZ)) continue;
            __m512 v;
            if (MASKED) {
                int64_t iw = iw0 + i;
                int ok = iw >= 0 && iw < W;
                v = _mm512_maskz_loadu_ps(ok ? (__mmask16)0xffff : 0, p + (ok ? iw : 0) * 16);
            } else {
                v = _mm512_loadu_ps(pb + i * 16);
            }
            v = dw_load(v);
            UNROLL for (int kw = 0; kw < 3; kw++) {
                const int j = (i - kw) / S;   /* the output column that reads i with kw */
                if (i < kw || (i - kw) % S || j >= RW) continue;
                UNROLL for (int rr = 0; rr < ROWS; rr++) {
                    const int kh = ir - rr * S;
                    if (kh >= 0 && kh <= 2)
                        acc[rr][j] = dw_fma(acc[rr][j], v, wv[kh * 3 + kw]);
                }
            }
        }
    }
    /* the epilogue in steps over the tile, each condition tested once */
    float *y = a->y;
    const float *z = a->z;
    const int64_t ys_row = a->ys_row;
    if (z)
        UNROLL for (int rr = 0; rr < ROWS; rr++)
            UNROLL for (int j = 0; j < RW; j++)
                acc[rr][j] = _mm512_add_ps(acc[rr][j], _mm512_loadu_ps(z + rr * ys_row + j * 16));
    if (a->act) {
        const __m512 lo = _mm512_set1_ps(a->lo), hi = _mm512_set1_ps(a->hi);
        UNROLL for (int rr = 0; rr < ROWS; rr++)
            UNROLL for (int j = 0; j < RW; j++)
                acc[rr][j] = _mm512_min_ps(_mm512_max_ps(acc[rr][j], lo), hi);
    }
    if (a->partial) {
        const __mmask16 m = a->mask;
        UNROLL for (int rr = 0; rr < ROWS; rr++)
            UNROLL for (int j = 0; j < RW; j++) acc[rr][j] = _mm512_maskz_mov_ps(m, acc[rr][j]);
    }
    UNROLL for (int rr = 0; rr < ROWS; rr++)
        UNROLL for (int j = 0; j < RW; j++) _mm512_storeu_ps(y + rr * ys_row + j * 16, acc[rr][j]);
}

/* The tile instances: dwt_<S>_<ROWS>_<RW>_<LZ>_<TZ>_<MASKED>. Interior
 * tiles (LZ = TZ = 0) and masked ones for every width 1..8; for the usual
 * borders (widths 7 and 8, LZ and TZ up to 2) code of their own. */
#define DWT(S, R, RW, L, Z, M)                                           \
    static void dwt_##S##_##R##_##RW##_##L##_##Z##_##M(const dw_args *a) \
    {                                                                    \
        dw_tile(a, RW, S, L, Z, M, R);                                   \
    }
#define DWT_W(S, R, M) DWT(S, R, 1, 0, 0, M) DWT(S, R, 2, 0, 0, M) DWT(S, R, 3, 0, 0, M) \
    DWT(S, R, 4, 0, 0, M) DWT(S, R, 5, 0, 0, M) DWT(S, R, 6, 0, 0, M) DWT(S, R, 7, 0, 0, M) \
    DWT(S, R, 8, 0, 0, M)
#define DWT_B(S, R, RW) DWT(S, R, RW, 0, 1, 0) DWT(S, R, RW, 0, 2, 0) DWT(S, R, RW, 1, 0, 0) \
    DWT(S, R, RW, 1, 1, 0) DWT(S, R, RW, 1, 2, 0) DWT(S, R, RW, 2, 0, 0) DWT(S, R, RW, 2, 1, 0) \
    DWT(S, R, RW, 2, 2, 0)
#define DWT_ALL(S, R) DWT_W(S, R, 0) DWT_W(S, R, 1) DWT_B(S, R, 7) DWT_B(S, R, 8)
DWT_ALL(1, 1)
DWT_ALL(1, 2)
DWT_ALL(2, 1)
DWT_ALL(2, 2)

/* tables: [S - 1][ROWS - 1][rw] for interior and masked tiles;
 * [S - 1][ROWS - 1][rw - 7][lz][tz] for the borders */
#define N(S, R, RW, L, Z, M) dwt_##S##_##R##_##RW##_##L##_##Z##_##M
#define ROW_W(S, R, M) {NULL, N(S, R, 1, 0, 0, M), N(S, R, 2, 0, 0, M), N(S, R, 3, 0, 0, M), \
    N(S, R, 4, 0, 0, M), N(S, R, 5, 0, 0, M), N(S, R, 6, 0, 0, M), N(S, R, 7, 0, 0, M),      \
    N(S, R, 8, 0, 0, M)}
#define ROW_B(S, R, RW) {{N(S, R, RW, 0, 0, 0), N(S, R, RW, 0, 1, 0), N(S, R, RW, 0, 2, 0)}, \
    {N(S, R, RW, 1, 0, 0), N(S, R, RW, 1, 1, 0), N(S, R, RW, 1, 2, 0)},                     \
    {N(S, R, RW, 2, 0, 0), N(S, R, RW, 2, 1, 0), N(S, R, RW, 2, 2, 0)}}
static const dw_tile_fn DW_INTERIOR[2][2][9] = {{ROW_W(1, 1, 0), ROW_W(1, 2, 0)},
                                                {ROW_W(2, 1, 0), ROW_W(2, 2, 0)}};
static const dw_tile_fn DW_MASKED[2][2][9] = {{ROW_W(1, 1, 1), ROW_W(1, 2, 1)},
                                              {ROW_W(2, 1, 1), ROW_W(2, 2, 1)}};
static const dw_tile_fn DW_BORDER[2][2][2][3][3] = {
    {{ROW_B(1, 1, 7), ROW_B(1, 1, 8)}, {ROW_B(1, 2, 7), ROW_B(1, 2, 8)}},
    {{ROW_B(2, 1, 7), ROW_B(2, 1, 8)}, {ROW_B(2, 2, 7), ROW_B(2, 2, 8)}}};
#undef N
#undef ROW_W
#undef ROW_B

/* The tile function for width rw (1..8) whose columns [lz, nv - tz) are
 * inside the input (lz, tz clipped to 3). */
static inline dw_tile_fn dw_pick(int S, int rows, int rw, int lz, int tz)
{
    if (lz == 0 && tz == 0) return DW_INTERIOR[S - 1][rows - 1][rw];
    if (rw >= 7 && lz <= 2 && tz <= 2) return DW_BORDER[S - 1][rows - 1][rw - 7][lz][tz];
    return DW_MASKED[S - 1][rows - 1][rw];
}

/* ---- small planes: one fully unrolled function per shape ------------------ */

/* For the small feature maps of MobileNetV2's last stages (7x7 and 14x14
 * outputs) the row tiles above spend a good part of a block in per-tile
 * overhead (borders, rows in the padding, the tile's latency tail). There a
 * whole block plane is one function with the shape known at compile time:
 * the OH*OW outputs go in G groups of at most GMAX pixels held in registers,
 * either balanced groups in row-major order (7x7) or tiles of TR x TC
 * pixels (14x14: 2 x 7, which reads 4 x 9 input vectors for 126 FMAs where
 * a row of 14 reads 3 x 16; bench/RESULTS.md, 'dwconv16c'). A
 * group sweeps the input vectors it reads, each loaded once into a
 * register, and each feeds the group's pixels that read it. Which taps of a
 * pixel fall in the padding is known at compile time, so the padding costs
 * no branch, no mask and no FMA; the loads are at constant offsets from the
 * plane. An accumulator gets its taps in the order kh, then kw, as in the
 * row tiles: a pixel has the same bits on either path. */

/* The output pixel (oh * OW + ow) of pixel j of group g: TC = 0, the G
 * balanced row-major groups of NP pixels; TC > 0, tiles of TR x TC pixels in
 * row-major order of the tiles. */
PZ_ALWAYS_INLINE int dw_pix(int g, int j, int NP, int G, int OW, int TR, int TC)
{
    if (!TC) return g * NP / G + j;
    const int tw = OW / TC;
    return ((g / tw) * TR + j / TC) * OW + (g % tw) * TC + j % TC;
}

PZ_ALWAYS_INLINE void dw_plane(const dw_args *a, const float *restrict xb, const float *restrict zb,
                               float *restrict yb, const int H, const int W, const int OH,
                               const int OW, const int S, const int PT, const int PL,
                               const int TR, const int TC)
{
    const int NP = OH * OW, G = TC ? (OH / TR) * (OW / TC) : (NP + GMAX - 1) / GMAX;
    __m512 wv[9];
    UNROLL for (int i = 0; i < 9; i++) wv[i] = _mm512_loadu_ps(a->w + i * 16);
    const __m512 bias = a->b ? _mm512_loadu_ps(a->b) : _mm512_setzero_ps();
    UNROLL for (int g = 0; g < G; g++) {
        const int n = TC ? TR * TC : (g + 1) * NP / G - g * NP / G;   /* the group's pixels */
        const int pf = dw_pix(g, 0, NP, G, OW, TR, TC), pl = dw_pix(g, n - 1, NP, G, OW, TR, TC);
        __m512 acc[GMAX];
        UNROLL for (int j = 0; j < GMAX; j++)
            if (j < n) acc[j] = bias;
        /* the input rows the group reads; each of their vectors is loaded
         * once (a vector no pixel reads is never loaded: dead code) */
        const int ih0 = (pf / OW) * S - PT, ih1 = (pl / OW) * S - PT + 2;
        const float *xt = xb;
        __asm__ volatile("" : "+r"(xt));   /* no loads kept in registers across groups */
        UNROLL for (int ih = ih0 < 0 ? 0 : ih0; ih <= ih1 && ih < H; ih++)
            UNROLL for (int iw = 0; iw < W; iw++) {
                const __m512 v = dw_load(_mm512_loadu_ps(xt + (ih * W + iw) * 16));
                UNROLL for (int j = 0; j < GMAX; j++) {
                    if (j >= n) continue;
                    const int p = dw_pix(g, j, NP, G, OW, TR, TC), oh = p / OW, ow = p % OW;
                    const int kh = ih - (oh * S - PT), kw = iw - (ow * S - PL);
                    if (kh < 0 || kh > 2 || kw < 0 || kw > 2) continue;
                    acc[j] = dw_fma(acc[j], v, wv[kh * 3 + kw]);
                }
            }
        if (zb)
            UNROLL for (int j = 0; j < GMAX; j++)
                if (j < n)
                    acc[j] = _mm512_add_ps(
                        acc[j], _mm512_loadu_ps(zb + dw_pix(g, j, NP, G, OW, TR, TC) * 16));
        if (a->act) {
            const __m512 lo = _mm512_set1_ps(a->lo), hi = _mm512_set1_ps(a->hi);
            UNROLL for (int j = 0; j < GMAX; j++)
                if (j < n) acc[j] = _mm512_min_ps(_mm512_max_ps(acc[j], lo), hi);
        }
        if (a->partial)
            UNROLL for (int j = 0; j < GMAX; j++)
                if (j < n) acc[j] = _mm512_maskz_mov_ps(a->mask, acc[j]);
        UNROLL for (int j = 0; j < GMAX; j++)
            if (j < n) _mm512_storeu_ps(yb + dw_pix(g, j, NP, G, OW, TR, TC) * 16, acc[j]);
    }
}

typedef void (*dw_plane_fn)(const dw_args *a, const float *xb, const float *zb, float *yb);

/* An instance of dw_plane: name, then dw_plane's shape arguments (H, W, OH,
 * OW, S, PT, PL, TR, TC). */
#define DW_PLANE_FN(name, ...)                                                       \
    static void name(const dw_args *a, const float *xb, const float *zb, float *yb) \
    {                                                                                \
        dw_plane(a, xb, zb, yb, __VA_ARGS__);                                        \
    }

/* the shapes: MobileNetV2's 7x7 and 14x14 stride 1, and 14x14 -> 7x7 stride 2
 * (pads 1 at the top and left) */
DW_PLANE_FN(dw_plane_7_s1, 7, 7, 7, 7, 1, 1, 1, 0, 0)
DW_PLANE_FN(dw_plane_14_s1, 14, 14, 14, 14, 1, 1, 1, 2, 7)
DW_PLANE_FN(dw_plane_14_s2, 14, 14, 7, 7, 2, 1, 1, 0, 0)

/* The plane function for d's shape, or NULL. */
static dw_plane_fn dw_plane_for(const pz_conv16c_desc *d)
{
    if (d->pt != 1 || d->pl != 1 || d->h != d->w || d->oh != d->ow) return NULL;
    if (d->sh == 1 && d->sw == 1 && d->h == 7 && d->oh == 7) return dw_plane_7_s1;
    if (d->sh == 1 && d->sw == 1 && d->h == 14 && d->oh == 14) return dw_plane_14_s1;
    if (d->sh == 2 && d->sw == 2 && d->h == 14 && d->oh == 7) return dw_plane_14_s2;
    return NULL;
}

/* Row pairs of 28-wide planes (MobileNetV2's 28x28 stride 1 and 28x28 ->
 * 14x14 stride 2, pads 1): the pair's outputs through dw_plane, as one band
 * of 2 output rows in 2 x 7 tiles, with the weights in registers over the
 * band (the row tiles reload them and pay a call per tile; bench/RESULTS.md,
 * 'dwconv16c'). xb is the band's first input row; "top" has the padding
 * row above it, "bot" the one below it. */
typedef struct {
    dw_plane_fn top, mid, bot;   /* NULL: that pair goes through the row tiles */
    int nr;                      /* input rows of a middle pair */
} dw_band;

DW_PLANE_FN(dw_band_28_s1_top, 3, 28, 2, 28, 1, 1, 1, 2, 7)
DW_PLANE_FN(dw_band_28_s1_mid, 4, 28, 2, 28, 1, 0, 1, 2, 7)
DW_PLANE_FN(dw_band_28_s1_bot, 3, 28, 2, 28, 1, 0, 1, 2, 7)
DW_PLANE_FN(dw_band_28_s2_top, 4, 28, 2, 14, 2, 1, 1, 2, 7)
DW_PLANE_FN(dw_band_28_s2_mid, 5, 28, 2, 14, 2, 0, 1, 2, 7)

/* The band functions for d's shape; all NULL when none fits. */
static dw_band dw_band_for(const pz_conv16c_desc *d)
{
    dw_band bd = {NULL, NULL, NULL, 0};
    if (d->h != 28 || d->w != 28 || d->pt != 1 || d->pl != 1) return bd;
    if (d->sh == 1 && d->sw == 1 && d->oh == 28 && d->ow == 28)
        bd = (dw_band){dw_band_28_s1_top, dw_band_28_s1_mid, dw_band_28_s1_bot, 4};
    else if (d->sh == 2 && d->sw == 2 && d->oh == 14 && d->ow == 14)
        bd = (dw_band){dw_band_28_s2_top, dw_band_28_s2_mid, NULL, 5};
    return bd;
}

/* How a row of OW outputs is cut into nt balanced tiles of up to RWMAX
 * pixels: the first ext tiles have base + 1 pixels, the others base.
 * Computed once per block (divisions are slow next to a 7-pixel row). */
typedef struct {
    int64_t nt, base, ext;
} dw_tiling;

static inline dw_tiling dw_tiles(int64_t OW, int RWMAX)
{
    dw_tiling t;
    t.nt = (OW + RWMAX - 1) / RWMAX;
    t.base = t.nt ? OW / t.nt : 0;
    t.ext = t.nt ? OW % t.nt : 0;
    return t;
}

/* ROWS output rows from oh (input rows from oh*sh - pt) in the tiles of tl;
 * a holds the block's constants (weights, bias, epilogue). */
PZ_ALWAYS_INLINE void dw_pass(const pz_conv16c_desc *d, dw_args *a, const float *xb,
                              const float *zb, float *yb, int64_t oh, const int S,
                              const int ROWS, dw_tiling tl)
{
    const int64_t H = d->h, W = d->w, OW = d->ow, s = d->sw;
    const int64_t nt = tl.nt, base = tl.base, ext = tl.ext;
    const int SS = S ? S : 1;
    for (int i = 0; i < (ROWS - 1) * SS + 3; i++) {
        int64_t ih = oh * d->sh - d->pt + i;
        a->rows[i] = ih >= 0 && ih < H ? xb + ih * W * 16 : NULL;
    }
    float *yr = yb + oh * OW * 16;
    const float *zr = zb ? zb + oh * OW * 16 : NULL;
    int64_t ow = 0;
    for (int64_t t = 0; t < nt; t++) {
        int64_t rw = base + (t < ext);
        int64_t iw0 = ow * s - d->pl, nv = (rw - 1) * SS + 3;
        int64_t lz = iw0 < 0 ? -iw0 : 0, tz = iw0 + nv > W ? iw0 + nv - W : 0;
        a->iw0 = iw0;
        a->y = yr + ow * 16;
        a->z = zr ? zr + ow * 16 : NULL;
        dw_pick(SS, ROWS, (int)rw, (int)(lz < 3 ? lz : 3), (int)(tz < 3 ? tz : 3))(a);
        ow += rw;
    }
}

/* Rows [oh0, oh1) of one block: xb, yb, zb at the block's plane, two at a
 * time (S = 1 or 2: both strides equal to S). S = 0: any strides, one pixel
 * per tile, one row. */
PZ_ALWAYS_INLINE void dw_rows(const pz_conv16c_desc *d, const float *xb, const float *wb,
                              const float *bb, const float *zb, float *yb, int64_t valid,
                              int64_t oh0, int64_t oh1, dw_tiling tl, const dw_band *bd,
                              const int S)
{
    dw_args a;
    a.W = d->w;
    a.ys_row = d->ow * 16;
    a.w = wb;
    a.b = bb;
    a.act = d->act.kind == PZ_ACT_RELU || d->act.kind == PZ_ACT_CLIP;
    a.lo = d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f;
    a.hi = d->act.kind == PZ_ACT_CLIP ? d->act.hi : __builtin_inff();
    a.partial = valid < 16;
    a.mask = valid >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << valid) - 1);
    int64_t oh = oh0;
    if (S)
        for (; oh + 2 <= oh1; oh += 2) {
            /* a band function for the pair, by where its input rows lie */
            const int64_t ih0 = oh * S - d->pt;
            dw_plane_fn fn = NULL;
            if (bd->mid) {
                if (ih0 == -1)
                    fn = bd->top;
                else if (ih0 >= 0 && ih0 + bd->nr <= d->h)
                    fn = bd->mid;
                else if (ih0 >= 0 && ih0 + bd->nr == d->h + 1)
                    fn = bd->bot;
            }
            if (fn)
                fn(&a, xb + (ih0 < 0 ? 0 : ih0) * d->w * 16, zb ? zb + oh * d->ow * 16 : NULL,
                   yb + oh * d->ow * 16);
            else
                dw_pass(d, &a, xb, zb, yb, oh, S, 2, tl);
        }
    for (; oh < oh1; oh++) dw_pass(d, &a, xb, zb, yb, oh, S, 1, tl);
}

/* The worker's rows [lo, hi) of the (image, block, row) units, block by
 * block (no division per block: a 7x7 block is only a few hundred cycles).
 * No software prefetch of the next block: the hardware prefetchers keep up
 * (bench/RESULTS.md, 'dwconv16c'). */
PZ_ALWAYS_INLINE void dw_units(const pz_conv16c_desc *d, const float *x, const float *w,
                               const float *b, const float *z, float *y, int64_t lo, int64_t hi,
                               const int S)
{
    const int64_t cb = (d->c + 15) / 16, OH = d->oh;
    const int64_t xs = d->h * d->w * 16, ys = OH * d->ow * 16;
    const dw_tiling tl = dw_tiles(d->ow, S ? 8 : 1);
    const dw_band bd = dw_band_for(d);
    int64_t nb = lo / OH, oh0 = lo % OH, bc = nb % cb;
    for (int64_t u = lo; u < hi; nb++, oh0 = 0, bc = bc + 1 == cb ? 0 : bc + 1) {
        int64_t oh1 = OH < oh0 + (hi - u) ? OH : oh0 + (hi - u);
        dw_rows(d, x + nb * xs, w + bc * 144, b ? b + bc * 16 : NULL, z ? z + nb * ys : NULL,
                y + nb * ys, d->c - bc * 16, oh0, oh1, tl, &bd, S);
        u += oh1 - oh0;
    }
}

static void dw_units_s1(const pz_conv16c_desc *d, const float *x, const float *w,
                        const float *b, const float *z, float *y, int64_t lo, int64_t hi)
{
    dw_units(d, x, w, b, z, y, lo, hi, 1);
}

static void dw_units_s2(const pz_conv16c_desc *d, const float *x, const float *w,
                        const float *b, const float *z, float *y, int64_t lo, int64_t hi)
{
    dw_units(d, x, w, b, z, y, lo, hi, 2);
}

static void dw_units_any(const pz_conv16c_desc *d, const float *x, const float *w,
                         const float *b, const float *z, float *y, int64_t lo, int64_t hi)
{
    dw_units(d, x, w, b, z, y, lo, hi, 0);
}

/* The worker's units [lo, hi) when a plane function fits: whole blocks
 * through it, a block the worker has only part of through the rows. */
static void dw_units_plane(const pz_conv16c_desc *d, dw_plane_fn fn, const float *x,
                           const float *w, const float *b, const float *z, float *y,
                           int64_t lo, int64_t hi)
{
    const int64_t cb = (d->c + 15) / 16, OH = d->oh;
    const int64_t xs = d->h * d->w * 16, ys = OH * d->ow * 16;
    const dw_tiling tl = dw_tiles(d->ow, 8);
    const dw_band nob = {NULL, NULL, NULL, 0};
    const int S = d->sw;
    dw_args a;
    a.W = d->w;
    a.ys_row = d->ow * 16;
    a.act = d->act.kind == PZ_ACT_RELU || d->act.kind == PZ_ACT_CLIP;
    a.lo = d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f;
    a.hi = d->act.kind == PZ_ACT_CLIP ? d->act.hi : __builtin_inff();
    for (int64_t u = lo; u < hi;) {
        int64_t nb = u / OH, oh0 = u % OH, bc = nb % cb;
        int64_t oh1 = OH < oh0 + (hi - u) ? OH : oh0 + (hi - u);
        int64_t valid = d->c - bc * 16;
        if (oh0 == 0 && oh1 == OH) {
            a.w = w + bc * 144;
            a.b = b ? b + bc * 16 : NULL;
            a.partial = valid < 16;
            a.mask = valid >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << valid) - 1);
            fn(&a, x + nb * xs, z ? z + nb * ys : NULL, y + nb * ys);
        } else if (S == 1) {
            dw_rows(d, x + nb * xs, w + bc * 144, b ? b + bc * 16 : NULL, z ? z + nb * ys : NULL,
                    y + nb * ys, valid, oh0, oh1, tl, &nob, 1);
        } else {
            dw_rows(d, x + nb * xs, w + bc * 144, b ? b + bc * 16 : NULL, z ? z + nb * ys : NULL,
                    y + nb * ys, valid, oh0, oh1, tl, &nob, 2);
        }
        u += oh1 - oh0;
    }
}

/* The units [lo, hi) in the kernel's order (n, block, oh): whole blocks of
 * a plane function's shape through it, other units by kind of stride. */
static void dw_run(const pz_conv16c_desc *d, const float *x, const float *w, const float *b,
                   const float *z, float *y, int64_t lo, int64_t hi)
{
    dw_plane_fn plane = dw_plane_for(d);
    if (plane)
        dw_units_plane(d, plane, x, w, b, z, y, lo, hi);
    else if (d->sw == 1 && d->sh == 1)
        dw_units_s1(d, x, w, b, z, y, lo, hi);
    else if (d->sw == 2 && d->sh == 2)
        dw_units_s2(d, x, w, b, z, y, lo, hi);
    else
        dw_units_any(d, x, w, b, z, y, lo, hi);
}

void pz_f32_dwconv3x3_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                      const float *restrict w, const float *restrict b,
                                      const float *restrict z, float *restrict y, int ith,
                                      int nth)
{
    /* the small planes (7x7, 14x14), whose plane functions want whole
     * blocks, share the blocks; other shapes the rows */
    pz_dwconv3x3_drive(d, dw_run, pz_f32_act16c__avx512, dw_plane_for(d) != NULL, x, w, b, z, y, ith, nth);
}

#endif
