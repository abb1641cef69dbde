/* critical.c - OpCount_critical read off the characterize timings, as DLFusion
 * IV.C reads it off its Fig. 3b (one core's GFLOP/s against op count) and
 * Fig. 7c (fused against unfused). The single-core value is a least-squares
 * fit over all its points, so a small change in the timings moves it a
 * little, where a bin picked from single points jumped by a decade (5.6e7
 * and 5.6e8 on the same day). The fusion value is a median over the chains
 * for the same reason: one disturbed chain cannot move it far. */
#include <math.h>
#include <stdlib.h>

#include "lab.h"

double lab_critical_single(const double *ops, const double *ms, int n)
{
    /* rows (1/t, ops/t) . (t0, 1/P) = 1: each point's relative error counts
     * the same, small layer or large */
    double ata[4] = {0}, atb[2] = {0}, lo = INFINITY;
    for (int i = 0; i < n; i++) {
        if (!(ms[i] > 0) || !(ops[i] > 0)) continue;
        double r[2] = {1 / ms[i], ops[i] / ms[i]};
        for (int u = 0; u < 2; u++) {
            atb[u] += r[u];
            for (int v = 0; v < 2; v++) ata[u * 2 + v] += r[u] * r[v];
        }
        lo = fmin(lo, ops[i]);
    }
    if (!isfinite(lo)) return 1e8;   /* no conv timed at all: a middle value */
    double det = ata[0] * ata[3] - ata[1] * ata[2];
    if (!(fabs(det) > 0)) return lo;
    double t0 = (atb[0] * ata[3] - ata[1] * atb[1]) / det;      /* ms */
    double inv_p = (ata[0] * atb[1] - ata[2] * atb[0]) / det;   /* ms per FLOP */
    if (!(t0 > 0) || !(inv_p > 0)) return lo;   /* no fixed cost seen */
    /* ops / P = 0.85 (t0 + ops / P) */
    return fmax(lo, 0.85 / 0.15 * t0 / inv_p);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lab_critical_fusion(const double *block_ops, const double *gain, int n)
{
    double *v = pz_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (gain[i] >= LAB_FUSE_GAIN_MIN && block_ops[i] > 0 && isfinite(block_ops[i])) v[m++] = block_ops[i];
    double r = NAN;
    if (m) {
        qsort(v, (size_t)m, sizeof *v, cmp_double);
        r = m % 2 ? v[m / 2] : sqrt(v[m / 2 - 1] * v[m / 2]);
    }
    free(v);
    return r;
}
