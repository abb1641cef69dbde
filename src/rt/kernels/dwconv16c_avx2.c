/* dwconv16c_avx2.c - depthwise 3x3 in NCHW16c with AVX2+FMA.
 *
 * As the AVX-512 version (dwconv16c_avx512.c), one 8-lane half of the block at
 * a time: a worker's rows of a block go together, a row in balanced tiles of
 * up to 6 pixels (stride 1) or 4 (stride 2), which fits the 16 YMM registers
 * (the weights come from L1 as FMA operands). Interior tiles load without
 * masks; the first and last tile of a row read the columns in the padding as
 * zeros through masked loads (masks and clamped offsets computed once per
 * tile).
 */
#include "rt/kernels/fast.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

typedef struct {
    const float *w;          /* the half's 9 weights, 16 floats apart */
    __m256 bias, lo, hi, mask;
    int act, partial;
} dw_half;

static inline __m256 lane_mask(unsigned bits)
{
    const __m256i idx = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i m = _mm256_and_si256(_mm256_set1_epi32((int)(bits & 0xff)), idx);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(m, idx));
}

/* RW pixels of one row from input column iw0, stride S; rows[kh] at the half
 * (NULL in the padding). MASKED: columns outside [0, W) read as zeros. */
PZ_ALWAYS_INLINE void dw_tile(const dw_half *k, const float *const rows[3], int64_t iw0,
                              int64_t W, const float *z, float *y, const int RW, const int S,
                              const int MASKED)
{
    const int NV = (RW - 1) * S + 3;
    __m256i cm[13];
    int64_t co[13];
    if (MASKED) {
        UNROLL for (int i = 0; i < NV; i++) {
            int64_t iw = iw0 + i;
            int ok = iw >= 0 && iw < W;
            cm[i] = _mm256_set1_epi32(ok ? -1 : 0);
            co[i] = (ok ? iw : 0) * 16;
        }
    }
    __m256 acc[6];
    UNROLL for (int j = 0; j < RW; j++) acc[j] = k->bias;
    UNROLL for (int kh = 0; kh < 3; kh++) {
        const float *p = rows[kh];
        if (!p) continue;
        UNROLL for (int i = 0; i < NV; i++) {
            __m256 v = MASKED ? _mm256_maskload_ps(p + co[i], cm[i])
                              : _mm256_loadu_ps(p + (iw0 + i) * 16);
            UNROLL for (int j = 0; j < RW; j++) {
                int kw = i - j * S;
                if (kw >= 0 && kw < 3)
                    acc[j] = _mm256_fmadd_ps(v, _mm256_loadu_ps(k->w + (kh * 3 + kw) * 16), acc[j]);
            }
        }
    }
    UNROLL for (int j = 0; j < RW; j++) {
        __m256 v = acc[j];
        if (z) v = _mm256_add_ps(v, _mm256_loadu_ps(z + j * 16));
        if (k->act) v = _mm256_min_ps(_mm256_max_ps(v, k->lo), k->hi);
        if (k->partial) v = _mm256_and_ps(v, k->mask);
        _mm256_storeu_ps(y + j * 16, v);
    }
}

PZ_ALWAYS_INLINE void dw_tile_any(const dw_half *k, const float *const rows[3], int64_t iw0,
                                  int64_t W, const float *z, float *y, int rw, const int S,
                                  int edge)
{
#define CASE(R)                                         \
    case R:                                             \
        if (edge) {                                     \
            dw_tile(k, rows, iw0, W, z, y, R, S, 1);    \
        } else {                                        \
            dw_tile(k, rows, iw0, W, z, y, R, S, 0);    \
        }                                               \
        return;
    switch (rw) { CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) default: return; }
#undef CASE
}

