/* block_rows_avx512.c - the AVX-512 twin of block_rows.c: a full block (16
 * lanes, 16 channels) goes 16 pixels at a time as one 16 x 16 transpose in
 * registers (16 row loads, 64 shuffles, 16 vector stores), where the scalar
 * twin moves the 256 floats one by one; partial blocks and the last pixels
 * go through the twin. Only data moves, so the output is the twin's bits. */
#include "rt/kernels/layout/block_rows.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

/* r[i] lane j -> r[j] lane i */
static inline void transpose16(__m512 r[16])
{
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);       /* a0 b0 a1 b1 per 128 bits */
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);   /* a2 b2 a3 b3 */
    }
    for (int i = 0; i < 16; i += 4) {
        u[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);      /* a0 b0 c0 d0 */
        u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xee);  /* a1 b1 c1 d1 */
        u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    /* u[4g + c] holds, in 128-bit lane m, column 4m + c of rows 4g..4g+3 */
    for (int c = 0; c < 4; c++) {
        t[c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);        /* lanes 0, 2 of g0, g1 */
        t[4 + c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd);    /* lanes 1, 3 */
        t[8 + c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        t[12 + c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
    }
    for (int c = 0; c < 4; c++) {
        r[c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88);          /* column c */
        r[8 + c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0xdd);      /* column 8 + c */
        r[4 + c] = _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0x88); /* column 4 + c */
        r[12 + c] = _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0xdd);
    }
}

void pz_f32_rows_to_block__avx512(const float *restrict src, int64_t cstride, int64_t nch,
                                  int64_t np, int k, float *restrict dst)
{
    int64_t q = 0;
    if (k == 16 && nch == 16)
        for (; q + 16 <= np; q += 16) {
            __m512 r[16];
            for (int l = 0; l < 16; l++) r[l] = _mm512_loadu_ps(src + l * cstride + q);
            transpose16(r);
            for (int p = 0; p < 16; p++) _mm512_storeu_ps(dst + (q + p) * 16, r[p]);
        }
    pz_f32_rows_to_block(src + q, cstride, nch, np - q, k, dst + q * k);
}

void pz_f32_block_to_rows__avx512(const float *restrict src, int k, int64_t nch, int64_t np,
                                  float *restrict dst, int64_t cstride)
{
    int64_t q = 0;
    if (k == 16 && nch == 16)
        for (; q + 16 <= np; q += 16) {
            __m512 r[16];
            for (int p = 0; p < 16; p++) r[p] = _mm512_loadu_ps(src + (q + p) * 16);
            transpose16(r);
            for (int l = 0; l < 16; l++) _mm512_storeu_ps(dst + l * cstride + q, r[l]);
        }
    pz_f32_block_to_rows(src + q * k, k, nch, np - q, dst + q, cstride);
}

#endif
