/* qgemm_avxvnni.c - the int8 GEMM's AVX-VNNI kernel (qgemm.h: vpdpbusd on
 * YMM, VEX), for CPUs with AVX-VNNI but not AVX512-VNNI (the tiles and
 * epilogue in qgemm_ymm.h). Each step broadcasts a dword (4 k) of a row of
 * A against each half (8 columns x 4 k, 32 bytes) of the VNNI kernel's
 * packed B; the sums are exact, so the bits are the other kernels'. */
#include "rt/kernels/quant/qgemm_impl.h"

#ifndef PZ_SCALAR
#include "rt/kernels/quant/q8_avxvnni.h"

#define UNROLL _Pragma("GCC unroll 32")

/* the dword v of row j against the RM panels' 64 bytes at bp */
#define STEP(V, J)                                                          \
    do {                                                                    \
        const __m256i xb = _mm256_xor_si256(_mm256_set1_epi32(V), flip);    \
        UNROLL for (int r = 0; r < RM; r++) {                               \
            pz_dpbusd_ymm(&acc[J][2 * r], xb, bp + r * bs);                 \
            pz_dpbusd_ymm(&acc[J][2 * r + 1], xb, bp + r * bs + 32);        \
        }                                                                   \
    } while (0)
#define QG_YMM_CONSTS (void)0
#define QG_YMM_STEPB 64
#define QG_YMM_B(p) ((p)->b)
#define QG_YMM_UNITS pz_qgemm_units__avxvnni
#include "rt/kernels/quant/qgemm_ymm.h"
#endif
