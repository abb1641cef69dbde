/* qdwconv16c_avx2.c - one output row of the int8 depthwise conv for CPUs
 * without AVX-512 (qdwconv16c.h): the AVX-512 kernel's sums on each half of
 * a 16-channel block in turn (8 lanes a YMM), bytes widened to float32,
 * (x - x_zp) * w summed exactly, then qconv16c's requantization. */
#include "rt/kernels/quant/qdwconv16c.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* the 8 bytes at p as floats */
static inline __m256 ld8(const uint8_t *p, int sgn)
{
    const __m128i v = _mm_loadl_epi64((const __m128i *)p);
    return _mm256_cvtepi32_ps(sgn ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v));
}

/* pz_qconv16c_requant on 8 lanes, their 8 bytes at y */
static inline void store8(uint8_t *y, __m256 acc, __m256 vm, __m256 lo, __m256 hi, __m256i yzp)
{
    const __m256 f = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(acc, vm), lo), hi);
    const __m256i r = _mm256_add_epi32(_mm256_cvtps_epi32(f), yzp);
    /* values in [-128, 255]: exact in int16; their low bytes are the output */
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    w = _mm_and_si128(w, _mm_set1_epi16(0xff));
    _mm_storel_epi64((__m128i *)y, _mm_packus_epi16(w, w));
}

/* Four pixels from ow whose columns are all inside, lanes [8h, 8h + 8):
 * x's zero point in bz, given back (x_zp * w, exact) for a kernel row
 * outside the image. */
static void four(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y, int64_t oh,
                 int64_t ow, const float *w, __m256 vbz, __m256 vm, __m256 lo, __m256 hi,
                 __m256i yzp)
{
    const pz_qconv16c_desc *d = &p->d;
    const int sgn = d->x_signed;
    const __m256 zp = _mm256_set1_ps((float)d->x_zp);
    const int64_t ih0 = oh * d->sh - d->pt;
    const int64_t xps = (int64_t)d->sw * 16, xtap = (int64_t)d->dw * 16;
    __m256 a0 = vbz, a1 = vbz, a2 = vbz, a3 = vbz;
    for (int kh = 0; kh < d->kh; kh++) {
        const int64_t ih = ih0 + (int64_t)kh * d->dh;
        const float *wr = w + kh * d->kw * 16;
        if (ih < 0 || ih >= d->ih) {
            __m256 c = _mm256_setzero_ps();
            for (int kw = 0; kw < d->kw; kw++)
                c = _mm256_fmadd_ps(zp, _mm256_loadu_ps(wr + kw * 16), c);
            a0 = _mm256_add_ps(a0, c), a1 = _mm256_add_ps(a1, c);
            a2 = _mm256_add_ps(a2, c), a3 = _mm256_add_ps(a3, c);
            continue;
        }
        const uint8_t *q = x + (ih * d->iw + ow * d->sw - d->pl) * 16;
        if (d->kw == 3 && d->dw == 1 && d->sw <= 2) {
            /* 3 wide, stride 1 or 2 (MobileNet's): each input widened once
             * for the four pixels */
            const __m256 w0 = _mm256_loadu_ps(wr), w1 = _mm256_loadu_ps(wr + 16);
            const __m256 w2 = _mm256_loadu_ps(wr + 32);
            const __m256 v0 = ld8(q, sgn), v1 = ld8(q + 16, sgn), v2 = ld8(q + 32, sgn);
            const __m256 v3 = ld8(q + 48, sgn), v4 = ld8(q + 64, sgn), v5 = ld8(q + 80, sgn);
            if (d->sw == 1) {
                a0 = _mm256_fmadd_ps(v2, w2, _mm256_fmadd_ps(v1, w1, _mm256_fmadd_ps(v0, w0, a0)));
                a1 = _mm256_fmadd_ps(v3, w2, _mm256_fmadd_ps(v2, w1, _mm256_fmadd_ps(v1, w0, a1)));
                a2 = _mm256_fmadd_ps(v4, w2, _mm256_fmadd_ps(v3, w1, _mm256_fmadd_ps(v2, w0, a2)));
                a3 = _mm256_fmadd_ps(v5, w2, _mm256_fmadd_ps(v4, w1, _mm256_fmadd_ps(v3, w0, a3)));
                continue;
            }
            const __m256 v6 = ld8(q + 96, sgn), v7 = ld8(q + 112, sgn), v8 = ld8(q + 128, sgn);
            a0 = _mm256_fmadd_ps(v2, w2, _mm256_fmadd_ps(v1, w1, _mm256_fmadd_ps(v0, w0, a0)));
            a1 = _mm256_fmadd_ps(v4, w2, _mm256_fmadd_ps(v3, w1, _mm256_fmadd_ps(v2, w0, a1)));
            a2 = _mm256_fmadd_ps(v6, w2, _mm256_fmadd_ps(v5, w1, _mm256_fmadd_ps(v4, w0, a2)));
            a3 = _mm256_fmadd_ps(v8, w2, _mm256_fmadd_ps(v7, w1, _mm256_fmadd_ps(v6, w0, a3)));
            continue;
        }
        for (int kw = 0; kw < d->kw; kw++) {
            const __m256 wv = _mm256_loadu_ps(wr + kw * 16);
            const uint8_t *t = q + kw * xtap;
            a0 = _mm256_fmadd_ps(ld8(t, sgn), wv, a0);
            a1 = _mm256_fmadd_ps(ld8(t + xps, sgn), wv, a1);
            a2 = _mm256_fmadd_ps(ld8(t + 2 * xps, sgn), wv, a2);
            a3 = _mm256_fmadd_ps(ld8(t + 3 * xps, sgn), wv, a3);
        }
    }
    uint8_t *yo = y + ow * 16;
    store8(yo, a0, vm, lo, hi, yzp);
    store8(yo + 16, a1, vm, lo, hi, yzp);
    store8(yo + 32, a2, vm, lo, hi, yzp);
    store8(yo + 48, a3, vm, lo, hi, yzp);
}

