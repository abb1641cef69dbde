/* cpu.c - the instruction sets this CPU offers, for choosing kernels at
 * compile time (an op's prepare), capped by the run options (cpu.h), and
 * how many cores it has online. */
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "rt/cpu.h"

pz_isa pz_cpu_isa(void)
{
    pz_isa best = PZ_ISA_SCALAR;
#if !defined(PZ_SCALAR) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = PZ_ISA_AVX2;
    if (best == PZ_ISA_AVX2 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        best = PZ_ISA_AVX512;
#endif
    return best;
}

int pz_cpu_has_vnni(void)
{
#if !defined(PZ_SCALAR) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return pz_cpu_isa() == PZ_ISA_AVX512 && __builtin_cpu_supports("avx512vnni");
#else
    return 0;
#endif
}

int pz_cpu_has_avxvnni(void)
{
#if !defined(PZ_SCALAR) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return pz_cpu_isa() >= PZ_ISA_AVX2 && pz_cpu_host_avxvnni();
#else
    return 0;
#endif
}

/* AVX-VNNI is CPUID leaf 7 sub-leaf 1, EAX bit 4; read it directly because
 * clang 14's __builtin_cpu_supports does not know the name "avxvnni". */
int pz_cpu_host_avxvnni(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d)) return 0;
    return (a >> 4) & 1;
#else
    return 0;
#endif
}

_Static_assert(PZ_RUN_ISA_REF == (int)PZ_ISA_REF && PZ_RUN_ISA_SCALAR == (int)PZ_ISA_SCALAR &&
                   PZ_RUN_ISA_AVX2 == (int)PZ_ISA_AVX2 && PZ_RUN_ISA_AVX512 == (int)PZ_ISA_AVX512,
               "pz_run_isa caps name pz_isa values");

pz_isa pz_isa_capped(int cap)
{
    pz_isa best = pz_cpu_isa();
    return cap >= PZ_RUN_ISA_REF && cap < (int)best ? (pz_isa)cap : best;
}

int pz_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n <= 4096 ? (int)n : 1;
}
