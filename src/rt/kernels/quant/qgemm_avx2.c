/* qgemm_avx2.c - the int8 GEMM's AVX2 kernel (qgemm.h), for CPUs without
 * VNNI (the tiles and epilogue in qgemm_ymm.h). Each step broadcasts a
 * dword (4 k) of a row of A, widened in place to 16-bit pairs (k0, k2) = a
 * & 0x00ff00ff and (k1, k3) = a >> 8, against B's int16 copy (b16,
 * qgemm_impl.h) by vpmaddwd, exact as qconv16c_avx2.c says. */
#include "rt/kernels/quant/qgemm_impl.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

#define UNROLL _Pragma("GCC unroll 32")

PZ_ALWAYS_INLINE void madd(__m256i *acc, __m256i xp, const int8_t *wp)
{
    const __m256i t = _mm256_madd_epi16(xp, _mm256_loadu_si256((const __m256i *)wp));
    *acc = _mm256_add_epi32(*acc, t);
}

/* the dword v of row j against the RM panels' 128 bytes at bp */
#define STEP(V, J)                                                          \
    do {                                                                    \
        const __m256i xb = _mm256_xor_si256(_mm256_set1_epi32(V), flip);    \
        const __m256i xe = _mm256_and_si256(xb, lo8);                       \
        const __m256i xo = _mm256_srli_epi16(xb, 8);                        \
        UNROLL for (int r = 0; r < RM; r++) {                               \
            const int8_t *wq = bp + r * bs;                                 \
            madd(&acc[J][2 * r], xe, wq);                                   \
            madd(&acc[J][2 * r + 1], xe, wq + 32);                          \
            madd(&acc[J][2 * r], xo, wq + 64);                              \
            madd(&acc[J][2 * r + 1], xo, wq + 96);                          \
        }                                                                   \
    } while (0)
#define QG_YMM_CONSTS const __m256i lo8 = _mm256_set1_epi32(0x00ff00ff)
#define QG_YMM_STEPB 128
#define QG_YMM_B(p) ((const int8_t *)(p)->b16)
#define QG_YMM_UNITS pz_qgemm_units__avx2
#include "rt/kernels/quant/qgemm_ymm.h"
#endif
