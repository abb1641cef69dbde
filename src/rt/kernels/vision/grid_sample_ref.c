/* grid_sample_ref.c - reference GridSample: every output point reads the
 * input at the grid's normalised coordinates (x first: grid[..., 0] indexes
 * the last spatial axis), nearest, linear or cubic, padded by zeros, the
 * border or reflection. Separable: per axis up to 4 (index, weight) taps,
 * an index of -1 reading zero. Any float type through double. */
#include "rt/kernels/kernels.h"

/* Reflects x into [lo, hi] by the nearer border, as often as it takes. */
static double gs_reflect(double x, double lo, double hi)
{
    double rng = hi - lo;
    if (rng <= 0) return lo;
    if (x < lo) {
        double dx = lo - x;
        int64_t k = (int64_t)(dx / rng);
        double r = dx - (double)k * rng;
        return k % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        double dx = x - hi;
        int64_t k = (int64_t)(dx / rng);
        double r = dx - (double)k * rng;
        return k % 2 == 0 ? hi - r : lo + r;
    }
    return x;
}

/* The element index read for integer position i of an axis of length len:
 * -1 (zero) outside for ZEROS, clamped for BORDER, reflected (then
 * truncated) for REFLECTION. */
static int64_t gs_index(const pz_grid_sample_params *p, int64_t i, int64_t len, double lo,
                        double hi)
{
    if (p->padding == PZ_GS_BORDER) return i < 0 ? 0 : i >= len ? len - 1 : i;
    if (p->padding == PZ_GS_REFLECTION && (i < 0 || i >= len)) {
        i = (int64_t)gs_reflect((double)i, lo, hi);
        return i < 0 ? 0 : i >= len ? len - 1 : i;
    }
    return i >= 0 && i < len ? i : -1;
}

/* Cubic convolution weights (A = -0.75) of the 4 taps around fraction t. */
static void gs_cubic(double t, double *w)
{
    const double A = -0.75;
    double x0 = t + 1, x1 = t, x2 = 1 - t, x3 = 2 - t;
    w[0] = ((A * x0 - 5 * A) * x0 + 8 * A) * x0 - 4 * A;
    w[1] = ((A + 2) * x1 - (A + 3)) * x1 * x1 + 1;
    w[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;
    w[3] = ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A;
}

/* The taps of one axis for normalised coordinate g: returns their count. */
static int gs_taps(const pz_grid_sample_params *p, double g, int64_t len, int64_t *idx,
                   double *w)
{
    double lo = p->align_corners ? 0 : -0.5, hi = p->align_corners ? len - 1 : len - 0.5;
    double x = p->align_corners ? (g + 1) / 2 * (len - 1) : ((g + 1) * len - 1) / 2;
    if (p->mode == PZ_GS_NEAREST) x = nearbyint(x);   /* half to even, like numpy's rint */
    if (x < lo || x > hi) {
        if (p->padding == PZ_GS_BORDER) x = x < 0 ? 0 : x > len - 1 ? len - 1 : x;
        else if (p->padding == PZ_GS_REFLECTION) x = gs_reflect(x, lo, hi);
    }
    if (p->mode == PZ_GS_NEAREST) {
        idx[0] = gs_index(p, (int64_t)x, len, lo, hi);
        w[0] = 1;
        return 1;
    }
    double f = floor(x), t = x - f;
    if (p->mode == PZ_GS_LINEAR) {
        idx[0] = gs_index(p, (int64_t)f, len, lo, hi);
        idx[1] = gs_index(p, (int64_t)f + 1, len, lo, hi);
        w[0] = 1 - t;
        w[1] = t;
        return 2;
    }
    gs_cubic(t, w);
    for (int k = 0; k < 4; k++) idx[k] = gs_index(p, (int64_t)f - 1 + k, len, lo, hi);
    return 4;
}

void pz_any_grid_sample__ref(const pz_grid_sample_params *p, int dt, int nsp, const int64_t *xd,
                             const int64_t *yd, const void *x, const void *grid, void *y,
                             int ith, int nth)
{
    /* the spatial dims padded to 3 in front (length 1, one tap of index 0) */
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    for (int i = 0; i < nsp; i++) {
        in[3 - nsp + i] = xd[2 + i];
        out[3 - nsp + i] = yd[2 + i];
    }
    int64_t N = xd[0], C = xd[1], npt = out[0] * out[1] * out[2], xsp = in[0] * in[1] * in[2];
    int64_t lo, hi;
    pz_split(N * npt, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t n = r / npt, o = r % npt;
        int64_t idx[3][4] = {{0}, {0}, {0}};
        double w[3][4] = {{1}, {1}, {1}};
        int cnt[3] = {1, 1, 1};
        for (int a = 0; a < nsp; a++) {   /* axis a of nsp reads grid component nsp-1-a */
            double g = pz_ld(grid, dt, r * nsp + (nsp - 1 - a));
            int ax = 3 - nsp + a;
            cnt[ax] = gs_taps(p, g, in[ax], idx[ax], w[ax]);
        }
        for (int64_t c = 0; c < C; c++) {
            int64_t base = (n * C + c) * xsp;
            double acc = 0;
            for (int i = 0; i < cnt[0]; i++)
                for (int j = 0; j < cnt[1]; j++)
                    for (int k = 0; k < cnt[2]; k++) {
                        if (idx[0][i] < 0 || idx[1][j] < 0 || idx[2][k] < 0) continue;
                        double v = pz_ld(x, dt, base + (idx[0][i] * in[1] + idx[1][j]) * in[2] +
                                                    idx[2][k]);
                        acc += w[0][i] * w[1][j] * w[2][k] * v;
                    }
            pz_st(y, dt, (n * C + c) * npt + o, acc);
        }
    }
}
