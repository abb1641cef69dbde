/* qdwconv16c_avx512vnni.c - one output row of the int8 3x3 depthwise conv
 * (undilated, stride 1 or 2) with vpdpwssd (qdwconv16c.h). Kernel rows 0
 * and 1 go as 16-bit pairs (x[r][c], x[r+1][c]) in each dword, row 2 as
 * (x[r+2][c], 0): two vpdpwssd a kernel column, against the plan's w16.
 * An input column is widened once for the pixels that read it (three at
 * stride 1), where the float row widened it and converted it per pixel.
 * Taps outside the image read x_zp (the plan's zrow), which bz's -x_zp * w
 * of every tap cancels: no border path. The int32 sum is the float row's
 * exact integer; the requantization is the same ops on the same value, so
 * the bytes are those of the AVX-512 row and the scalar twin. */
#ifndef PZ_SCALAR   /* a PZ_SCALAR build has no vector kernels */
#include <immintrin.h>

#include "rt/kernels/quant/qdwconv16c.h"

#define UNROLL _Pragma("GCC unroll 16")

/* acc += the dword dot products of the 16-bit pairs, in place (as
 * qconv16c_avx512vnni.c: the intrinsic made gcc copy accumulators) */
static inline __attribute__((always_inline)) void dpwssd(__m512i *acc, __m512i x, __m512i w)
{
#if defined(__GNUC__) && defined(__OPTIMIZE__)
    __asm__("vpdpwssd %2, %1, %0" : "+v"(*acc) : "v"(x), "v"(w));
#else
    *acc = _mm512_dpwssd_epi32(*acc, x, w);
#endif
}

/* NP pixels from output column ow: input columns c0.. of kernel rows ra,
 * rb, rc (a row outside the image: the plan's zrow of x_zp); with EDGE a
 * column outside reads x_zp too, which bz's -x_zp * w gives back */
static inline __attribute__((always_inline)) void tile(const uint8_t *ra, const uint8_t *rb,
                                                       const uint8_t *rc, __m128i zp,
                                                       int64_t c0, int64_t iw,
                                                       const __m512i *wv,
                                                       __m512i bz, const float *mult,
                                                       const float *flo, const float *fhi,
                                                       __m512i yzp, uint8_t *y, const int NP,
                                                       const int S, const int SG, const int EDGE)
{
    __m512i acc[8];
    UNROLL for (int k = 0; k < NP; k++) acc[k] = bz;
    UNROLL for (int j = 0; j < (NP - 1) * S + 3; j++) {
        const int64_t o = (c0 + j) * 16;
        __m128i a, b, c;
        if (EDGE && (c0 + j < 0 || c0 + j >= iw)) {
            a = b = c = zp;
        } else {
            a = _mm_loadu_si128((const __m128i *)(ra + o));
            b = _mm_loadu_si128((const __m128i *)(rb + o));
            c = _mm_loadu_si128((const __m128i *)(rc + o));
        }
        const __m256i t = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(a, b)),
                                                  _mm_unpackhi_epi8(a, b), 1);
        const __m512i pab = SG ? _mm512_cvtepi8_epi16(t) : _mm512_cvtepu8_epi16(t);
        /* signed: the high word is the sign's, times the weight's 0 */
        const __m512i pc = SG ? _mm512_cvtepi8_epi32(c) : _mm512_cvtepu8_epi32(c);
        UNROLL for (int k = 0; k < NP; k++) {
            const int kw = j - k * S;
            if (kw < 0 || kw > 2) continue;
            dpwssd(&acc[k], pab, wv[kw]);
            dpwssd(&acc[k], pc, wv[3 + kw]);
        }
    }
    const __m512 vm = _mm512_loadu_ps(mult), lo = _mm512_loadu_ps(flo), hi = _mm512_loadu_ps(fhi);
    UNROLL for (int k = 0; k < NP; k++) {
        __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[k]), vm);
        f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
        const __m512i r = _mm512_add_epi32(_mm512_cvtps_epi32(f), yzp);
        _mm_storeu_si128((__m128i *)(y + k * 16), _mm512_cvtepi32_epi8(r));
    }
}

#define TILE(NP, E)                                                                     \
    do {                                                                                \
        if (d->sw == 1 && !sg) tile(ra, rb, rc, zp, c0, d->iw, wv, bzi, mult, flo, fhi, yzp, yo, NP, 1, 0, E); \
        else if (d->sw == 1) tile(ra, rb, rc, zp, c0, d->iw, wv, bzi, mult, flo, fhi, yzp, yo, NP, 1, 1, E);   \
        else if (!sg) tile(ra, rb, rc, zp, c0, d->iw, wv, bzi, mult, flo, fhi, yzp, yo, NP, 2, 0, E);          \
        else tile(ra, rb, rc, zp, c0, d->iw, wv, bzi, mult, flo, fhi, yzp, yo, NP, 2, 1, E);                   \
    } while (0)

void pz_qdwconv16c_row__vnni(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                             int64_t oh, const float *w, const float *b, const float *bz,
                             const float *mult, const float *flo, const float *fhi)
{
    (void)b;
    const pz_qconv16c_desc *d = &p->d;
    const int64_t ih0 = oh * d->sh - d->pt, rs = d->iw * 16;
    const uint8_t *rw[3];
    for (int k = 0; k < 3; k++)
        rw[k] = ih0 + k < 0 || ih0 + k >= d->ih ? p->zrow : x + (ih0 + k) * rs;
    const uint8_t *ra = rw[0], *rb = rw[1], *rc = rw[2];
    const int64_t blk = (w - p->w) / (9 * 16);
    const int16_t *w16 = p->w16 + blk * 6 * 32;
    __m512i wv[6];
    for (int i = 0; i < 6; i++) wv[i] = _mm512_loadu_si512((const void *)(w16 + i * 32));
    /* bz is an integer below 2^24 (the plan's check): exact either way */
    const __m512i bzi = _mm512_cvtps_epi32(_mm512_loadu_ps(bz));
    const __m512i yzp = _mm512_set1_epi32(d->y_zp);
    const int sg = d->x_signed;
    const __m128i zp = _mm_loadu_si128((const __m128i *)p->zrow);
    for (int64_t ow = 0; ow < d->ow;) {
        const int64_t c0 = ow * d->sw - d->pl;
        uint8_t *yo = y + ow * 16;
        if (ow < p->owlo || ow >= p->owhi) {
            TILE(1, 1);
            ow += 1;
        } else if (ow + 8 <= p->owhi) {
            TILE(8, 0);
            ow += 8;
        } else if (ow + 4 <= p->owhi) {
            TILE(4, 0);
            ow += 4;
        } else {
            TILE(1, 0);
            ow += 1;
        }
    }
}
#endif
