/* forkjoin.c - the cost of one fork-join of the runtime's thread pool:
 * pz_pool_run of an empty task at nth = 2 (the caller and one pinned
 * worker), timed one call at a time, median over many calls. Also the
 * barrier a layer with input conversions adds (pz_barrier_wait), and nth = 1
 * (inline: the call overhead only). Goal: a fork-join under 2 us.
 *
 *   forkjoin [--runs N] [--threads T]
 *
 * Built and run by bench/forkjoin/run.sh. Prints one line per measurement:
 *   forkjoin nth=2: median 0.85 us  p10 .. p90 .. (N runs)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/net.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void empty_task(void *ctx, int ith, int nth)
{
    (void)ctx, (void)ith, (void)nth;
}

static pz_barrier barrier;

static void barrier_task(void *ctx, int ith, int nth)
{
    (void)ctx, (void)ith;
    pz_barrier_wait(&barrier, nth);
}

/* Times `runs` calls one by one (after a warm-up) and prints the median. */
static double measure(const char *what, pz_pool *pool, int nth, pz_task_fn fn, int runs)
{
    double *t = malloc(sizeof(double) * (size_t)runs);
    for (int i = 0; i < 1000; i++) pz_pool_run(pool, nth, fn, NULL);
    for (int i = 0; i < runs; i++) {
        double t0 = now_us();
        pz_pool_run(pool, nth, fn, NULL);
        t[i] = now_us() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    double med = t[runs / 2];
    printf("forkjoin %-22s nth=%d: median %.3f us  p10 %.3f  p90 %.3f  (%d runs)\n", what, nth,
           med, t[runs / 10], t[runs * 9 / 10], runs);
    free(t);
    return med;
}

int main(int argc, char **argv)
{
    int runs = 100000, threads = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: forkjoin [--runs N] [--threads T]\n");
            return 2;
        }
    }
    if (runs < 10) runs = 10;
    if (threads < 2) threads = 2;
    pz_pool *pool = pz_pool_new(threads);
    if (!pool) {
        fprintf(stderr, "forkjoin: cannot start %d workers\n", threads);
        return 1;
    }
    measure("empty task (inline)", pool, 1, empty_task, runs);
    double fj = 0;
    for (int nth = 2; nth <= pz_pool_size(pool); nth++) {
        double m = measure("empty task", pool, nth, empty_task, runs);
        if (nth == 2) fj = m;
    }
    measure("task with a barrier", pool, 2, barrier_task, runs);
    printf("forkjoin: fork-join at nth=2 %.3f us, goal < 2 us: %s\n", fj,
           fj < 2.0 ? "met" : "NOT met");
    pz_pool_free(pool);
    return 0;
}
