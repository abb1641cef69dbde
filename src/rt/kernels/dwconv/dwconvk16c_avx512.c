/* dwconvk16c_avx512.c - the any-size depthwise conv on NCHW16c with AVX-512
 * (see dwconvk16c.h): the scalar twin's sums in the same order, so the same
 * bits. A row's interior pixels (every tap inside the input) go in tiles of
 * TW accumulators (the row's last tile overlapping the one before when the
 * interior is not a multiple of TW); the rest one by one with the taps
 * tested. Stride 1 and kernels 3, 5 or 7 wide load each input vector of a
 * tile once per kernel row (tile_s1); other shapes load a weight vector per
 * tap and an input per FMA (bench/RESULTS.md, 'dwconvk16c: row tiles'). */
#include <math.h>

#include "rt/kernels/dwconv/dwconvk16c.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#include "rt/kernels/vmath_avx512.h"

#define TW 8

typedef struct {
    __m512 lo, hi;
    int act;
    __mmask16 keep;          /* lanes to keep (the block's real channels) */
    const pz_act *a;         /* act 2: an activation that is not a clamp */
    __m512 slope;            /* act 3: PRELU, the block's slopes */
} epi;

/* acc + v * w in the accumulating form, and an input vector kept in a
 * register for all its FMAs (as in dwconv16c_avx512.c: without them GCC
 * folds the load into every FMA, and FMAs that each take a load run at
 * about 1.4 a cycle on the host we measure, against 2 without). */
static inline __m512 dwk_fma(__m512 acc, __m512 v, __m512 w)
{
    __asm__("vfmadd231ps %2, %1, %0" : "+v"(acc) : "v"(v), "v"(w));
    return acc;
}

static inline __m512 dwk_load(const float *p)
{
    __m512 v = _mm512_loadu_ps(p);
    __asm__("" : "+v"(v));
    return v;
}

/* The taps of a tile of TW interior pixels for stride 1, dilation 1 and a
 * kernel KW wide: per kernel row, the row's KW weight vectors in registers
 * and each of the TW + KW - 1 input vectors loaded once, feeding up to KW
 * accumulators. An accumulator gets its taps in (kh, kw) order, as the
 * scalar twin: the same bits. row0: the tile's first input column of kernel
 * row kh0; rs: floats between kernel rows. */
static inline __attribute__((always_inline)) void tile_s1(__m512 acc[TW], const float *row0,
                                                          int64_t rs, const float *wp,
                                                          int64_t kh0, int64_t kh1, const int KW)
{
    for (int64_t kh = kh0; kh < kh1; kh++) {
        const float *row = row0 + (kh - kh0) * rs;
        __m512 wv[7];
        _Pragma("GCC unroll 8") for (int kw = 0; kw < KW; kw++)
            wv[kw] = _mm512_loadu_ps(wp + (kh * KW + kw) * 16);
        _Pragma("GCC unroll 16") for (int i = 0; i < TW + KW - 1; i++) {
            const __m512 v = dwk_load(row + i * 16);
            _Pragma("GCC unroll 8") for (int kw = 0; kw < KW; kw++) {
                const int j = i - kw;
                if (j >= 0 && j < TW) acc[j] = dwk_fma(acc[j], v, wv[kw]);
            }
        }
    }
}

/* The taps of the tile of TW interior pixels from output column ow, rows
 * [kh0, kh1) of the kernel inside the input: tile_s1 for its shapes, else
 * a weight vector per tap and a load per FMA. */
static inline void tile(const pz_conv16c_desc *d, __m512 acc[TW], const float *xp,
                        const float *wp, int64_t ih0, int64_t kh0, int64_t kh1, int64_t ow,
                        int s1)
{
    const int64_t W = d->w;
    const float *r0 = xp + (ih0 + kh0) * W * 16 + (ow - d->pl) * 16;   /* s1: row kh0 */
    switch (s1 ? d->kw : 0) {
    case 3: tile_s1(acc, r0, W * 16, wp, kh0, kh1, 3); return;
    case 5: tile_s1(acc, r0, W * 16, wp, kh0, kh1, 5); return;
    case 7: tile_s1(acc, r0, W * 16, wp, kh0, kh1, 7); return;
    default: break;
    }
    for (int64_t kh = kh0; kh < kh1; kh++) {
        const float *row = xp + (ih0 + kh * d->dh) * W * 16 + (ow * d->sw - d->pl) * 16;
        for (int64_t kw = 0; kw < d->kw; kw++) {
            const __m512 wv = _mm512_loadu_ps(wp + (kh * d->kw + kw) * 16);
            const float *xv = row + kw * d->dw * 16;
            for (int j = 0; j < TW; j++)
                acc[j] = _mm512_fmadd_ps(_mm512_loadu_ps(xv + j * d->sw * 16), wv, acc[j]);
        }
    }
}

