/* qisa.h - which int8 kernel set a plan runs (qconv16c, qgemm): the one
 * place that maps an ISA to them, as rt/kernels/cpu.c does for fp32.
 *
 *     isa (capped by PZ_ISA)  novnni  CPU            kernels
 *     PZ_ISA_AVX512           0       AVX512-VNNI    vpdpbusd ZMM (*_avx512vnni.c)
 *     PZ_ISA_AVX512 or _AVX2  0       AVX-VNNI       vpdpbusd YMM (*_avxvnni.c)
 *     PZ_ISA_AVX512 or _AVX2  any     AVX2           vpmaddwd (*_avx2.c)
 *     PZ_ISA_SCALAR or _REF, a PZ_SCALAR build       the scalar twins
 *
 * novnni (PZ_ISA=avx2-novnni or avx512-novnni, pz_run_options) keeps the
 * kernels off vpdpbusd: the AVX2 row on a CPU that has VNNI. Every set
 * gives the same bits (exact int32 sums, one requantization). */
#ifndef PZ_RT_KERNELS_QUANT_QISA_H
#define PZ_RT_KERNELS_QUANT_QISA_H

#include "rt/kernels/kernels.h"

typedef enum { PZ_Q8_SCALAR, PZ_Q8_AVX2, PZ_Q8_AVXVNNI, PZ_Q8_VNNI } pz_q8_kernel;

static inline pz_q8_kernel pz_q8_kernel_for(pz_isa isa, int novnni)
{
#ifndef PZ_SCALAR
    if (!novnni && isa == PZ_ISA_AVX512 && pz_cpu_has_vnni()) return PZ_Q8_VNNI;
    if (!novnni && isa >= PZ_ISA_AVX2 && pz_cpu_has_avxvnni()) return PZ_Q8_AVXVNNI;
    if (isa >= PZ_ISA_AVX2 && pz_cpu_isa() >= PZ_ISA_AVX2) return PZ_Q8_AVX2;
#endif
    (void)isa, (void)novnni;
    return PZ_Q8_SCALAR;
}

/* The set's name, as a layer's kernel shows it ("vnni", "avxvnni", "avx2",
 * "scalar"). */
static inline const char *pz_q8_kernel_name(pz_q8_kernel k)
{
    return k == PZ_Q8_VNNI      ? "vnni"
           : k == PZ_Q8_AVXVNNI ? "avxvnni"
           : k == PZ_Q8_AVX2    ? "avx2"
                                : "scalar";
}

#endif