void pz_qdwconv16c_row__avx2(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                             int64_t oh, const float *w, const float *b, const float *bz,
                             const float *mult, const float *flo, const float *fhi)
{
    const pz_qconv16c_desc *d = &p->d;
    const int sgn = d->x_signed;
    const __m256 zp = _mm256_set1_ps((float)d->x_zp);
    const __m256i yzp = _mm256_set1_epi32(d->y_zp);
    const int64_t ih0 = oh * d->sh - d->pt;
    for (int64_t ow = 0; ow < d->ow; ow++) {
        if (ow >= p->owlo && ow + 4 <= p->owhi) {
            for (int h = 0; h < 2; h++)
                four(p, x + 8 * h, y + 8 * h, oh, ow, w + 8 * h, _mm256_loadu_ps(bz + 8 * h),
                     _mm256_loadu_ps(mult + 8 * h), _mm256_loadu_ps(flo + 8 * h),
                     _mm256_loadu_ps(fhi + 8 * h), yzp);
            ow += 3;
            continue;
        }
        /* a border pixel (or the last few): the taps inside, x - x_zp each */
        for (int h = 0; h < 2; h++) {
            __m256 acc = _mm256_loadu_ps(b + 8 * h);
            for (int kh = 0; kh < d->kh; kh++) {
                const int64_t ih = ih0 + kh * d->dh;
                if (ih < 0 || ih >= d->ih) continue;
                for (int kw = 0; kw < d->kw; kw++) {
                    const int64_t iw = ow * d->sw - d->pl + kw * d->dw;
                    if (iw < 0 || iw >= d->iw) continue;
                    const __m256 xv = _mm256_sub_ps(ld8(x + (ih * d->iw + iw) * 16 + 8 * h, sgn), zp);
                    /* exact products and sums: FMA or not, the same integer */
                    acc = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w + (kh * d->kw + kw) * 16 + 8 * h),
                                          acc);
                }
            }
            store8(y + ow * 16 + 8 * h, acc, _mm256_loadu_ps(mult + 8 * h),
                   _mm256_loadu_ps(flo + 8 * h), _mm256_loadu_ps(fhi + 8 * h), yzp);
        }
    }
}
#endif
