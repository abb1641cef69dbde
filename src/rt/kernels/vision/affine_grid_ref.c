/* affine_grid_ref.c - reference AffineGrid: grid[n, p] = theta[n] (x, y[, z],
 * 1) for the normalised coordinates of each output point p (x along the
 * last axis), -1..1 over the corners' centres (align_corners) or the
 * pixels' centres: (2i + 1)/L - 1. Any float type through double. */
#include "rt/kernels/kernels.h"

static double ag_coord(int64_t i, int64_t len, int align)
{
    if (align) return len > 1 ? -1.0 + 2.0 * (double)i / (double)(len - 1) : 0.0;
    return (2.0 * (double)i + 1.0) / (double)len - 1.0;
}

void pz_any_affine_grid__ref(const pz_affine_grid_params *p, int dt, int64_t N,
                             const void *theta, void *grid, int ith, int nth)
{
    int r = p->nsp;
    int64_t npt = 1;
    for (int i = 0; i < r; i++) npt *= p->size[i];
    int64_t lo, hi;
    pz_split(N * npt, ith, nth, &lo, &hi);
    for (int64_t e = lo; e < hi; e++) {
        int64_t n = e / npt, rem = e % npt;
        double c[PZ_MAX_SPATIAL + 1];   /* (x, y, z, 1): the last axis first */
        for (int i = r - 1, j = 0; i >= 0; i--, j++) {
            c[j] = ag_coord(rem % p->size[i], p->size[i], p->align_corners);
            rem /= p->size[i];
        }
        c[r] = 1;
        int64_t to = n * r * (r + 1);   /* theta [N, r, r + 1] */
        for (int k = 0; k < r; k++) {
            double acc = 0;
            for (int j = 0; j <= r; j++) acc += pz_ld(theta, dt, to + k * (r + 1) + j) * c[j];
            pz_st(grid, dt, e * r + k, acc);
        }
    }
}
