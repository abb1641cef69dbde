/* qisa.h - which int8 kernel set a plan runs (qconv16c, qgemm): the one
 * place that maps an ISA to them, as rt/kernels/cpu.c does for fp32.
 *
 *     isa (capped by PZ_ISA)     CPU                 kernels
 *     PZ_ISA_AVX512              AVX512-VNNI         vpdpbusd (*_avx512vnni.c)
 *     PZ_ISA_AVX512 or _AVX2     AVX2, no VNNI       vpmaddwd (*_avx2.c)
 *     PZ_ISA_SCALAR or _REF, a PZ_SCALAR build       the scalar twins
 *
 * Every set gives the same bits (exact int32 sums, one requantization). */
#ifndef PZ_RT_KERNELS_QUANT_QISA_H
#define PZ_RT_KERNELS_QUANT_QISA_H

#include "rt/kernels/kernels.h"

typedef enum { PZ_Q8_SCALAR, PZ_Q8_AVX2, PZ_Q8_VNNI } pz_q8_kernel;

static inline pz_q8_kernel pz_q8_kernel_for(pz_isa isa)
{
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512 && pz_cpu_has_vnni()) return PZ_Q8_VNNI;
    if (isa >= PZ_ISA_AVX2 && pz_cpu_isa() >= PZ_ISA_AVX2) return PZ_Q8_AVX2;
#endif
    (void)isa;
    return PZ_Q8_SCALAR;
}

/* The set's name, as a layer's kernel shows it ("vnni", "avx2", "scalar"). */
static inline const char *pz_q8_kernel_name(pz_q8_kernel k)
{
    return k == PZ_Q8_VNNI ? "vnni" : k == PZ_Q8_AVX2 ? "avx2" : "scalar";
}

#endif
