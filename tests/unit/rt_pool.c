/* rt_pool.c - the runtime's thread pool: every share runs exactly once, on
 * every nth, over many fork-joins; and how long a fork-join takes.
 *
 *   rt_pool [--bench]
 *
 * Prints `rt_pool: P passed, F failed`; exit 1 on a failure. With --bench
 * also the fork-join latency (informational; the goal is < 2 us on 2 cores).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/pool.h"
#include "rt/pz_rt.h"
#include "test_check.h"

#define MAXT 16

typedef struct {
    _Atomic int hits[MAXT];   /* times each ith ran in this job */
    _Atomic int bad_nth;      /* a share that saw the wrong nth */
    int want_nth;
    long long sum[MAXT];      /* per-share result slots, written without atomics */
} job;

static void task(void *ctx, int ith, int nth)
{
    job *j = ctx;
    if (nth != j->want_nth || ith < 0 || ith >= nth) atomic_fetch_add(&j->bad_nth, 1);
    if (ith >= 0 && ith < MAXT) {
        atomic_fetch_add(&j->hits[ith], 1);
        long long s = 0;
        for (int i = 0; i < 100 * (ith + 1); i++) s += i;
        j->sum[ith] = s;   /* read by the caller after the join */
    }
}

/* Every ith in [0, nth) runs exactly once per job, for every nth, many times. */
static void test_exactly_once(int size, int iters)
{
    pz_pool *p = pz_pool_new(size);
    char what[128];
    snprintf(what, sizeof what, "pool of %d: created with that size", size);
    check(p && pz_pool_size(p) == size, what);
    if (!p) return;
    int errors = 0;
    for (int it = 0; it < iters; it++) {
        for (int nth = 1; nth <= size; nth++) {
            job j;
            memset(&j, 0, sizeof j);
            j.want_nth = nth;
            pz_pool_run(p, nth, task, &j);
            for (int i = 0; i < MAXT; i++) {
                int want = i < nth ? 1 : 0;
                if (atomic_load(&j.hits[i]) != want) errors++;
                if (i < nth && j.sum[i] != (long long)(100 * (i + 1)) * (100 * (i + 1) - 1) / 2)
                    errors++;
            }
            if (atomic_load(&j.bad_nth)) errors++;
        }
    }
    snprintf(what, sizeof what, "pool of %d: %d x nth 1..%d, every share exactly once (%d errors)",
             size, iters, size, errors);
    check(errors == 0, what);
    pz_pool_free(p);
}

/* Workers that went to sleep (long idle) still wake for the next job. */
static void test_wake_after_sleep(void)
{
    pz_pool *p = pz_pool_new(3);
    int errors = 0;
    for (int it = 0; it < 5; it++) {
        struct timespec ts = {0, 2 * 1000 * 1000};   /* 2 ms: beyond the spin */
        nanosleep(&ts, NULL);
        job j;
        memset(&j, 0, sizeof j);
        j.want_nth = 3;
        pz_pool_run(p, 3, task, &j);
        for (int i = 0; i < 3; i++) errors += atomic_load(&j.hits[i]) != 1;
    }
    check(errors == 0, "workers wake from sleep");
    pz_pool_free(p);
}

static void noop(void *ctx, int ith, int nth)
{
    (void)ctx; (void)ith; (void)nth;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over 21 batches of the mean fork-join time of a batch, in ns. */
static double bench(int nth, int iters)
{
    pz_pool *p = pz_pool_new(nth);
    double t[21];
    for (int i = 0; i < 1000; i++) pz_pool_run(p, nth, noop, NULL);
    for (int k = 0; k < 21; k++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < iters; i++) pz_pool_run(p, nth, noop, NULL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[k] = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / iters;
    }
    pz_pool_free(p);
    qsort(t, 21, sizeof t[0], cmp_double);
    return t[10];
}

static void cpu_task(void *ctx, int ith, int nth)
{
    int *cpu = ctx;
    if (ith < 2) cpu[ith] = sched_getcpu();
}

/* pz_pool_hold puts the caller on the CPU no worker is pinned to, for the
 * run, and pz_pool_release gives its mask back; unpinned, hold is a no-op. */
static void test_hold(void)
{
    cpu_set_t before, after, during;
    if (sched_getaffinity(0, sizeof before, &before) || CPU_COUNT(&before) < 2) {
        printf("rt_pool: fewer than 2 CPUs allowed: hold not tested\n");
        return;
    }
    pz_pool *p = pz_pool_start(2, 200, 1);
    CHECK(p != NULL);
    if (!p) return;
    pz_pool_hold(p);
    CHECK(sched_getaffinity(0, sizeof during, &during) == 0 && CPU_COUNT(&during) == 1 &&
          CPU_ISSET(pz_pool_home_cpu(p), &during));
    int cpu[2] = {-1, -1};
    for (int k = 0; k < 50; k++) {
        pz_pool_run(p, 2, cpu_task, cpu);
        CHECK(cpu[0] == pz_pool_home_cpu(p) && cpu[1] >= 0 && cpu[1] != cpu[0]);
    }
    pz_pool_release(p);
    CHECK(sched_getaffinity(0, sizeof after, &after) == 0 && CPU_EQUAL(&before, &after));
    pz_pool_free(p);
    p = pz_pool_start(2, 200, 0);   /* unpinned: nothing held */
    pz_pool_hold(p);
    CHECK(sched_getaffinity(0, sizeof during, &during) == 0 && CPU_EQUAL(&before, &during));
    pz_pool_release(p);
    pz_pool_free(p);
}

int main(int argc, char **argv)
{
    test_hold();
    test_exactly_once(1, 100);
    test_exactly_once(2, 20000);
    test_exactly_once(4, 3000);
    test_exactly_once(7, 500);
    test_wake_after_sleep();
    if (argc > 1 && strcmp(argv[1], "--bench") == 0)
        for (int nth = 2; nth <= 4; nth++)
            printf("fork-join nth=%d: %.0f ns (median of 21 batches)\n", nth, bench(nth, 5000));
    return test_summary("rt_pool");
}
