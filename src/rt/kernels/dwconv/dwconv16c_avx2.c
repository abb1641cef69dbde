/* dwconv16c_avx2.c - depthwise 3x3 in NCHW16c with AVX2+FMA.
 *
 * As the AVX-512 version (dwconv16c_avx512.c), but one 8-lane half of the
 * block at a time. A worker's rows of a block go together, in bands of rows
 * (about 16 KB of input rows); a band's output rows are cut into balanced
 * column tiles of up to 6 pixels (stride 1 or 2; other strides one pixel a
 * tile), and a tile is a column strip over the band's rows: a small
 * non-inlined function (dwt_*) with its shape known at compile time. It
 * loads the half's 9 weights into registers once for the strip, and each
 * input vector once, into a register that feeds every accumulator reading
 * it (up to 3 FMAs): 9 weights, 6 accumulators and the input fill the 16
 * YMM registers, so the bias, residual, clamp bounds and lane mask are
 * memory operands. The first and last tile of a row have code of their own
 * in which the FMAs of the column in the left or right padding (pad 1) are
 * left out at compile time; any other tile that reaches into the padding
 * goes through a zero-padded copy of the columns it reads (dw_tile_copy).
 * Kernel rows in the top/bottom padding are skipped. An accumulator gets the
 * bias, then its taps in the order kh, then kw, as every other path.
 */
#include <string.h>

#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

/* Output pixels per tile, at most: 9 weights + RWMAX accumulators + the
 * input vector = 16 YMM registers. */
#define RWMAX 6

/* What a tile needs. A tile is a column strip: RW output columns over the
 * rows [oh0, oh1), the 9 weights in registers over all of them. */
typedef struct {
    const float *x;          /* the half's input plane */
    int64_t rs, H;           /* its row stride (floats) and rows */
    int64_t sh, pt;          /* stride and top pad along H */
    int64_t iw0;             /* first input column of the tile */
    int64_t oh0, oh1;        /* output rows */
    float *y;                /* output at row 0, the tile's first column */
    const float *z;          /* residual likewise, or NULL */
    int64_t ys;              /* output (and residual) row stride */
    const float *w;          /* the half's 9 weights (kh, kw), 16 floats apart */
    const float *b;          /* its 8 biases (zeros when the layer has none) */
    const float *lo, *hi;    /* clamp bounds, 8 lanes each (act != 0) */
    const float *mask;       /* valid lanes as all-ones floats (partial != 0) */
    int act, partial;
} dw_args;

typedef void (*dw_tile_fn)(const dw_args *a);

/* acc + v * w in the accumulating form, and an input kept in its register
 * (as in dwconv16c_avx512.c: without the asm GCC folds the load into each
 * FMA as a memory operand, or moves the sum around). */
static inline __m256 dw_fma(__m256 acc, __m256 v, __m256 w)
{
    __asm__("vfmadd231ps %2, %1, %0" : "+x"(acc) : "x"(v), "x"(w));
    return acc;
}

PZ_ALWAYS_INLINE __m256 dw_load(__m256 v)
{
    __asm__("" : "+x"(v));
    return v;
}

/* RW output pixels in each row of [oh0, oh1) from input column iw0, stride
 * S: a row reads the NV = (RW-1)*S + 3 columns iw0 .. iw0+NV-1 of its three
 * input rows; the first LZ and the last TZ of them lie in the padding and
 * are skipped. The 9 weights stay in registers over the rows, with RW
 * accumulators and the input vector; the bias, residual, clamp bounds and
 * lane mask are memory operands. */
