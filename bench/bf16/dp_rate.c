/* dp_rate.c - this CPU's instruction rate of vdpbf16ps (AVX512-BF16: 32
 * bf16 products into 16 fp32 sums) against vfmadd231ps (16 fp32 FMAs), ZMM,
 * one thread: 28 independent chains of each, and 4 chains of vdpbf16ps
 * (a latency-bound rate would differ from the 28-chain one). A bf16 kernel
 * gains over fp32 only where vdpbf16ps runs at more than half the FMA's
 * rate. Built and run by bench/bf16/run.sh before the layers.
 *
 *   bench_dp_rate    prints ns per instruction, medians of 5 interleaved rounds */
#include <stdio.h>

#include "../common/fma_peak.h"
#include "../common/stats.h"

#define R4(I) I(0) I(1) I(2) I(3)
#define R28(I) R4(I) I(4) I(5) I(6) I(7) I(8) I(9) I(10) I(11) I(12) I(13) I(14) I(15) \
    I(16) I(17) I(18) I(19) I(20) I(21) I(22) I(23) I(24) I(25) I(26) I(27)
#define F(i) "vfmadd231ps %%zmm30, %%zmm31, %%zmm" #i "\n\t"
#define D(i) "vdpbf16ps %%zmm30, %%zmm31, %%zmm" #i "\n\t"

__attribute__((target("avx512f,avx512bf16"))) static double rate(int which, long n)
{
    const double t0 = bench_now();
    long k = n;
    __asm__ volatile("vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31" ::
                         : "xmm30", "xmm31");
    if (which == 0)
        __asm__ volatile("1:\n\t" R28(F) "dec %0\n\tjnz 1b" : "+r"(k) : : "memory");
    else if (which == 1)
        __asm__ volatile("1:\n\t" R28(D) "dec %0\n\tjnz 1b" : "+r"(k) : : "memory");
    else
        __asm__ volatile("1:\n\t" R4(D) "dec %0\n\tjnz 1b" : "+r"(k) : : "memory");
    return (bench_now() - t0) / ((double)n * (which == 2 ? 4 : 28)) * 1e9;
}

int main(void)
{
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bf16")) {
        fprintf(stderr, "bench_dp_rate: error: this CPU has no AVX-512 with BF16\n");
        return 1;
    }
    double t[3][5];
    for (int r = 0; r < 5; r++)
        for (int i = 0; i < 3; i++) t[i][r] = rate(i, i == 2 ? 7000000 : 1000000);
    const double f = median(t[0], 5), d = median(t[1], 5), d4 = median(t[2], 5);
    printf("bench/bf16: ns per instruction: vfmadd231ps zmm %.3f, vdpbf16ps zmm %.3f (4 chains "
           "%.3f); products per ns, bf16 / fp32: %.2f\n", f, d, d4, 2 * f / d);
    return 0;
}
