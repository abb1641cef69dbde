/* fma_peak.h - this machine's FP32 FMA peak on one core, probed now, and the
 * clock the benchmarks time with. Header only (static functions): each bench
 * is one .c file that its run.sh builds alone with cc, so there is nothing
 * else to link. Used by bench/kernels (a probe between layer calls),
 * bench/winograd (one probe at the start) and bench/peers/peak.c (1..N
 * threads, the yardstick of the peer benchmark).
 *
 * The probe runs 12 independent FMA chains on ZMM (AVX-512) or YMM (AVX2 +
 * FMA) registers: 12 chains cover 2 FMA ports x 4 cycles of latency with room
 * to spare, so the loop is bound by FMA throughput alone. One round is 12
 * FMAs of 16 (ZMM) or 8 (YMM) lanes, 2 FLOPs each.
 *
 *     #include "../common/fma_peak.h"
 *
 *     double gflops = fma_peak_gflops(1, 15000);   // ZMM, about 50 us
 *     double t = fma_chains_seconds(0, iters);      // YMM: iters * fma_round_flops(0) FLOPs
 *
 * The target attributes compile the ZMM and YMM loops whatever -march the
 * bench is built with; the caller must only run the ZMM one on a CPU with
 * AVX-512 (__builtin_cpu_supports("avx512f")) and the YMM one with AVX2+FMA.
 */
#ifndef PZ_BENCH_FMA_PEAK_H
#define PZ_BENCH_FMA_PEAK_H

#include <immintrin.h>
#include <stddef.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* FLOPs of one round of the probe: 12 chains x 2 x lanes. */
static inline double fma_round_flops(int zmm)
{
    return 12 * 2 * (zmm ? 16 : 8);
}

/* The body of the probe for one register type V: 12 chains a = a * m + c,
 * timed; their sum goes to a volatile, so that none is optimised away.
 * Distinct starting values, else the compiler merges identical chains. */
#define FMA_CHAINS_(V, SET1, FMADD, ADD, STOREU)                                   \
    V m = SET1(0.999f), c = SET1(1e-3f);                                           \
    V a0 = SET1(0.0f), a1 = SET1(0.1f), a2 = SET1(0.2f), a3 = SET1(0.3f);          \
    V a4 = SET1(0.4f), a5 = SET1(0.5f), a6 = SET1(0.6f), a7 = SET1(0.7f);          \
    V a8 = SET1(0.8f), a9 = SET1(0.9f), a10 = SET1(1.0f), a11 = SET1(1.1f);        \
    double t = bench_now();                                                        \
    for (long i = 0; i < iters; i++) {                                             \
        a0 = FMADD(a0, m, c), a1 = FMADD(a1, m, c), a2 = FMADD(a2, m, c);          \
        a3 = FMADD(a3, m, c), a4 = FMADD(a4, m, c), a5 = FMADD(a5, m, c);          \
        a6 = FMADD(a6, m, c), a7 = FMADD(a7, m, c), a8 = FMADD(a8, m, c);          \
        a9 = FMADD(a9, m, c), a10 = FMADD(a10, m, c), a11 = FMADD(a11, m, c);      \
    }                                                                              \
    t = bench_now() - t;                                                           \
    V s = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));       \
    s = ADD(s, ADD(ADD(a8, a9), ADD(a10, a11)));                                   \
    float o[sizeof(V) / sizeof(float)], sum = 0;                                   \
    STOREU(o, s);                                                                  \
    for (size_t k = 0; k < sizeof o / sizeof o[0]; k++) sum += o[k];               \
    volatile float sink = sum;                                                     \
    (void)sink;                                                                    \
    return t

/* Seconds for `iters` rounds of the 12 chains on ZMM. */
__attribute__((target("avx512f"))) static inline double fma_chains_zmm_(long iters)
{
    FMA_CHAINS_(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps);
}

/* The same on YMM. */
__attribute__((target("avx2,fma"))) static inline double fma_chains_ymm_(long iters)
{
    FMA_CHAINS_(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps);
}

#undef FMA_CHAINS_

/* Seconds for `iters` rounds on ZMM (zmm != 0) or YMM: iters *
 * fma_round_flops(zmm) FLOPs. */
static inline double fma_chains_seconds(int zmm, long iters)
{
    return zmm ? fma_chains_zmm_(iters) : fma_chains_ymm_(iters);
}

/* GFLOP/s of one probe of `iters` rounds on ZMM (zmm != 0) or YMM. */
static inline double fma_peak_gflops(int zmm, long iters)
{
    return (double)iters * fma_round_flops(zmm) / fma_chains_seconds(zmm, iters) * 1e-9;
}

#endif
