/* peak.c - this machine's FP32 FMA peak, measured now, at 1..N threads: the
 * yardstick for the peer benchmark's "% of peak" (bench/peers/run.sh builds it).
 *
 *   peak [--threads N] [--ms T]
 *
 * Each of N threads runs 12 independent FMA chains on ZMM registers (AVX-512;
 * YMM with FMA where the CPU has no AVX-512) for about T ms (default 200),
 * after a short warm-up that lets the core reach its AVX-512 frequency. Twelve
 * chains cover 2 FMA ports x 4 cycles of latency with room to spare. Prints
 *
 *   peak_gflops threads=N total=X per_thread=Y isa=avx512
 *
 * where total is the sum over threads of 2 x 16 x FMAs / seconds (each
 * thread's own time), so a thread that was descheduled on a loaded machine
 * lowers the figure: the harness takes the median of several probes.
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define FZ(v) v = _mm512_fmadd_ps(v, m, c)
#define FY(v) v = _mm256_fmadd_ps(v, m, c)

/* Seconds for `iters` x 12 FMAs on ZMM (FLOPs: iters * 12 * 32). */
__attribute__((target("avx512f"))) static double run_zmm(long iters)
{
    /* distinct starting values, else the compiler merges identical chains */
    __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
    __m512 a0 = _mm512_set1_ps(0.0f), a1 = _mm512_set1_ps(0.1f), a2 = _mm512_set1_ps(0.2f),
           a3 = _mm512_set1_ps(0.3f), a4 = _mm512_set1_ps(0.4f), a5 = _mm512_set1_ps(0.5f),
           a6 = _mm512_set1_ps(0.6f), a7 = _mm512_set1_ps(0.7f), a8 = _mm512_set1_ps(0.8f),
           a9 = _mm512_set1_ps(0.9f), a10 = _mm512_set1_ps(1.0f), a11 = _mm512_set1_ps(1.1f);
    double t = now();
    for (long i = 0; i < iters; i++) {
        FZ(a0); FZ(a1); FZ(a2); FZ(a3); FZ(a4); FZ(a5);
        FZ(a6); FZ(a7); FZ(a8); FZ(a9); FZ(a10); FZ(a11);
    }
    t = now() - t;
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    volatile float sink = _mm512_reduce_add_ps(s);   /* keeps the chains alive */
    (void)sink;
    return t;
}

/* The same on YMM (FLOPs: iters * 12 * 16). */
__attribute__((target("avx2,fma"))) static double run_ymm(long iters)
{
    __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(1e-3f);
    __m256 a0 = _mm256_set1_ps(0.0f), a1 = _mm256_set1_ps(0.1f), a2 = _mm256_set1_ps(0.2f),
           a3 = _mm256_set1_ps(0.3f), a4 = _mm256_set1_ps(0.4f), a5 = _mm256_set1_ps(0.5f),
           a6 = _mm256_set1_ps(0.6f), a7 = _mm256_set1_ps(0.7f), a8 = _mm256_set1_ps(0.8f),
           a9 = _mm256_set1_ps(0.9f), a10 = _mm256_set1_ps(1.0f), a11 = _mm256_set1_ps(1.1f);
    double t = now();
    for (long i = 0; i < iters; i++) {
        FY(a0); FY(a1); FY(a2); FY(a3); FY(a4); FY(a5);
        FY(a6); FY(a7); FY(a8); FY(a9); FY(a10); FY(a11);
    }
    t = now() - t;
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float o[8];
    _mm256_storeu_ps(o, s);
    volatile float sink = o[0];
    (void)sink;
    return t;
}

static int use_zmm;
static double ms = 200;

typedef struct {
    pthread_t tid;
    double gflops;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    double flops_per_iter = use_zmm ? 12 * 32 : 12 * 16;
    long iters = 100000;
    double t = 0;
    /* warm-up (frequency licence), then grow the loop until it takes about 1/4
     * of the time asked for; the measured run is 4 of those */
    for (;;) {
        t = use_zmm ? run_zmm(iters) : run_ymm(iters);
        if (t * 1e3 >= ms / 4 || iters > (1L << 40)) break;
        iters *= 2;
    }
    iters *= 4;
    t = use_zmm ? run_zmm(iters) : run_ymm(iters);
    w->gflops = (double)iters * flops_per_iter / t * 1e-9;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--ms") && i + 1 < argc) {
            ms = atof(argv[++i]);
        } else {
            fprintf(stderr, "peak: error: usage: peak [--threads N] [--ms T]\n");
            return 2;
        }
    }
    if (n < 1 || n > 256 || !(ms > 0)) {
        fprintf(stderr, "peak: error: --threads wants 1..256, --ms a positive number\n");
        return 2;
    }
    __builtin_cpu_init();
    use_zmm = __builtin_cpu_supports("avx512f");
    if (!use_zmm && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
        fprintf(stderr, "peak: error: this CPU has neither AVX-512 nor AVX2+FMA\n");
        return 1;
    }
    worker *w = calloc((size_t)n, sizeof *w);
    if (!w) return 1;
    for (int i = 0; i < n; i++)
        if (pthread_create(&w[i].tid, NULL, work, &w[i])) {
            fprintf(stderr, "peak: error: cannot start thread %d\n", i);
            return 1;
        }
    double total = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(w[i].tid, NULL);
        total += w[i].gflops;
    }
    printf("peak_gflops threads=%d total=%.1f per_thread=%.1f isa=%s\n", n, total, total / n,
           use_zmm ? "avx512" : "avx2");
    free(w);
    return 0;
}
