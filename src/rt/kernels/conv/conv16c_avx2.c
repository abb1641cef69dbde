/* conv16c_avx2.c - the NCHW16c convolution's AVX2+FMA micro-kernels.
 *
 * Same layout and driver as AVX-512 (conv16c_drive.c); a 16-channel block is two
 * YMM halves. With 16 YMM registers the tile is up to 6 pixels x 1 block:
 * 12 accumulators, 2 weight halves, 1 broadcast; per q step 2 + 6 loads for
 * 12 FMAs.
 */
#include "rt/kernels/conv/conv16c.h"

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

/* One q step: the two weight halves, the broadcasts of pixels [J0, J1), their
 * FMAs. */
#define Q_STEP(q, J0, J1)                                                                  \
    do {                                                                                  \
        __m256 w0 = _mm256_loadu_ps(wr + (q) * 16), w1 = _mm256_loadu_ps(wr + (q) * 16 + 8); \
        UNROLL for (int j = (J0); j < (J1); j++) {                                        \
            __m256 xv = _mm256_broadcast_ss(xr + j * ps + (q));                           \
            acc[j][0] = _mm256_fmadd_ps(xv, w0, acc[j][0]);                               \
            acc[j][1] = _mm256_fmadd_ps(xv, w1, acc[j][1]);                               \
        }                                                                                 \
    } while (0)

/* LB, RB: a border tile of a 3-wide kernel (conv16c.h, pickb): nq = 3 * cblk
 * in kw order, tap 0 skipping pixel 0 (LB) and tap 2 pixel RW - 1 (RB). */
PZ_ALWAYS_INLINE void uk_tile(const pz_conv16c_uk_args *a, const float *restrict x,
                              float *restrict y, const float *restrict z, const int RW,
                              const int PS, const int LB, const int RB)
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
            if (LB || RB) {
                const int nk = nq / 3;
                for (int q = 0; q < nk; q++) Q_STEP(q, LB, RW);
                for (int q = nk; q < 2 * nk; q++) Q_STEP(q, 0, RW);
                for (int q = 2 * nk; q < 3 * nk; q++) Q_STEP(q, 0, RW - RB);
            } else {
                for (int q = 0; q < nqc; q++) Q_STEP(q, 0, RW);
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
PZ_ALWAYS_INLINE void uk_body(const pz_conv16c_uk_args *a, const int RW, const int PS,
                              const int LB, const int RB)
{
    const int64_t xt = RW * (PS ? PS : a->ps);
    const float *x = a->x, *z = a->z;
    float *y = a->y;
    for (int t = 0; t < a->ntile; t++) {
        uk_tile(a, x, y, z, RW, PS, LB, RB);
        x += xt;
        y += RW * 16;
        if (z) z += RW * 16;
    }
}

#define UK(K, PSV, RW) \
    static void uk_##K##_##RW(const pz_conv16c_uk_args *a) { uk_body(a, RW, PSV, 0, 0); }
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

/* Border tiles (conv16c_plan.c's plan_border and plan_edges): a 3-wide kernel
 * over RW pixels, every tap in one call, tap 0 skipping the first pixel (LB)
 * and tap 2 the last (RB): ukb_<psk>_<lb><rb>_<rw>, for stride 1 (ps 16)
 * and 2 (ps 32) and the 3-channel stem at stride 2 (ps 6), widths 3 to 6
 * (rows of 10 to 12 pixels go as two of them; narrower rows go by passes,
 * see plan_rows), in place of passes, one per kernel column, each
 * reloading and storing the tile (bench/RESULTS.md, 'conv16c: border
 * tiles'). */
#define UKB(K, PSV, LB, RB, RW) \
    static void ukb_##K##_##LB##RB##_##RW(const pz_conv16c_uk_args *a) { uk_body(a, RW, PSV, LB, RB); }
#define UKB_W(K, PSV, LB, RB) UKB(K, PSV, LB, RB, 3) UKB(K, PSV, LB, RB, 4) UKB(K, PSV, LB, RB, 5) \
    UKB(K, PSV, LB, RB, 6)
#define UKB_K(K, PSV) UKB_W(K, PSV, 1, 0) UKB_W(K, PSV, 0, 1) UKB_W(K, PSV, 1, 1)
UKB_K(0, 16)
UKB_K(1, 32)
UKB_K(2, 6)
#define B(K, LB, RB) {NULL, NULL, NULL, ukb_##K##_##LB##RB##_3, ukb_##K##_##LB##RB##_4, \
    ukb_##K##_##LB##RB##_5, ukb_##K##_##LB##RB##_6}
/* [psk][left, right, both][rw] */
static const pz_conv16c_uk TABLEB[3][3][7] = {
    {B(0, 1, 0), B(0, 0, 1), B(0, 1, 1)},
    {B(1, 1, 0), B(1, 0, 1), B(1, 1, 1)},
    {B(2, 1, 0), B(2, 0, 1), B(2, 1, 1)},
};
#undef B

static pz_conv16c_uk pickb(int psk, int rm, int rw, int rows, int lb, int rb)
{
    if (psk > 2 || rm != 1 || rows != 1 || rw < 3 || rw > 6 || (!lb && !rb)) return NULL;
    return TABLEB[psk][lb && rb ? 2 : rb ? 1 : 0][rw];
}

const pz_conv16c_ukset pz_conv16c_ukset__avx2 = {
    .max_rm = 1, .rwmax = {0, 6, 0, 0, 0}, .pick = pick, .pickb = pickb,
    .act16c = pz_f32_act16c__avx2,
};

void pz_f32_conv2d_nchw16c__avx2(const pz_conv16c_desc *d, const float *restrict x,
                                 const float *restrict w, const float *restrict b,
                                 const float *restrict z, float *restrict y, int ith, int nth)
{
    pz_conv16c_drive(d, &pz_conv16c_ukset__avx2, x, w, b, z, y, ith, nth);
}

#endif
