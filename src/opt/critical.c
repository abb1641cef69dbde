/* critical.c - OpCount_critical read off the characterize timings, as DLFusion
 * IV.C reads it off its Fig. 3b (one core's GFLOP/s against op count) and
 * Fig. 7c (fused against unfused). Both are least-squares fits over all their
 * points: a small change in the timings moves the value a little, where a
 * bin or a threshold picked from single points can jump by a decade (the
 * binned estimate it replaces gave 5.6e7 and 5.6e8 on the same day). */
#include "opt_internal.h"

double opt_critical_single(const double *ops, const double *ms, int n)
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

double opt_critical_fusion(const double *lx, const double *gain, int n)
{
    if (n < 2) return NAN;
    double mx = 0, my = 0, sxx = 0, sxy = 0, xlo = INFINITY, xhi = -INFINITY;
    for (int i = 0; i < n; i++) mx += lx[i] / n, my += gain[i] / n;
    for (int i = 0; i < n; i++) {
        sxx += (lx[i] - mx) * (lx[i] - mx);
        sxy += (lx[i] - mx) * (gain[i] - my);
        xlo = fmin(xlo, lx[i]);
        xhi = fmax(xhi, lx[i]);
    }
    xlo -= 0.5, xhi += 0.5;   /* at most half a decade beyond the chains */
    if (!(sxx > 0) || sxy >= 0)   /* the gain does not fall with size */
        return pow(10, my >= OPT_FUSE_GAIN_MIN ? xhi : xlo);
    double x = mx + (OPT_FUSE_GAIN_MIN - my) / (sxy / sxx);
    return pow(10, fmin(xhi, fmax(xlo, x)));
}
