/* dwconv16c_avx512.c - depthwise 3x3 convolution in NCHW16c with AVX-512.
 *
 * The 16 channels of a block are the 16 lanes, so there is no reduction: a
 * pixel is 9 FMAs of input vectors by weight vectors. A worker takes its
 * output rows block by block; the block's 9 weights, bias and clamp bounds
 * stay in registers over all its rows. Rows go two at a time when both
 * strides are 1 or both 2 (sharing the loads of their common input rows;
 * other strides go one pixel at a time), in balanced tiles of up to 8
 * pixels (2 x RW accumulators, swept once per input row and kernel column
 * so that the FMA latency is hidden). Tiles
 * whose window lies inside the input have no branch and no mask; the first
 * and last tile of a row have code of their own in which the FMAs of the
 * columns in the padding are left out at compile time (or, for unusual
 * widths and pads, masked loads read them as zeros), so padding costs no
 * per-pixel path. Kernel rows in the top/bottom padding are skipped.
 * Note: the clamp of ReLU6 and the FMAs share the two 512-bit ALU ports, so
 * with a fused clip the ceiling is 9/11 of the FMA peak.
 */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

typedef struct {
    __m512 w[9], bias, lo, hi;
    int act;
    int partial;             /* the block has lanes past C: zero them */
    __mmask16 mask;          /* valid lanes of the block */
} dw_consts;

/* RW output pixels from input column iw0 (stride S) in each of ROWS (1 or 2)
 * output rows, the second ys_row floats after the first. The tile reads the
 * NV = (RW-1)*S + 3 columns iw0 .. iw0+NV-1 of the input rows rows[0 ..
 * (ROWS-1)*S + 2] (NULL: a row in the padding); output row rr uses input
 * rows rr*S + kh, so two output rows share the loads of their common rows.
 * MASKED reads the columns outside [0, W) as zeros through masked loads
 * (any tile); otherwise the first LZ and the last TZ columns are known at
 * compile time to lie outside and their FMAs are left out (interior tiles:
 * LZ = TZ = 0). */
PZ_ALWAYS_INLINE void dw_tile(const dw_consts *k, const float *const *rows, int64_t iw0,
                              int64_t W, const float *z, float *y, int64_t ys_row, const int RW,
                              const int S, const int LZ, const int TZ, const int MASKED,
                              const int ROWS)
{
    const int NV = (RW - 1) * S + 3, NR = (ROWS - 1) * S + 3;
    __m512 acc[2][8];
    UNROLL for (int rr = 0; rr < ROWS; rr++)
        UNROLL for (int j = 0; j < RW; j++) acc[rr][j] = k->bias;
    /* Per input row and kernel column kw, a sweep over the tile's outputs:
     * consecutive FMAs go to different accumulators (2 x RW of them between
     * two FMAs into one), so the FMA latency is hidden. An input vector is
     * loaded once per kw (3 times, from L1) and feeds the tile's output rows
     * that read that input row. An accumulator gets its taps in the order
     * kh, then kw, the order of every other path, so a pixel has the same
     * bits whatever tile, row window or worker computes it. */
    UNROLL for (int ir = 0; ir < NR; ir++) {
        const float *p = rows[ir];
        if (!p) continue;
        UNROLL for (int kw = 0; kw < 3; kw++)
            UNROLL for (int j = 0; j < RW; j++) {
                const int i = j * S + kw;   /* the tile's input column */
                if (!MASKED && (i < LZ || i >= NV - TZ)) continue;
                __m512 v;
                if (MASKED) {
                    int64_t iw = iw0 + i;
                    int ok = iw >= 0 && iw < W;
                    v = _mm512_maskz_loadu_ps(ok ? (__mmask16)0xffff : 0, p + (ok ? iw : 0) * 16);
                } else {
                    v = _mm512_loadu_ps(p + (iw0 + i) * 16);
                }
                UNROLL for (int rr = 0; rr < ROWS; rr++) {
                    const int kh = ir - rr * S;
                    if (kh >= 0 && kh <= 2)
                        acc[rr][j] = _mm512_fmadd_ps(v, k->w[kh * 3 + kw], acc[rr][j]);
                }
            }
    }
    UNROLL for (int rr = 0; rr < ROWS; rr++)
        UNROLL for (int j = 0; j < RW; j++) {
            __m512 v = acc[rr][j];
            if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z + rr * ys_row + j * 16));
            if (k->act) v = _mm512_min_ps(_mm512_max_ps(v, k->lo), k->hi);
            if (k->partial) v = _mm512_maskz_mov_ps(k->mask, v);
            _mm512_storeu_ps(y + rr * ys_row + j * 16, v);
        }
}

/* One tile of width rw (1..8) whose columns [lz, nv - tz) are inside the
 * input: interior tiles and the usual borders (rw 7 or 8, lz and tz up to 2)
 * have their own code, other tiles take the masked one. */
