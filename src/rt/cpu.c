/* cpu.c - the instruction sets this CPU offers, for choosing kernels at
 * compile time (an op's prepare), and how many cores it has online. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/kernels/kernels.h"

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
    /* PZ_ISA=ref|scalar|avx2|avx512 caps the choice (tests compare kernels
     * this way) */
    const char *env = getenv("PZ_ISA");
    if (env) {
        pz_isa cap = strcmp(env, "ref") == 0 ? PZ_ISA_REF
                   : strcmp(env, "scalar") == 0 ? PZ_ISA_SCALAR
                   : strcmp(env, "avx2") == 0 ? PZ_ISA_AVX2 : PZ_ISA_AVX512;
        if (cap < best) best = cap;
    }
    return best;
}

int pz_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n <= 4096 ? (int)n : 1;
}