PZ_ALWAYS_INLINE void dw_tile(const dw_args *a, const int RW, const int S, const int LZ,
                              const int TZ)
{
    const int NV = (RW - 1) * S + 3;
    __m256 wv[9], acc[RWMAX];
    UNROLL for (int i = 0; i < 9; i++) wv[i] = _mm256_loadu_ps(a->w + i * 16);
    const float *x = a->x + a->iw0 * 16;   /* constant offsets from a row's start */
    const int64_t rs = a->rs, H = a->H, sh = a->sh, ys = a->ys;
    for (int64_t oh = a->oh0; oh < a->oh1; oh++) {
        const int64_t ih0 = oh * sh - a->pt;
        UNROLL for (int j = 0; j < RW; j++) acc[j] = _mm256_loadu_ps(a->b);
        UNROLL for (int kh = 0; kh < 3; kh++) {
            if (ih0 + kh < 0 || ih0 + kh >= H) continue;
            const float *pb = x + (ih0 + kh) * rs;
            UNROLL for (int i = LZ; i < NV - TZ; i++) {
                const __m256 v = dw_load(_mm256_loadu_ps(pb + i * 16));
                UNROLL for (int kw = 0; kw < 3; kw++) {
                    const int j = (i - kw) / S;   /* the output column that reads i with kw */
                    if (i >= kw && (i - kw) % S == 0 && j < RW)
                        acc[j] = dw_fma(acc[j], v, wv[kh * 3 + kw]);
                }
            }
        }
        /* the epilogue in steps, each condition tested once */
        float *y = a->y + oh * ys;
        if (a->z)
            UNROLL for (int j = 0; j < RW; j++)
                acc[j] = _mm256_add_ps(acc[j], _mm256_loadu_ps(a->z + oh * ys + j * 16));
        if (a->act)
            UNROLL for (int j = 0; j < RW; j++)
                acc[j] = _mm256_min_ps(_mm256_max_ps(acc[j], _mm256_loadu_ps(a->lo)),
                                       _mm256_loadu_ps(a->hi));
        if (a->partial)
            UNROLL for (int j = 0; j < RW; j++)
                acc[j] = _mm256_and_ps(acc[j], _mm256_loadu_ps(a->mask));
        UNROLL for (int j = 0; j < RW; j++) _mm256_storeu_ps(y + j * 16, acc[j]);
    }
}

/* The instances dwt_<S>_<RW>_<LZ>_<TZ>: for strides 1 and 2, widths 1..6,
 * a column in the padding on the left, the right, both or neither. */
#define DWT(S, RW, L, Z) \
    static void dwt_##S##_##RW##_##L##_##Z(const dw_args *a) { dw_tile(a, RW, S, L, Z); }