PZ_ALWAYS_INLINE void dw_tile_any(const dw_consts *k, const float *const *rows, int64_t iw0,
                                  int64_t W, const float *z, float *y, int64_t ys_row, int rw,
                                  const int S, int lz, int tz, const int ROWS)
{
#define T(R, L, Z, M) dw_tile(k, rows, iw0, W, z, y, ys_row, R, S, L, Z, M, ROWS)
#define INTERIOR(R) case R: T(R, 0, 0, 0); return;
#define MASKED(R) case R: T(R, 0, 0, 1); return;
#define BORDER(R, L, Z) case (R) * 9 + (L) * 3 + (Z): T(R, L, Z, 0); return;
#define BORDERS(R) BORDER(R, 0, 1) BORDER(R, 0, 2) BORDER(R, 1, 0) BORDER(R, 1, 1) \
    BORDER(R, 1, 2) BORDER(R, 2, 0) BORDER(R, 2, 1) BORDER(R, 2, 2)
    if (lz == 0 && tz == 0) {
        switch (rw) { INTERIOR(1) INTERIOR(2) INTERIOR(3) INTERIOR(4) INTERIOR(5) INTERIOR(6)
                      INTERIOR(7) INTERIOR(8) default: return; }
    }
    if ((rw == 7 || rw == 8) && lz <= 2 && tz <= 2) {
        switch (rw * 9 + lz * 3 + tz) { BORDERS(7) BORDERS(8) default: return; }
    }
    switch (rw) { MASKED(1) MASKED(2) MASKED(3) MASKED(4) MASKED(5) MASKED(6) MASKED(7)
                  MASKED(8) default: return; }
#undef T
#undef INTERIOR
#undef MASKED
#undef BORDER
#undef BORDERS
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

/* ROWS output rows from oh (input rows from oh*sh - pt) in the tiles of tl. */
PZ_ALWAYS_INLINE void dw_pass(const pz_conv16c_desc *d, const dw_consts *k, const float *xb,
                              const float *zb, float *yb, int64_t oh, const int S,
                              const int ROWS, dw_tiling tl)
{
    const int64_t H = d->h, W = d->w, OW = d->ow, s = d->sw;
    const int64_t nt = tl.nt, base = tl.base, ext = tl.ext;
    const float *rows[5];
    for (int i = 0; i < (ROWS - 1) * (S ? S : 1) + 3; i++) {
        int64_t ih = oh * d->sh - d->pt + i;
        rows[i] = ih >= 0 && ih < H ? xb + ih * W * 16 : NULL;
    }
    float *yr = yb + oh * OW * 16;
    const float *zr = zb ? zb + oh * OW * 16 : NULL;
    int64_t ow = 0;
    for (int64_t t = 0; t < nt; t++) {
        int64_t rw = base + (t < ext);
        int64_t iw0 = ow * s - d->pl, nv = (rw - 1) * (S ? S : 1) + 3;
        int64_t lz = iw0 < 0 ? -iw0 : 0, tz = iw0 + nv > W ? iw0 + nv - W : 0;
        dw_tile_any(k, rows, iw0, W, zr ? zr + ow * 16 : NULL, yr + ow * 16, OW * 16, (int)rw,
                    S ? S : 1, (int)(lz < 3 ? lz : 3), (int)(tz < 3 ? tz : 3), ROWS);
        ow += rw;
    }
}

/* Rows [oh0, oh1) of one block: xb, yb, zb at the block's plane, two at a
 * time (S = 1 or 2: both strides equal to S). S = 0: any strides, one pixel
 * per tile, one row. */
PZ_ALWAYS_INLINE void dw_rows(const pz_conv16c_desc *d, const float *xb, const float *wb,
                              const float *bb, const float *zb, float *yb, int64_t valid,
                              int64_t oh0, int64_t oh1, dw_tiling tl, const int S)
{
    dw_consts k;
    UNROLL for (int i = 0; i < 9; i++) k.w[i] = _mm512_loadu_ps(wb + i * 16);
    k.bias = bb ? _mm512_loadu_ps(bb) : _mm512_setzero_ps();
    k.act = d->act.kind != PZ_ACT_NONE;
    k.lo = _mm512_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f);
    k.hi = _mm512_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.hi : __builtin_inff());
    k.partial = valid < 16;
    k.mask = valid >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << valid) - 1);
    int64_t oh = oh0;
    if (S)
        for (; oh + 2 <= oh1; oh += 2) dw_pass(d, &k, xb, zb, yb, oh, S, 2, tl);
    for (; oh < oh1; oh++) dw_pass(d, &k, xb, zb, yb, oh, S, 1, tl);
}

/* The worker's rows [lo, hi) of the (image, block, row) units, block by
 * block (no division per block: a 7x7 block is only a few hundred cycles).
 * Note: software prefetching of the next block was measured slower (the
 * hardware prefetchers keep up; bench/kernels). */
PZ_ALWAYS_INLINE void dw_units(const pz_conv16c_desc *d, const float *x, const float *w,
                               const float *b, const float *z, float *y, int64_t lo, int64_t hi,
                               const int S)
{
    const int64_t cb = (d->c + 15) / 16, OH = d->oh;
    const int64_t xs = d->h * d->w * 16, ys = OH * d->ow * 16;
    const dw_tiling tl = dw_tiles(d->ow, S ? 8 : 1);
    int64_t nb = lo / OH, oh0 = lo % OH, bc = nb % cb;
    for (int64_t u = lo; u < hi; nb++, oh0 = 0, bc = bc + 1 == cb ? 0 : bc + 1) {
        int64_t oh1 = OH < oh0 + (hi - u) ? OH : oh0 + (hi - u);
        dw_rows(d, x + nb * xs, w + bc * 144, b ? b + bc * 16 : NULL, z ? z + nb * ys : NULL,
                y + nb * ys, d->c - bc * 16, oh0, oh1, tl, S);
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

void pz_f32_dwconv3x3_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                      const float *restrict w, const float *restrict b,
                                      const float *restrict z, float *restrict y, int ith,
                                      int nth)
{
    /* one unit = one output row (n, block, oh); a worker's rows of one block
     * go together */
    int64_t lo, hi;
    pz_split(d->n * ((d->c + 15) / 16) * d->oh, ith, nth, &lo, &hi);
    if (lo >= hi) return;
    if (d->sw == 1 && d->sh == 1)
        dw_units_s1(d, x, w, b, z, y, lo, hi);
    else if (d->sw == 2 && d->sh == 2)
        dw_units_s2(d, x, w, b, z, y, lo, hi);
    else
        dw_units_any(d, x, w, b, z, y, lo, hi);
}

#endif
