/* peak.c - this machine's FP32 FMA peak, measured now, at 1..N threads: the
 * yardstick for the peer benchmark's "% of peak" (bench/peers/run.sh builds it).
 *
 *   peak [--threads N] [--ms T]
 *
 * Each of N threads runs the probe of bench/common/fma_peak.h, 12 independent
 * FMA chains on ZMM registers (AVX-512; YMM with FMA where the CPU has no
 * AVX-512), for about T ms (default 200), after a short warm-up that lets the
 * core reach its AVX-512 frequency. Prints
 *
 *   peak_gflops threads=N total=X per_thread=Y isa=avx512
 *
 * where total is the sum over threads of 2 x 16 x FMAs / seconds (each
 * thread's own time), so a thread that was descheduled on a loaded machine
 * lowers the figure: the harness takes the median of several probes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fma_peak.h"

static int use_zmm;
static double ms = 200;

typedef struct {
    pthread_t tid;
    double gflops;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    long iters = 100000;
    double t = 0;
    /* warm-up (frequency licence), then grow the loop until it takes about 1/4
     * of the time asked for; the measured run is 4 of those */
    for (;;) {
        t = fma_chains_seconds(use_zmm, iters);
        if (t * 1e3 >= ms / 4 || iters > (1L << 40)) break;
        iters *= 2;
    }
    iters *= 4;
    t = fma_chains_seconds(use_zmm, iters);
    w->gflops = (double)iters * fma_round_flops(use_zmm) / t * 1e-9;
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
