/* stats.h - what the per-kernel benches share (header only, like
 * fma_peak.h): medians and seeded random buffers.
 *
 *     #include "../common/stats.h"
 */
#ifndef PZ_BENCH_STATS_H
#define PZ_BENCH_STATS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline float *new_rand(int64_t n, unsigned *seed)
{
    float *p = aligned_alloc(64, (size_t)((n * 4 + 63) / 64 * 64));
    if (!p) {
        fprintf(stderr, "bench: error: out of memory\n");
        exit(1);
    }
    for (int64_t i = 0; i < n; i++) {
        *seed = *seed * 1664525u + 1013904223u;
        p[i] = (float)(*seed >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
    }
    return p;
}

#endif
