/* qdwconv16c_avx512.c - one output row of the int8 depthwise conv, 16
 * channels a vector (qdwconv16c.h): bytes widened to float32, (x - x_zp) *
 * w summed exactly, then qconv16c's requantization on 16 lanes. */
#include <immintrin.h>

#include "rt/kernels/quant/qdwconv16c.h"

static inline __m512 ld8(const uint8_t *p, int sgn)
{
    const __m128i v = _mm_loadu_si128((const __m128i *)p);
    return _mm512_cvtepi32_ps(sgn ? _mm512_cvtepi8_epi32(v) : _mm512_cvtepu8_epi32(v));
}

/* pz_qconv16c_requant on 16 lanes: (float)acc * mult, clamp, round to even */
static inline void store8(uint8_t *y, __m512 acc, __m512 vm, __m512 lo, __m512 hi, __m512i yzp)
{
    __m512 f = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(acc, vm), lo), hi);
    const __m512i r = _mm512_add_epi32(_mm512_cvtps_epi32(f), yzp);
    _mm_storeu_si128((__m128i *)y, _mm512_cvtepi32_epi8(r));
}

void pz_qdwconv16c_row__avx512(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                               int64_t oh, const float *w, const float *b, const float *bz,
                               const float *mult, const float *flo, const float *fhi)
{
    const pz_qconv16c_desc *d = &p->d;
    const int sgn = d->x_signed;
    const __m512 zp = _mm512_set1_ps((float)d->x_zp), vb = _mm512_loadu_ps(b);
    const __m512 vbz = _mm512_loadu_ps(bz);
    const __m512 vm = _mm512_loadu_ps(mult), lo = _mm512_loadu_ps(flo), hi = _mm512_loadu_ps(fhi);
    const __m512i yzp = _mm512_set1_epi32(d->y_zp);
    const int64_t ih0 = oh * d->sh - d->pt;
    const int64_t xps = (int64_t)d->sw * 16, xtap = (int64_t)d->dw * 16;
    for (int64_t ow = 0; ow < d->ow; ow++) {
        if (ow >= p->owlo && ow + 4 <= p->owhi) {
            /* four pixels whose columns are all inside: x's zero point in
             * bz, given back (x_zp * w, exact) for a kernel row outside */
            __m512 a0 = vbz, a1 = vbz, a2 = vbz, a3 = vbz;
            for (int kh = 0; kh < d->kh; kh++) {
                const int64_t ih = ih0 + (int64_t)kh * d->dh;
                const float *wr = w + kh * d->kw * 16;
                if (ih < 0 || ih >= d->ih) {
                    __m512 c = _mm512_setzero_ps();
                    for (int kw = 0; kw < d->kw; kw++)
                        c = _mm512_fmadd_ps(zp, _mm512_loadu_ps(wr + kw * 16), c);
                    a0 = _mm512_add_ps(a0, c), a1 = _mm512_add_ps(a1, c);
                    a2 = _mm512_add_ps(a2, c), a3 = _mm512_add_ps(a3, c);
                    continue;
                }
                const uint8_t *q = x + (ih * d->iw + ow * d->sw - d->pl) * 16;
                if (d->kw == 3 && d->dw == 1 && d->sw <= 2) {
                    /* 3 wide, stride 1 or 2 (MobileNet's): each input vector
                     * widened once for the four pixels (6 or 9 for 12 FMAs) */
                    const __m512 w0 = _mm512_loadu_ps(wr), w1 = _mm512_loadu_ps(wr + 16);
                    const __m512 w2 = _mm512_loadu_ps(wr + 32);
                    const __m512 v0 = ld8(q, sgn), v1 = ld8(q + 16, sgn), v2 = ld8(q + 32, sgn);
                    const __m512 v3 = ld8(q + 48, sgn), v4 = ld8(q + 64, sgn);
                    const __m512 v5 = ld8(q + 80, sgn);
                    if (d->sw == 1) {
                        a0 = _mm512_fmadd_ps(v2, w2, _mm512_fmadd_ps(v1, w1, _mm512_fmadd_ps(v0, w0, a0)));
                        a1 = _mm512_fmadd_ps(v3, w2, _mm512_fmadd_ps(v2, w1, _mm512_fmadd_ps(v1, w0, a1)));
                        a2 = _mm512_fmadd_ps(v4, w2, _mm512_fmadd_ps(v3, w1, _mm512_fmadd_ps(v2, w0, a2)));
                        a3 = _mm512_fmadd_ps(v5, w2, _mm512_fmadd_ps(v4, w1, _mm512_fmadd_ps(v3, w0, a3)));
                        continue;
                    }
                    const __m512 v6 = ld8(q + 96, sgn), v7 = ld8(q + 112, sgn);
                    const __m512 v8 = ld8(q + 128, sgn);
                    a0 = _mm512_fmadd_ps(v2, w2, _mm512_fmadd_ps(v1, w1, _mm512_fmadd_ps(v0, w0, a0)));
                    a1 = _mm512_fmadd_ps(v4, w2, _mm512_fmadd_ps(v3, w1, _mm512_fmadd_ps(v2, w0, a1)));
                    a2 = _mm512_fmadd_ps(v6, w2, _mm512_fmadd_ps(v5, w1, _mm512_fmadd_ps(v4, w0, a2)));
                    a3 = _mm512_fmadd_ps(v8, w2, _mm512_fmadd_ps(v7, w1, _mm512_fmadd_ps(v6, w0, a3)));
                    continue;
                }
                for (int kw = 0; kw < d->kw; kw++) {
                    const __m512 wv = _mm512_loadu_ps(wr + kw * 16);
                    const uint8_t *t = q + kw * xtap;
                    a0 = _mm512_fmadd_ps(ld8(t, sgn), wv, a0);
                    a1 = _mm512_fmadd_ps(ld8(t + xps, sgn), wv, a1);
                    a2 = _mm512_fmadd_ps(ld8(t + 2 * xps, sgn), wv, a2);
                    a3 = _mm512_fmadd_ps(ld8(t + 3 * xps, sgn), wv, a3);
                }
            }
            store8(y + ow * 16, a0, vm, lo, hi, yzp);
            store8(y + (ow + 1) * 16, a1, vm, lo, hi, yzp);
            store8(y + (ow + 2) * 16, a2, vm, lo, hi, yzp);
            store8(y + (ow + 3) * 16, a3, vm, lo, hi, yzp);
            ow += 3;
            continue;
        }
        /* a border pixel (or the last few): the taps inside, x - x_zp each */
        __m512 acc = vb;
        for (int kh = 0; kh < d->kh; kh++) {
            const int64_t ih = ih0 + kh * d->dh;
            if (ih < 0 || ih >= d->ih) continue;
            for (int kw = 0; kw < d->kw; kw++) {
                const int64_t iw = ow * d->sw - d->pl + kw * d->dw;
                if (iw < 0 || iw >= d->iw) continue;
                const __m512 xv = _mm512_sub_ps(ld8(x + (ih * d->iw + iw) * 16, sgn), zp);
                /* exact products and sums: FMA or not, the same integer */
                acc = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w + (kh * d->kw + kw) * 16), acc);
            }
        }
        store8(y + ow * 16, acc, vm, lo, hi, yzp);
    }
}
