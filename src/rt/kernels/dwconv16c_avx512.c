/* dwconv16c_avx512.c - depthwise 3x3 convolution in NCHW16c with AVX-512.
 *
 * The 16 channels of a block are the 16 lanes, so there is no reduction: a
 * pixel is 9 FMAs of input vectors by weight vectors. A row (n, block, oh)
 * keeps the 9 weights in registers and runs along W in tiles of up to 8
 * pixels: for each valid kernel row the tile's (RW-1)*S + 3 input vectors are
 * loaded once and used by up to 3 pixels each. Interior tiles (all taps
 * inside the input) have no branch in their body; the few pixels whose window
 * crosses the left or right padding are done one by one with their valid kw
 * range. Kernel rows in the top/bottom padding are skipped per row.
 */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

typedef struct {
    const float *rows[3];    /* input rows for kh = 0..2, NULL when in the padding */
    __m512 w[9], bias, lo, hi;
    int act;
    __mmask16 mask;          /* valid lanes of this block */
} dw_row;

PZ_ALWAYS_INLINE __m512 dw_finish(const dw_row *r, __m512 v, const float *z)
{
    if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z));
    if (r->act) v = _mm512_min_ps(_mm512_max_ps(v, r->lo), r->hi);
    return _mm512_maskz_mov_ps(r->mask, v);
}

/* RW pixels from input column iw0 (all taps valid), stride S. */
PZ_ALWAYS_INLINE void dw_tile(const dw_row *r, int64_t iw0, const float *z, float *y,
                              const int RW, const int S)
{
    __m512 acc[8];
    UNROLL for (int j = 0; j < RW; j++) acc[j] = r->bias;
    UNROLL for (int kh = 0; kh < 3; kh++) {
        const float *p = r->rows[kh];
        if (!p) continue;
        p += iw0 * 16;
        __m512 v[17];
        UNROLL for (int i = 0; i < (RW - 1) * S + 3; i++) v[i] = _mm512_loadu_ps(p + i * 16);
        UNROLL for (int j = 0; j < RW; j++)
            UNROLL for (int kw = 0; kw < 3; kw++)
                acc[j] = _mm512_fmadd_ps(v[j * S + kw], r->w[kh * 3 + kw], acc[j]);
    }
    UNROLL for (int j = 0; j < RW; j++)
        _mm512_storeu_ps(y + j * 16, dw_finish(r, acc[j], z ? z + j * 16 : NULL));
}

#define DW_TILES(S)                                                                        \
    static void dw_tiles_s##S(const dw_row *r, int64_t iw0, int64_t n, const float *z,     \
                              float *y)                                                    \
    {                                                                                      \
        for (; n >= 8; n -= 8, iw0 += 8 * S, y += 128, z = z ? z + 128 : NULL)             \
            dw_tile(r, iw0, z, y, 8, S);                                                   \
        switch (n) {                                                                       \
        case 7: dw_tile(r, iw0, z, y, 7, S); break;                                        \
        case 6: dw_tile(r, iw0, z, y, 6, S); break;                                        \
        case 5: dw_tile(r, iw0, z, y, 5, S); break;                                        \
        case 4: dw_tile(r, iw0, z, y, 4, S); break;                                        \
        case 3: dw_tile(r, iw0, z, y, 3, S); break;                                        \
        case 2: dw_tile(r, iw0, z, y, 2, S); break;                                        \
        case 1: dw_tile(r, iw0, z, y, 1, S); break;                                        \
        default: break;                                                                    \
        }                                                                                  \
    }
DW_TILES(1)
DW_TILES(2)

/* One pixel whose window may cross the left/right padding. */
static void dw_pixel(const dw_row *r, const pz_conv16c_desc *d, const float *w, int64_t ow,
                     const float *z, float *y)
{
    int64_t iw0 = ow * d->sw - d->pl;
    int64_t kwlo = iw0 < 0 ? -iw0 : 0, kwhi = d->w - iw0 < 3 ? d->w - iw0 : 3;
    __m512 acc = r->bias;
    for (int kh = 0; kh < 3; kh++) {
        if (!r->rows[kh]) continue;
        for (int64_t kw = kwlo; kw < kwhi; kw++)
            acc = _mm512_fmadd_ps(_mm512_loadu_ps(r->rows[kh] + (iw0 + kw) * 16),
                                  _mm512_loadu_ps(w + (kh * 3 + kw) * 16), acc);
    }
    _mm512_storeu_ps(y, dw_finish(r, acc, z));
}

void pz_f32_dwconv3x3_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                      const float *restrict w, const float *restrict b,
                                      const float *restrict z, float *restrict y, int ith,
                                      int nth)
{
    const int64_t cb = (d->c + 15) / 16, H = d->h, W = d->w, OH = d->oh, OW = d->ow;
    /* pixels [ol, orr) have all three columns inside the input */
    int64_t ol = pz_ceil_div(d->pl, d->sw), orr = pz_floor_div(W - 3 + d->pl, d->sw) + 1;
    ol = ol > OW ? OW : ol;
    orr = orr < ol ? ol : orr > OW ? OW : orr;
    if (d->sw > 2) orr = ol;   /* other strides: pixel by pixel */

    /* one unit = one output row (n, block, oh) */
    int64_t lo, hi;
    pz_split(d->n * cb * OH, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t oh = u % OH, bc = u / OH % cb, n = u / (OH * cb);
        const float *xb = x + (n * cb + bc) * H * W * 16, *wb = w + bc * 9 * 16;
        dw_row r;
        for (int k = 0; k < 9; k++) r.w[k] = _mm512_loadu_ps(wb + k * 16);
        r.bias = b ? _mm512_loadu_ps(b + bc * 16) : _mm512_setzero_ps();
        r.act = d->act.kind != PZ_ACT_NONE;
        r.lo = _mm512_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f);
        r.hi = _mm512_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.hi : __builtin_inff());
        int64_t valid = d->c - bc * 16;
        r.mask = valid >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << valid) - 1);
        for (int kh = 0; kh < 3; kh++) {
            int64_t ih = oh * d->sh - d->pt + kh;
            r.rows[kh] = ih >= 0 && ih < H ? xb + ih * W * 16 : NULL;
        }
        int64_t yoff = u * OW * 16;
        float *yr = y + yoff;
        const float *zr = z ? z + yoff : NULL;

        for (int64_t ow = 0; ow < ol; ow++)
            dw_pixel(&r, d, wb, ow, zr ? zr + ow * 16 : NULL, yr + ow * 16);
        if (orr > ol) {
            int64_t iw0 = ol * d->sw - d->pl;
            if (d->sw == 1)
                dw_tiles_s1(&r, iw0, orr - ol, zr ? zr + ol * 16 : NULL, yr + ol * 16);
            else
                dw_tiles_s2(&r, iw0, orr - ol, zr ? zr + ol * 16 : NULL, yr + ol * 16);
        }
        for (int64_t ow = orr; ow < OW; ow++)
            dw_pixel(&r, d, wb, ow, zr ? zr + ow * 16 : NULL, yr + ow * 16);
    }
}

#endif
