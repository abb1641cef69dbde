/* conv16c_avx2.c - the NCHW16c convolution's AVX2+FMA micro-kernels.
 *
 * Same layout and driver as AVX-512 (conv16c.c); a 16-channel block is two
 * YMM halves. With 16 YMM registers the tile is up to 6 pixels x 1 block:
 * 12 accumulators, 2 weight halves, 1 broadcast; per q step 2 + 6 loads for
 * 12 FMAs.
 */
#include "rt/kernels/conv16c.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

/* Lanes [8h, 8h + 8) of a 16-bit lane mask as a YMM of all-ones / zeros. */
static inline __m256 lane_mask(unsigned bits, int h)
{
    const __m256i idx = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i m = _mm256_and_si256(_mm256_set1_epi32((int)(bits >> (8 * h) & 0xff)), idx);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(m, idx));
}

PZ_ALWAYS_INLINE void uk_tile(const pz_conv16c_uk_args *a, const float *restrict x,
                              float *restrict y, const float *restrict z, const int RW,
                              const int PS)
{
    const int64_t ps = PS ? PS : a->ps;
    const float *restrict w = a->w;
    const int64_t xs_cb = a->xs_cb, xs_h = a->xs_h, ws_cb = a->ws_cb, ws_h = a->ws_h;
    const int ncb = a->ncb, nkh = a->nkh, nq = a->nq, nq_last = a->nq_last;
    __m256 acc[6][2];

    if (a->init) {
        __m256 b0 = a->bias ? _mm256_loadu_ps(a->bias) : _mm256_setzero_ps();
        __m256 b1 = a->bias ? _mm256_loadu_ps(a->bias + 8) : _mm256_setzero_ps();
        UNROLL for (int j = 0; j < RW; j++) {
            acc[j][0] = b0;
            acc[j][1] = b1;
        }
    } else {
        UNROLL for (int j = 0; j < RW; j++) {
            acc[j][0] = _mm256_loadu_ps(y + j * 16);
            acc[j][1] = _mm256_loadu_ps(y + j * 16 + 8);
        }
    }

    for (int cb = 0; cb < ncb; cb++) {
        const int nqc = cb == ncb - 1 ? nq_last : nq;
        for (int kh = 0; kh < nkh; kh++) {
            const float *xr = x + cb * xs_cb + kh * xs_h;
            const float *wr = w + cb * ws_cb + kh * ws_h;
            for (int q = 0; q < nqc; q++) {
                __m256 w0 = _mm256_loadu_ps(wr + q * 16), w1 = _mm256_loadu_ps(wr + q * 16 + 8);
                UNROLL for (int j = 0; j < RW; j++) {
                    __m256 xv = _mm256_broadcast_ss(xr + j * ps + q);
                    acc[j][0] = _mm256_fmadd_ps(xv, w0, acc[j][0]);
                    acc[j][1] = _mm256_fmadd_ps(xv, w1, acc[j][1]);
                }
            }
        }
    }

    if (!a->fin) {
        UNROLL for (int j = 0; j < RW; j++) {
            _mm256_storeu_ps(y + j * 16, acc[j][0]);
            _mm256_storeu_ps(y + j * 16 + 8, acc[j][1]);
        }
        return;
    }
    /* the epilogue in steps over the register tile, each step's condition
     * tested once */
    if (z)
        UNROLL for (int j = 0; j < RW; j++) {
            acc[j][0] = _mm256_add_ps(acc[j][0], _mm256_loadu_ps(z + j * 16));
            acc[j][1] = _mm256_add_ps(acc[j][1], _mm256_loadu_ps(z + j * 16 + 8));
        }
    if (a->act) {
        const __m256 lo = _mm256_set1_ps(a->lo), hi = _mm256_set1_ps(a->hi);
        UNROLL for (int j = 0; j < RW; j++) {
            acc[j][0] = _mm256_min_ps(_mm256_max_ps(acc[j][0], lo), hi);
            acc[j][1] = _mm256_min_ps(_mm256_max_ps(acc[j][1], lo), hi);
        }
    }
    if (a->tail_r == 0) {
        const __m256 m0 = lane_mask(a->tail, 0), m1 = lane_mask(a->tail, 1);
        UNROLL for (int j = 0; j < RW; j++) {
            acc[j][0] = _mm256_and_ps(acc[j][0], m0);
            acc[j][1] = _mm256_and_ps(acc[j][1], m1);
        }
    }
    UNROLL for (int j = 0; j < RW; j++) {
        _mm256_storeu_ps(y + j * 16, acc[j][0]);
        _mm256_storeu_ps(y + j * 16 + 8, acc[j][1]);
    }
}

/* ntile tiles along the row */
PZ_ALWAYS_INLINE void uk_body(const pz_conv16c_uk_args *a, const int RW, const int PS)
{
    const int64_t xt = RW * (PS ? PS : a->ps);
    const float *x = a->x, *z = a->z;
    float *y = a->y;
    for (int t = 0; t < a->ntile; t++) {
        uk_tile(a, x, y, z, RW, PS);
        x += xt;
        y += RW * 16;
        if (z) z += RW * 16;
    }
}

#define UK(K, PSV, RW) \
    static void uk_##K##_##RW(const pz_conv16c_uk_args *a) { uk_body(a, RW, PSV); }
#define UK_ALL(K, PSV) UK(K, PSV, 1) UK(K, PSV, 2) UK(K, PSV, 3) UK(K, PSV, 4) \
    UK(K, PSV, 5) UK(K, PSV, 6)
UK_ALL(0, 16)
UK_ALL(1, 32)
UK_ALL(2, 6)
UK_ALL(3, 0)

#define ROW(K) {NULL, uk_##K##_1, uk_##K##_2, uk_##K##_3, uk_##K##_4, uk_##K##_5, uk_##K##_6}
static const pz_conv16c_uk TABLE[4][7] = {ROW(0), ROW(1), ROW(2), ROW(3)};

static pz_conv16c_uk pick(int psk, int rm, int rw)
{
    (void)rm;   /* always 1 */
    return TABLE[psk][rw];
}

static const pz_conv16c_ukset UKSET = {
    .max_rm = 1, .rwmax = {0, 6, 0, 0, 0}, .pick = pick,
};

void pz_f32_conv2d_nchw16c__avx2(const pz_conv16c_desc *d, const float *restrict x,
                                 const float *restrict w, const float *restrict b,
                                 const float *restrict z, float *restrict y, int ith, int nth)
{
    pz_conv16c_drive(d, &UKSET, x, w, b, z, y, ith, nth);
}

#endif
