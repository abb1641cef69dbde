/* q8_test.h - what the int8 kernel tests over qgemm's kernel sets share
 * (rt_qgemm.c, rt_qconv_dyn.c): integers from rt_test.h's LCG, and the
 * sets by pz_q8_kernel with the ISA that asks for each. Include after
 * rt_test.h, once. */
#ifndef PZ_TESTS_Q8_TEST_H
#define PZ_TESTS_Q8_TEST_H

#include "rt/kernels/quant/qisa.h"

static uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

static int irnd(int a, int b)
{
    return a + (int)(rnd() % (uint32_t)(b - a + 1));
}

/* The kernel sets tried, by pz_q8_kernel: scalar, AVX2 (novnni),
 * AVX-VNNI, VNNI. */
#define NK 4
static const pz_isa KISA[NK] = {PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX2, PZ_ISA_AVX512};
static const char *const KNAME[NK] = {"scalar", "avx2", "avxvnni", "vnni"};

static int kernel_here(int k)
{
    return k == PZ_Q8_SCALAR || (k == PZ_Q8_AVX2 && pz_cpu_isa() >= PZ_ISA_AVX2) ||
           (k == PZ_Q8_AVXVNNI && pz_cpu_has_avxvnni()) || (k == PZ_Q8_VNNI && pz_cpu_has_vnni());
}

#endif
