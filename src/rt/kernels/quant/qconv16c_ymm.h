/* qconv16c_ymm.h - internal to qconv16c_avx2.c and qconv16c_avxvnni.c: the
 * body of their micro-kernels on 16 YMM, which differ only in a step. A
 * tile: RW output pixels x RM blocks of 16 output channels, each block two
 * YMM of 8 int32 accumulators (at most 6x1 or 3x2: 12 of the 16 YMM). The
 * epilogue is the VNNI kernel's float requantization (qconv16c.h), packed
 * to 16 bytes, then a residual's add.
 *
 * The includer defines STEP_AT(XP, WP, Q) (dword Q of RW pixels at XP,
 * against the weights of RM blocks at WP, into acc[j][2r + h]), STEP(Q) as
 * STEP_AT(xw, ww, Q), QC_YMM_CONSTS (declarations the step uses, or
 * nothing), QC_YMM_TAPB (its weights' bytes per tap) and QC_YMM_PICK (the
 * name of its pick function), then includes this once. */
#ifndef PZ_RT_KERNELS_QUANT_QCONV16C_YMM_H
#define PZ_RT_KERNELS_QUANT_QCONV16C_YMM_H

#include <immintrin.h>
#include <string.h>

#include "rt/kernels/quant/qconv16c_impl.h"

#define UNROLL _Pragma("GCC unroll 32")

PZ_ALWAYS_INLINE __m256i bcast(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/* the 16 requantized lanes of a block (two halves of 8) as 16 bytes at y */
PZ_ALWAYS_INLINE void store16(uint8_t *y, __m256i a0, __m256i a1, const float *mult,
                              const float *flo, const float *fhi, __m256i yzp)
{
    __m256i q[2];
    const __m256i acc[2] = {a0, a1};
    UNROLL for (int h = 0; h < 2; h++) {
        __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[h]), _mm256_loadu_ps(mult + 8 * h));
        f = _mm256_min_ps(_mm256_max_ps(f, _mm256_loadu_ps(flo + 8 * h)),
                          _mm256_loadu_ps(fhi + 8 * h));
        q[h] = _mm256_add_epi32(_mm256_cvtps_epi32(f), yzp);
    }
    /* values in [-128, 255]: exact in int16; their low bytes are the output */
    __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xd8);
    w = _mm256_and_si256(w, _mm256_set1_epi16(0xff));
    const __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    _mm_storeu_si128((__m128i *)y, b);
}

PZ_ALWAYS_INLINE void tile(const pz_qconv16c_uk_args *a, const int RW, const int RM,
                           const int PS, const int XS)
{
    const int64_t xps = PS ? PS : a->xps;
    const int64_t ws_mb = a->ws_mb, ws_cb = a->ws_cb, ws_h = a->ws_h;
    const int64_t xs_cb = a->xs_cb, xs_h = a->xs_h, xs_w = a->xs_w;
    const int ncb = a->ncb, nkh = a->nkh, nkw = a->nkw;
    const __m256i flip = _mm256_set1_epi32((int)a->xflip);
    QC_YMM_CONSTS;
    __m256i acc[6][4];
    UNROLL for (int r = 0; r < RM; r++)
        UNROLL for (int h = 0; h < 2; h++) {
            const __m256i bv = _mm256_loadu_si256((const __m256i *)(a->bias + 16 * r + 8 * h));
            UNROLL for (int j = 0; j < RW; j++) acc[j][2 * r + h] = bv;
        }
    QC_TILE_RUNS(QC_YMM_TAPB)
    const __m256i yzp = _mm256_set1_epi32(a->yzp);
    UNROLL for (int r = 0; r < RM; r++)
        UNROLL for (int j = 0; j < RW; j++)
            store16(a->y + r * a->ys_mb + j * a->yps, acc[j][2 * r], acc[j][2 * r + 1],
                    a->mult + 16 * r, a->flo + 16 * r, a->fhi + 16 * r, yzp);
    /* a residual: QADD's AVX2 kernel on the bytes just stored (in L1) */
    if (a->z)
        for (int r = 0; r < RM; r++)
            for (int j = 0; j < RW; j++) {
                const int64_t o = r * a->ys_mb + j * a->yps;
                pz_qconv16c_sum16(pz_qadd8__avx2, a->sum, a->y + o, a->z + o);
            }
}

/* uk_<xs>_<psk>_<rm>_<rw>; psk 0..2 for xps = 16, 32, any */
#define UK(XS, K, PSV, RM, RW) \
    static void uk_##XS##_##K##_##RM##_##RW(const pz_qconv16c_uk_args *a) { tile(a, RW, RM, PSV, XS); }
#define UK_1TO3(XS, K, PSV, RM) UK(XS, K, PSV, RM, 1) UK(XS, K, PSV, RM, 2) UK(XS, K, PSV, RM, 3)
#define UK_ALL(XS, K, PSV) UK_1TO3(XS, K, PSV, 1) UK(XS, K, PSV, 1, 4) UK(XS, K, PSV, 1, 5) \
    UK(XS, K, PSV, 1, 6) UK_1TO3(XS, K, PSV, 2)

UK_ALL(0, 0, 16)
UK_ALL(0, 1, 32)
UK_ALL(0, 2, 0)
UK_ALL(1, 0, 16)
UK_ALL(1, 1, 32)
UK_ALL(1, 2, 0)

#define ROW3(XS, K, RM) NULL, uk_##XS##_##K##_##RM##_1, uk_##XS##_##K##_##RM##_2, \
    uk_##XS##_##K##_##RM##_3
#define TAB(XS, K) {{NULL}, {ROW3(XS, K, 1), uk_##XS##_##K##_1_4, uk_##XS##_##K##_1_5, \
    uk_##XS##_##K##_1_6}, {ROW3(XS, K, 2)}}

static const pz_qconv16c_uk TABLE[2][3][3][7] = {
    {TAB(0, 0), TAB(0, 1), TAB(0, 2)},
    {TAB(1, 0), TAB(1, 1), TAB(1, 2)},
};

pz_qconv16c_uk QC_YMM_PICK(int rm, int rw, int psk, int xs)
{
    return TABLE[xs][psk][rm][rw];
}
#endif