/* Rows [oh0, oh1) of one half-block. S = 0: any stride, one pixel per tile. */
PZ_ALWAYS_INLINE void dw_rows(const pz_conv16c_desc *d, const dw_half *k, const float *xb,
                              const float *zb, float *yb, int64_t oh0, int64_t oh1, const int S)
{
    const int64_t H = d->h, W = d->w, OW = d->ow, s = d->sw;
    const int rwmax = S == 1 ? 6 : S == 2 ? 4 : 1;
    const int64_t nt = (OW + rwmax - 1) / rwmax, base = OW / nt, ext = OW % nt;
    for (int64_t oh = oh0; oh < oh1; oh++) {
        const float *rows[3];
        for (int kh = 0; kh < 3; kh++) {
            int64_t ih = oh * d->sh - d->pt + kh;
            rows[kh] = ih >= 0 && ih < H ? xb + ih * W * 16 : NULL;
        }
        float *yr = yb + oh * OW * 16;
        const float *zr = zb ? zb + oh * OW * 16 : NULL;
        int64_t ow = 0;
        for (int64_t t = 0; t < nt; t++) {
            int64_t rw = base + (t < ext), iw0 = ow * s - d->pl;
            int edge = iw0 < 0 || iw0 + (rw - 1) * (S ? S : 1) + 3 > W;
            dw_tile_any(k, rows, iw0, W, zr ? zr + ow * 16 : NULL, yr + ow * 16, (int)rw,
                        S ? S : 1, edge);
            ow += rw;
        }
    }
}

static void dw_rows_s1(const pz_conv16c_desc *d, const dw_half *k, const float *xb,
                       const float *zb, float *yb, int64_t oh0, int64_t oh1)
{
    dw_rows(d, k, xb, zb, yb, oh0, oh1, 1);
}

static void dw_rows_s2(const pz_conv16c_desc *d, const dw_half *k, const float *xb,
                       const float *zb, float *yb, int64_t oh0, int64_t oh1)
{
    dw_rows(d, k, xb, zb, yb, oh0, oh1, 2);
}

static void dw_rows_any(const pz_conv16c_desc *d, const dw_half *k, const float *xb,
                        const float *zb, float *yb, int64_t oh0, int64_t oh1)
{
    dw_rows(d, k, xb, zb, yb, oh0, oh1, 0);
}

/* The units [lo, hi) in the kernel's order (n, block, oh): a block's rows
 * go together, each block in two halves of 8 channels. */
static void dw_run(const pz_conv16c_desc *d, const float *x, const float *w, const float *b,
                   const float *z, float *y, int64_t lo, int64_t hi)
{
    const int64_t cb = (d->c + 15) / 16, OH = d->oh;
    for (int64_t u = lo; u < hi;) {
        int64_t oh0 = u % OH, nb = u / OH, bc = nb % cb;
        int64_t oh1 = OH < oh0 + (hi - u) ? OH : oh0 + (hi - u);
        int64_t valid = d->c - bc * 16;
        unsigned bits = valid >= 16 ? 0xffffu : (1u << valid) - 1;
        for (int h = 0; h < 2; h++) {
            dw_half k;
            k.w = w + bc * 144 + h * 8;
            k.bias = b ? _mm256_loadu_ps(b + bc * 16 + h * 8) : _mm256_setzero_ps();
            k.act = d->act.kind != PZ_ACT_NONE;
            k.lo = _mm256_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f);
            k.hi = _mm256_set1_ps(d->act.kind == PZ_ACT_CLIP ? d->act.hi : __builtin_inff());
            k.partial = valid < 16;
            k.mask = lane_mask(bits >> (8 * h));
            const float *xb = x + nb * d->h * d->w * 16 + h * 8;
            float *yb = y + nb * OH * d->ow * 16 + h * 8;
            const float *zb = z ? z + nb * OH * d->ow * 16 + h * 8 : NULL;
            if (d->sw == 1) dw_rows_s1(d, &k, xb, zb, yb, oh0, oh1);
            else if (d->sw == 2) dw_rows_s2(d, &k, xb, zb, yb, oh0, oh1);
            else dw_rows_any(d, &k, xb, zb, yb, oh0, oh1);
        }
        u += oh1 - oh0;
    }
}

void pz_f32_dwconv3x3_nchw16c__avx2(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith,
                                    int nth)
{
    /* the workers share the rows (pz_dw_share), as in the AVX-512 kernel */
    const int64_t cb = (d->c + 15) / 16;
    pz_dw_share sh;
    pz_dw_share_init(&sh, d->n, cb, d->oh, ith, nth);
    int64_t u0, u1;
    while (pz_dw_share_next(&sh, &u0, &u1)) dw_run(d, x, w, b, z, y, u0, u1);
}

#endif