#define DWT_B(S, RW) DWT(S, RW, 0, 0) DWT(S, RW, 0, 1) DWT(S, RW, 1, 0) DWT(S, RW, 1, 1)
#define DWT_S(S) DWT_B(S, 1) DWT_B(S, 2) DWT_B(S, 3) DWT_B(S, 4) DWT_B(S, 5) DWT_B(S, 6)
DWT_S(1)
DWT_S(2)
#define N(S, RW) {{dwt_##S##_##RW##_0_0, dwt_##S##_##RW##_0_1}, \
    {dwt_##S##_##RW##_1_0, dwt_##S##_##RW##_1_1}}
#define ROW(S) {{{NULL}}, N(S, 1), N(S, 2), N(S, 3), N(S, 4), N(S, 5), N(S, 6)}
/* [S - 1][rw][lz][tz] */
static const dw_tile_fn DW_TILES[2][RWMAX + 1][2][2] = {ROW(1), ROW(2)};
#undef N
#undef ROW
#undef DWT_S
#undef DWT_B
#undef DWT

/* A tile reaching further into the padding (pads above 1, or a row narrower
 * than the kernel), row by row: the input rows and columns it reads copied,
 * with zeros for the columns outside [0, W) (rows outside [0, H) are left
 * out, as in the tiles), and the interior tile run on the copy. */
static void dw_tile_copy(const dw_args *a, dw_tile_fn interior, int64_t W, int nv)
{
    float buf[3][2 * RWMAX + 1][16];   /* pixels 16 floats apart, as in a block */
    for (int64_t oh = a->oh0; oh < a->oh1; oh++) {
        const int64_t ih0 = oh * a->sh - a->pt;
        const int64_t r0 = ih0 > 0 ? ih0 : 0, r1 = ih0 + 3 < a->H ? ih0 + 3 : a->H;
        for (int64_t ih = r0; ih < r1; ih++)
            for (int i = 0; i < nv; i++) {
                const int64_t iw = a->iw0 + i;
                for (int l = 0; l < 8; l++)
                    buf[ih - r0][i][l] = iw >= 0 && iw < W ? a->x[ih * a->rs + iw * 16 + l] : 0.0f;
            }
        /* buf as a plane of the valid rows r0 .. r1-1, read by output row 0
         * with the top pad that puts kernel row kh on buf row kh - (r0 - ih0) */
        dw_args c = *a;
        c.x = &buf[0][0][0];
        c.rs = (2 * RWMAX + 1) * 16;
        c.H = r1 - r0;
        c.sh = 1;
        c.pt = r0 - ih0;
        c.iw0 = 0;
        c.oh0 = 0;
        c.oh1 = 1;
        c.y = a->y + oh * a->ys;
        c.z = a->z ? a->z + oh * a->ys : NULL;
        interior(&c);
    }
}

/* Rows [oh0, oh1) of one half-block: k holds the half's planes, weights and
 * epilogue. The rows go in bands whose input rows take about 16 KB (at least
 * 4 rows: a whole 14x14 plane, 9 rows of 28); in a band the row's tiles
 * (balanced widths) go one after the other, each a column strip over the
 * band's rows. Strips over all the rows of a large plane run slower than
 * row by row, bands faster than both (bench/RESULTS.md, 'dwconv16c'). */
static void dw_rows(const pz_conv16c_desc *d, const dw_args *k, int64_t oh0, int64_t oh1)
{
    const int64_t W = d->w, OW = d->ow, s = d->sw;
    const int S = s == 1 || s == 2 ? (int)s : 1;   /* tiles of one pixel: any stride */
    const int rwmax = s == 1 || s == 2 ? RWMAX : 1;
    const int64_t nt = (OW + rwmax - 1) / rwmax, base = OW / nt, ext = OW % nt;
    const int64_t row_bytes = W * 64 * d->sh, band = row_bytes * 4 < 16384 ? 16384 / row_bytes : 4;
    dw_args a = *k;
    for (int64_t b0 = oh0; b0 < oh1; b0 += band) {
        a.oh0 = b0;
        a.oh1 = b0 + band < oh1 ? b0 + band : oh1;
        int64_t ow = 0;
        for (int64_t t = 0; t < nt; t++) {
            const int rw = (int)(base + (t < ext));
            const int64_t iw0 = ow * s - d->pl, nv = (int64_t)(rw - 1) * S + 3;
            const int64_t lz = iw0 < 0 ? -iw0 : 0, tz = iw0 + nv > W ? iw0 + nv - W : 0;
            a.iw0 = iw0;
            a.y = k->y + ow * 16;
            a.z = k->z ? k->z + ow * 16 : NULL;
            if (lz <= 1 && tz <= 1 && lz + tz < nv) DW_TILES[S - 1][rw][lz][tz](&a);
            else dw_tile_copy(&a, DW_TILES[S - 1][rw][0][0], W, (int)nv);
            ow += rw;
        }
    }
}

/* The units [lo, hi) in the kernel's order (n, block, oh): a block's rows
 * go together, each block in two halves of 8 channels. */
static void dw_run(const pz_conv16c_desc *d, const float *x, const float *w, const float *b,
                   const float *z, float *y, int64_t lo, int64_t hi)
{
    const int64_t cb = (d->c + 15) / 16, OH = d->oh;
    const int clip = d->act.kind == PZ_ACT_CLIP;
    float bounds[2][8], mask[8], zero[8] = {0};
    for (int l = 0; l < 8; l++) {
        bounds[0][l] = clip ? d->act.lo : 0.0f;
        bounds[1][l] = clip ? d->act.hi : __builtin_inff();
    }
    for (int64_t u = lo; u < hi;) {
        int64_t oh0 = u % OH, nb = u / OH, bc = nb % cb;
        int64_t oh1 = OH < oh0 + (hi - u) ? OH : oh0 + (hi - u);
        int64_t valid = d->c - bc * 16;
        for (int h = 0; h < 2; h++) {
            dw_args k = {0};
            k.x = x + nb * d->h * d->w * 16 + h * 8;
            k.rs = d->w * 16;
            k.H = d->h;
            k.sh = d->sh;
            k.pt = d->pt;
            k.y = y + nb * OH * d->ow * 16 + h * 8;
            k.z = z ? z + nb * OH * d->ow * 16 + h * 8 : NULL;
            k.ys = d->ow * 16;
            k.w = w + bc * 144 + h * 8;
            k.b = b ? b + bc * 16 + h * 8 : zero;
            k.act = d->act.kind == PZ_ACT_RELU || d->act.kind == PZ_ACT_CLIP;
            k.lo = bounds[0];
            k.hi = bounds[1];
            k.partial = valid < 16;
            for (int l = 0; l < 8; l++) {
                uint32_t bits = h * 8 + l < valid ? 0xffffffffu : 0;
                memcpy(&mask[l], &bits, sizeof bits);
            }
            k.mask = mask;
            dw_rows(d, &k, oh0, oh1);
        }
        u += oh1 - oh0;
    }
}

void pz_f32_dwconv3x3_nchw16c__avx2(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith,
                                    int nth)
{
    pz_dwconv3x3_drive(d, dw_run, pz_f32_act16c__avx2, 0, x, w, b, z, y, ith, nth);
}

#endif
