/* qgemm_ymm.h - internal to qgemm_avx2.c and qgemm_avxvnni.c: the body of
 * their kernels on 16 YMM, which differ only in a step: the VNNI kernel's
 * work units (PZ_QGEMM_RW rows x PZ_QGEMM_RM panels) in tiles of up to 3
 * rows x 2 panels of 16 columns, each panel two YMM of 8 int32 accumulators
 * (12 of the 16 YMM). A tail of K % 4 is read byte by byte; the last
 * panel's columns past N go through a buffer. The epilogue is qconv16c's
 * (qconv16c.h).
 *
 * The includer defines STEP(V, J) (the dword V of row J against the RM
 * panels at bp, bs bytes apart, into acc[J][2r + h]), QG_YMM_CONSTS
 * (declarations the step uses, or nothing), QG_YMM_STEPB (B's bytes per
 * dword of a panel), QG_YMM_B(p) (the plan's B it reads, as bytes) and
 * QG_YMM_UNITS (the name of its units function), then includes this once. */
#ifndef PZ_RT_KERNELS_QUANT_QGEMM_YMM_H
#define PZ_RT_KERNELS_QUANT_QGEMM_YMM_H

#include <immintrin.h>
#include <string.h>

#include "rt/kernels/quant/qgemm_impl.h"

#define TRW 3
#define TRM 2

typedef struct {
    const uint8_t *a;        /* the tile's first row */
    int64_t lda;
    const int8_t *b;         /* the tile's first panel of B (QG_YMM_B), as bytes */
    int64_t bs;              /* bytes between panels */
    int64_t k4;              /* whole dwords of K */
    int kt;                  /* K % 4 */
    const int32_t *bias;
    const float *mult, *flo, *fhi;
    void *y;                 /* the tile's first row and column */
    int64_t ldy;
    int32_t yzp;
    uint32_t flip;
    int out_f32, out_i32;
    int last;                /* columns of the last panel, 1..16 */
} tile_args;

/* 16 outputs of row j, panel r from its two halves; n of them stored */
PZ_ALWAYS_INLINE void store(const tile_args *t, int j, int r, __m256i a0, __m256i a1, int n)
{
    const __m256i acc[2] = {a0, a1};
    const float *mult = t->mult + 16 * r;
    if (t->out_i32) {
        memcpy((int32_t *)t->y + j * t->ldy + 16 * r, acc, (size_t)n * sizeof(int32_t));
        return;
    }
    if (t->out_f32) {
        float v[16];
        UNROLL for (int h = 0; h < 2; h++)
            _mm256_storeu_ps(v + 8 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(acc[h]),
                                                      _mm256_loadu_ps(mult + 8 * h)));
        memcpy((float *)t->y + j * t->ldy + 16 * r, v, (size_t)n * sizeof(float));
        return;
    }
    const __m256i yzp = _mm256_set1_epi32(t->yzp);
    __m256i q[2];
    UNROLL for (int h = 0; h < 2; h++) {
        __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[h]), _mm256_loadu_ps(mult + 8 * h));
        f = _mm256_min_ps(_mm256_max_ps(f, _mm256_loadu_ps(t->flo + 16 * r + 8 * h)),
                          _mm256_loadu_ps(t->fhi + 16 * r + 8 * h));
        q[h] = _mm256_add_epi32(_mm256_cvtps_epi32(f), yzp);
    }
    /* values in [-128, 255]: exact in int16; their low bytes are the output */
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xd8);
    w = _mm256_and_si256(w, _mm256_set1_epi16(0xff));
    const __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    uint8_t *yp = (uint8_t *)t->y + j * t->ldy + 16 * r;
    if (n == 16) {
        _mm_storeu_si128((__m128i *)yp, b);
    } else {
        uint8_t v[16];
        _mm_storeu_si128((__m128i *)v, b);
        memcpy(yp, v, (size_t)n);
    }
}

