/* qconv16c_avxvnni.c - the int8 NCHW16c convolution's AVX-VNNI
 * micro-kernels (VEX vpdpbusd on YMM), for CPUs with AVX-VNNI but not
 * AVX512-VNNI (qconv16c_impl.h, driven by qconv16c_plan.c; the tile and
 * epilogue in qconv16c_ymm.h).
 *
 * They read the VNNI kernel's packed weights: a dword of 4 input channels
 * of a pixel, broadcast, against each half (8 output channels x 4 input
 * channels, 32 bytes) of a block's 64 bytes; vpdpbusd adds the 4 products
 * of u8 x s8 to each int32 lane, exactly, so the bits are the VNNI
 * kernel's and the scalar twin's. An int8 input is flipped to uint8 (XS). */
#include "rt/kernels/quant/qconv16c_impl.h"

#ifndef PZ_SCALAR
#include "rt/kernels/quant/q8_avxvnni.h"

const int pz_qconv16c_rwmax__avxvnni[3] = {0, 6, 3};

/* one dword q of every pixel: per block r, its 64 bytes at [q], halves of
 * 8 output channels 32 bytes apart */
#define STEP(Q) STEP_AT(xw, ww, Q)
#define STEP_AT(XP, WP, Q)                                                           \
    do {                                                                             \
        UNROLL for (int j = 0; j < RW; j++) {                                        \
            __m256i xb = bcast((XP) + j * xps + (Q) * 4);                            \
            if (XS) xb = _mm256_xor_si256(xb, flip);                                 \
            UNROLL for (int r = 0; r < RM; r++) {                                    \
                const int8_t *wq = (WP) + r * ws_mb + (Q) * 64;                      \
                pz_dpbusd_ymm(&acc[j][2 * r], xb, wq);                               \
                pz_dpbusd_ymm(&acc[j][2 * r + 1], xb, wq + 32);                      \
            }                                                                        \
        }                                                                            \
    } while (0)
#define QC_YMM_CONSTS (void)0
#define QC_YMM_TAPB QC_TAP
#define QC_YMM_PICK pz_qconv16c_pick__avxvnni
#include "rt/kernels/quant/qconv16c_ymm.h"
#endif
