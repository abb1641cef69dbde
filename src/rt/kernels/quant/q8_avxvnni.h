/* q8_avxvnni.h - internal to the *_avxvnni.c int8 kernels (compiled with
 * -mavxvnni): their one multiply-add. */
#ifndef PZ_RT_KERNELS_QUANT_Q8_AVXVNNI_H
#define PZ_RT_KERNELS_QUANT_Q8_AVXVNNI_H

#include <immintrin.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"

/* acc += the 4-byte dot products of u8 x and s8 w at wp (32 bytes), in
 * place: through the intrinsic gcc copied accumulators between registers
 * (qconv16c_avx512vnni.c). {vex}: gas encodes a bare vpdpbusd as EVEX, an
 * AVX512-VNNI instruction, where the CPUs these kernels are for lack it. */
PZ_ALWAYS_INLINE void pz_dpbusd_ymm(__m256i *acc, __m256i x, const int8_t *wp)
{
#if defined(__GNUC__) && defined(__OPTIMIZE__)
    __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(*acc) : "x"(x), "xm"(*(const __m256i_u *)wp));
#else
    *acc = _mm256_dpbusd_avx_epi32(*acc, x, _mm256_loadu_si256((const __m256i *)wp));
#endif
}

#endif