PZ_ALWAYS_INLINE void tile(const tile_args *t, const int RW, const int RM)
{
    const int64_t lda = t->lda, bs = t->bs;
    const __m256i flip = _mm256_set1_epi32((int)t->flip);
    QG_YMM_CONSTS;
    __m256i acc[TRW][2 * TRM];
    UNROLL for (int r = 0; r < 2 * RM; r++) {
        const __m256i bv = _mm256_loadu_si256((const __m256i *)(t->bias + 8 * r));
        UNROLL for (int j = 0; j < RW; j++) acc[j][r] = bv;
    }
    const uint8_t *ap = t->a;
    const int8_t *bp = t->b;
    for (int64_t q = 0; q < t->k4; q++) {
        UNROLL for (int j = 0; j < RW; j++) {
            int32_t v;
            memcpy(&v, ap + j * lda, 4);
            STEP(v, j);
        }
        ap += 4;
        bp += QG_YMM_STEPB;
    }
    if (t->kt) {
        /* the last 1-3 k, zero bytes after them (B is zero there) */
        UNROLL for (int j = 0; j < RW; j++) {
            const uint8_t *ar = ap + j * lda;
            uint32_t u = ar[0];
            if (t->kt > 1) u |= (uint32_t)ar[1] << 8;
            if (t->kt > 2) u |= (uint32_t)ar[2] << 16;
            /* the flip makes the bytes past K 0x80: B is zero there */
            STEP((int32_t)u, j);
        }
    }
    UNROLL for (int r = 0; r < RM; r++)
        UNROLL for (int j = 0; j < RW; j++)
            store(t, j, r, acc[j][2 * r], acc[j][2 * r + 1], r == RM - 1 ? t->last : 16);
}

#define TK(RW, RM) \
    static void tk_##RW##_##RM(const tile_args *t) { tile(t, RW, RM); }
TK(1, 1) TK(1, 2) TK(2, 1) TK(2, 2) TK(3, 1) TK(3, 2)
static void (*const TABLE[TRW + 1][TRM + 1])(const tile_args *) = {
    {NULL}, {NULL, tk_1_1, tk_1_2}, {NULL, tk_2_1, tk_2_2}, {NULL, tk_3_1, tk_3_2},
};

void QG_YMM_UNITS(const pz_qgemm_plan *p, const uint8_t *a, int64_t lda, void *y,
                  int64_t ldy, int64_t m, int64_t lo, int64_t hi)
{
    const pz_qgemm_desc *d = &p->d;
    const int64_t M = m, N = d->n;
    const int64_t nrb = (M + PZ_QGEMM_RW - 1) / PZ_QGEMM_RW;
    const size_t ysz = d->out_f32 || d->out_i32 ? sizeof(float) : 1;
    tile_args t;
    t.lda = lda;
    t.bs = p->k4 * QG_YMM_STEPB;
    t.k4 = d->k / 4;
    t.kt = (int)(d->k % 4);
    t.ldy = ldy;
    t.yzp = d->y_zp;
    t.flip = p->aflip;
    t.out_f32 = d->out_f32;
    t.out_i32 = d->out_i32;
    /* the units of the VNNI kernel, each in sub-tiles: the panel pairs
     * across the unit's rows in threes */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t pg = u / nrb, rb = u % nrb;
        const int64_t i1 = rb * PZ_QGEMM_RW + PZ_QGEMM_RW < M ? rb * PZ_QGEMM_RW + PZ_QGEMM_RW : M;
        const int64_t pe = pg * PZ_QGEMM_RM + PZ_QGEMM_RM < p->np ? pg * PZ_QGEMM_RM + PZ_QGEMM_RM
                                                                  : p->np;
        for (int64_t p0 = pg * PZ_QGEMM_RM; p0 < pe; p0 += TRM) {
            const int rm = (int)(pe - p0 < TRM ? pe - p0 : TRM);
            const int64_t n0 = p0 * 16, nlast = N - (p0 + rm - 1) * 16;
            t.b = QG_YMM_B(p) + p0 * t.bs;
            t.bias = p->bias + n0;
            t.mult = p->mult + n0;
            t.flo = p->flo + n0;
            t.fhi = p->fhi + n0;
            t.last = (int)(nlast >= 16 ? 16 : nlast);
            for (int64_t i0 = rb * PZ_QGEMM_RW; i0 < i1; i0 += TRW) {
                const int rw = (int)(i1 - i0 < TRW ? i1 - i0 : TRW);
                t.a = a + i0 * lda;
                t.y = (char *)y + (size_t)(i0 * ldy + n0) * ysz;
                TABLE[rw][rm](&t);
            }
        }
    }
}
#endif