static inline void finish(const epi *e, __m512 v, const float *z, float *y)
{
    if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z));
    if (e->act == 1) v = _mm512_min_ps(_mm512_max_ps(v, e->lo), e->hi);
    else if (e->act == 3)
        v = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v, e->slope);
    else if (e->act) v = pz_act16_ps(e->a, v);
    _mm512_storeu_ps(y, _mm512_maskz_mov_ps(e->keep, v));
}

void pz_f32_dwconvk_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith, int nth)
{
    const int64_t cb = (d->c + 15) / 16, kk = (int64_t)d->kh * d->kw, W = d->w;
    const int valid = (int)(d->c - (cb - 1) * 16);
    epi e = {_mm512_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f),
             _mm512_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.hi : INFINITY),
             d->act.kind == PZ_ACT_NONE          ? 0
             : pz_act_is_clamp(d->act.kind)      ? 1
             : d->act.kind == PZ_ACT_PRELU       ? 3
                                                 : 2,
             0xffff, &d->act, _mm512_setzero_ps()};
    int64_t ol, orr;
    pz_dwk16c_interior(d, &ol, &orr);
    const int s1 = d->sw == 1 && d->dw == 1 && d->dh == 1;   /* tile_s1's shapes */
    int64_t u0, u1;
    pz_split(d->n * cb * d->oh, ith, nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        int64_t oh = u % d->oh, blk = u / d->oh % cb, plane = u / d->oh;
        const float *xp = x + plane * d->h * W * 16, *wp = w + blk * kk * 16;
        const __m512 bv = b ? _mm512_loadu_ps(b + blk * 16) : _mm512_setzero_ps();
        e.keep = blk == cb - 1 && valid < 16 ? (__mmask16)((1u << valid) - 1) : 0xffff;
        if (e.act == 3) e.slope = _mm512_maskz_loadu_ps(e.keep, d->act.slope + blk * 16);
        int64_t ih0 = oh * d->sh - d->pt, kh0 = 0, kh1 = d->kh;
        while (kh0 < kh1 && ih0 + kh0 * d->dh < 0) kh0++;
        while (kh1 > kh0 && ih0 + (kh1 - 1) * d->dh >= d->h) kh1--;
        int64_t yo = (plane * d->oh + oh) * d->ow * 16;
        float *yr = y + yo;
        const float *zr = z ? z + yo : NULL;
        int64_t ow = 0;
        while (ow < d->ow) {
            /* a tile of TW interior pixels from t0; the row's last one ends at
             * orr and may start before ow (its pixels before ow, which an
             * earlier tile stored, are computed again and not stored) */
            const int64_t t0 = ow >= ol && ow + TW <= orr             ? ow
                               : ow >= ol && ow < orr && orr - ol >= TW ? orr - TW
                                                                        : -1;
            if (t0 >= 0) {
                __m512 acc[TW];
                for (int j = 0; j < TW; j++) acc[j] = bv;
                tile(d, acc, xp, wp, ih0, kh0, kh1, t0, s1);
                for (int j = (int)(ow - t0); j < TW; j++)
                    finish(&e, acc[j], zr ? zr + (t0 + j) * 16 : NULL, yr + (t0 + j) * 16);
                ow = t0 + TW;
                continue;
            }
            /* one pixel, its taps tested */
            __m512 acc = bv;
            int64_t iw0 = ow * d->sw - d->pl;
            for (int64_t kh = kh0; kh < kh1; kh++) {
                const float *row = xp + (ih0 + kh * d->dh) * W * 16;
                for (int64_t kw = 0; kw < d->kw; kw++) {
                    int64_t iw = iw0 + kw * d->dw;
                    if (iw < 0 || iw >= W) continue;
                    acc = _mm512_fmadd_ps(_mm512_loadu_ps(row + iw * 16),
                                          _mm512_loadu_ps(wp + (kh * d->kw + kw) * 16), acc);
                }
            }
            finish(&e, acc, zr ? zr + ow * 16 : NULL, yr + ow * 16);
            ow++;
        }
    }
}
#endif
