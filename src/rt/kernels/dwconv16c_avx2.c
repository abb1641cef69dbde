/* dwconv16c_avx2.c - depthwise 3x3 in NCHW16c with AVX2+FMA.
 *
 * As the AVX-512 version (dwconv16c_avx512.c), one 8-lane half of the block at
 * a time: the half's 9 weights stay in registers and tiles are 3 pixels
 * (stride 1) or 2 (stride 2) wide, which fits the 16 YMM registers.
 */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

typedef struct {
    const float *rows[3];    /* input rows for kh = 0..2 (already at the half), or NULL */
    __m256 w[9], bias, lo, hi, mask;
    int act;
} dw_half;

static inline __m256 lane_mask(unsigned bits)
{
    const __m256i idx = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i m = _mm256_and_si256(_mm256_set1_epi32((int)(bits & 0xff)), idx);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(m, idx));
}

PZ_ALWAYS_INLINE __m256 dw_finish(const dw_half *r, __m256 v, const float *z)
{
    if (z) v = _mm256_add_ps(v, _mm256_loadu_ps(z));
    if (r->act) v = _mm256_min_ps(_mm256_max_ps(v, r->lo), r->hi);
    return _mm256_and_ps(v, r->mask);
}

PZ_ALWAYS_INLINE void dw_tile(const dw_half *r, int64_t iw0, const float *z, float *y,
                              const int RW, const int S)
{
    __m256 acc[3];
    UNROLL for (int j = 0; j < RW; j++) acc[j] = r->bias;
    UNROLL for (int kh = 0; kh < 3; kh++) {
        const float *p = r->rows[kh];
        if (!p) continue;
        p += iw0 * 16;
        UNROLL for (int i = 0; i < (RW - 1) * S + 3; i++) {
            __m256 v = _mm256_loadu_ps(p + i * 16);
            UNROLL for (int j = 0; j < RW; j++) {
                int kw = i - j * S;
                if (kw >= 0 && kw < 3) acc[j] = _mm256_fmadd_ps(v, r->w[kh * 3 + kw], acc[j]);
            }
        }
    }
    UNROLL for (int j = 0; j < RW; j++)
        _mm256_storeu_ps(y + j * 16, dw_finish(r, acc[j], z ? z + j * 16 : NULL));
}

static void dw_pixel(const dw_half *r, const pz_conv16c_desc *d, const float *w, int64_t ow,
                     const float *z, float *y)
{
    int64_t iw0 = ow * d->sw - d->pl;
    int64_t kwlo = iw0 < 0 ? -iw0 : 0, kwhi = d->w - iw0 < 3 ? d->w - iw0 : 3;
    __m256 acc = r->bias;
    for (int kh = 0; kh < 3; kh++) {
        if (!r->rows[kh]) continue;
        for (int64_t kw = kwlo; kw < kwhi; kw++)
            acc = _mm256_fmadd_ps(_mm256_loadu_ps(r->rows[kh] + (iw0 + kw) * 16),
                                  _mm256_loadu_ps(w + (kh * 3 + kw) * 16), acc);
    }
    _mm256_storeu_ps(y, dw_finish(r, acc, z));
}

void pz_f32_dwconv3x3_nchw16c__avx2(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith,
                                    int nth)
{
    const int64_t cb = (d->c + 15) / 16, H = d->h, W = d->w, OH = d->oh, OW = d->ow;
    int64_t ol = pz_ceil_div(d->pl, d->sw), orr = pz_floor_div(W - 3 + d->pl, d->sw) + 1;
    ol = ol > OW ? OW : ol;
    orr = orr < ol ? ol : orr > OW ? OW : orr;
    if (d->sw > 2) orr = ol;

    int64_t lo, hi;
    pz_split(d->n * cb * OH, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t oh = u % OH, bc = u / OH % cb, n = u / (OH * cb);
        const float *xb = x + (n * cb + bc) * H * W * 16;
        int64_t valid = d->c - bc * 16;
        unsigned bits = valid >= 16 ? 0xffffu : (1u << valid) - 1;
        for (int h = 0; h < 2; h++) {
            const float *wb = w + bc * 9 * 16 + h * 8;
            dw_half r;
            for (int k = 0; k < 9; k++) r.w[k] = _mm256_loadu_ps(wb + k * 16);
            r.bias = b ? _mm256_loadu_ps(b + bc * 16 + h * 8) : _mm256_setzero_ps();
            r.act = d->act.kind != PZ_ACT_NONE;
            r.lo = _mm256_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f);
            r.hi = _mm256_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.hi : __builtin_inff());
            r.mask = lane_mask(bits >> (8 * h));
            for (int kh = 0; kh < 3; kh++) {
                int64_t ih = oh * d->sh - d->pt + kh;
                r.rows[kh] = ih >= 0 && ih < H ? xb + ih * W * 16 + h * 8 : NULL;
            }
            int64_t yoff = u * OW * 16 + h * 8;
            float *yr = y + yoff;
            const float *zr = z ? z + yoff : NULL;
            for (int64_t ow = 0; ow < ol; ow++)
                dw_pixel(&r, d, wb, ow, zr ? zr + ow * 16 : NULL, yr + ow * 16);
            int64_t ow = ol, iw0 = ol * d->sw - d->pl;
            if (d->sw == 1) {
                for (; ow + 3 <= orr; ow += 3, iw0 += 3)
                    dw_tile(&r, iw0, zr ? zr + ow * 16 : NULL, yr + ow * 16, 3, 1);
            } else if (d->sw == 2) {
                for (; ow + 2 <= orr; ow += 2, iw0 += 4)
                    dw_tile(&r, iw0, zr ? zr + ow * 16 : NULL, yr + ow * 16, 2, 2);
            }
            for (; ow < OW; ow++)
                dw_pixel(&r, d, wb, ow, zr ? zr + ow * 16 : NULL, yr + ow * 16);
        }
    }
}

#endif
