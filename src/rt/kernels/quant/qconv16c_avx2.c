/* qconv16c_avx2.c - the int8 NCHW16c convolution's AVX2 micro-kernels, for
 * CPUs without VNNI (qconv16c_impl.h, driven by qconv16c_plan.c; the tile
 * and epilogue in qconv16c_ymm.h).
 *
 * Each step broadcasts a dword of 4 input channels c0..c3 of a pixel and
 * widens it in place to 16-bit pairs, (c0, c2) = x & 0x00ff00ff and (c1,
 * c3) = x >> 8; vpmaddwd multiplies each pair by the int16 weights of w16
 * and adds the two products into int32, vpaddd into the accumulator. The
 * sums are exact, so the bits are the VNNI kernel's and the scalar twin's
 * (vpmaddubsw on bytes would be 1 instruction less a step, but its 16-bit
 * pair sums saturate for full-range u8 x s8). An int8 input is flipped to
 * uint8 first (XS), as in the VNNI kernel. */
#include "rt/kernels/quant/qconv16c_impl.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

const int pz_qconv16c_rwmax__avx2[3] = {0, 6, 3};

/* acc += the pair products of xp (16-bit pairs) and the weights at wp: the
 * weights read straight from memory as vpmaddwd's operand (holding them in
 * registers left too few for the accumulators) */
PZ_ALWAYS_INLINE void madd(__m256i *acc, __m256i xp, const int8_t *wp)
{
    const __m256i t = _mm256_madd_epi16(xp, _mm256_loadu_si256((const __m256i *)wp));
    *acc = _mm256_add_epi32(*acc, t);
}

/* one dword q of every pixel: per block r and half h, pair (c0, c2) at
 * w16 [q][0][16r'+8h], pair (c1, c3) at [q][1][...], 32 bytes each */
#define STEP(Q) STEP_AT(xw, ww, Q)
#define STEP_AT(XP, WP, Q)                                                           \
    do {                                                                             \
        UNROLL for (int j = 0; j < RW; j++) {                                        \
            __m256i xb = bcast((XP) + j * xps + (Q) * 4);                            \
            if (XS) xb = _mm256_xor_si256(xb, flip);                                 \
            const __m256i xe = _mm256_and_si256(xb, lo8);                            \
            const __m256i xo = _mm256_srli_epi16(xb, 8);                             \
            UNROLL for (int r = 0; r < RM; r++) {                                    \
                const int8_t *wq = (WP) + r * ws_mb + (Q) * 128;                     \
                madd(&acc[j][2 * r], xe, wq);                                        \
                madd(&acc[j][2 * r + 1], xe, wq + 32);                               \
                madd(&acc[j][2 * r], xo, wq + 64);                                   \
                madd(&acc[j][2 * r + 1], xo, wq + 96);                               \
            }                                                                        \
        }                                                                            \
    } while (0)
#define QC_YMM_CONSTS const __m256i lo8 = _mm256_set1_epi32(0x00ff00ff)
#define QC_YMM_TAPB QC_TAP16
#define QC_YMM_PICK pz_qconv16c_pick__avx2
#include "rt/kernels/quant/qconv16c_ymm.h"
#endif
