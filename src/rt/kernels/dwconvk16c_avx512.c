/* dwconvk16c_avx512.c - the any-size depthwise conv on NCHW16c with AVX-512
 * (see dwconvk16c.h): the scalar twin's sums in the same order, so the same
 * bits. A row's interior pixels (every tap inside the input) go in tiles of
 * TW accumulators, each weight vector loaded once per tile; the rest one by
 * one with the taps tested. */
#include <math.h>

#include "rt/kernels/dwconvk16c.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define TW 8

typedef struct {
    __m512 lo, hi;
    int act;
    __mmask16 keep;          /* lanes to keep (the block's real channels) */
} epi;

static inline void finish(const epi *e, __m512 v, const float *z, float *y)
{
    if (z) v = _mm512_add_ps(v, _mm512_loadu_ps(z));
    if (e->act) v = _mm512_min_ps(_mm512_max_ps(v, e->lo), e->hi);
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
             d->act.kind != PZ_ACT_NONE, 0xffff};
    int64_t ol, orr;
    pz_dwk16c_interior(d, &ol, &orr);
    int64_t u0, u1;
    pz_split(d->n * cb * d->oh, ith, nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        int64_t oh = u % d->oh, blk = u / d->oh % cb, plane = u / d->oh;
        const float *xp = x + plane * d->h * W * 16, *wp = w + blk * kk * 16;
        const __m512 bv = b ? _mm512_loadu_ps(b + blk * 16) : _mm512_setzero_ps();
        e.keep = blk == cb - 1 && valid < 16 ? (__mmask16)((1u << valid) - 1) : 0xffff;
        int64_t ih0 = oh * d->sh - d->pt, kh0 = 0, kh1 = d->kh;
        while (kh0 < kh1 && ih0 + kh0 * d->dh < 0) kh0++;
        while (kh1 > kh0 && ih0 + (kh1 - 1) * d->dh >= d->h) kh1--;
        int64_t yo = (plane * d->oh + oh) * d->ow * 16;
        float *yr = y + yo;
        const float *zr = z ? z + yo : NULL;
        int64_t ow = 0;
        while (ow < d->ow) {
            if (ow >= ol && ow + TW <= orr) {
                /* a tile of TW interior pixels */
                __m512 acc[TW];
                for (int j = 0; j < TW; j++) acc[j] = bv;
                for (int64_t kh = kh0; kh < kh1; kh++) {
                    const float *row = xp + (ih0 + kh * d->dh) * W * 16 + (ow * d->sw - d->pl) * 16;
                    for (int64_t kw = 0; kw < d->kw; kw++) {
                        const __m512 wv = _mm512_loadu_ps(wp + (kh * d->kw + kw) * 16);
                        const float *xv = row + kw * d->dw * 16;
                        for (int j = 0; j < TW; j++)
                            acc[j] = _mm512_fmadd_ps(_mm512_loadu_ps(xv + j * d->sw * 16), wv,
                                                     acc[j]);
                    }
                }
                for (int j = 0; j < TW; j++)
                    finish(&e, acc[j], zr ? zr + (ow + j) * 16 : NULL, yr + (ow + j) * 16);
                ow += TW;
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
