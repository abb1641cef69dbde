/* lp_pool_ref.c - reference LpPool (N-d up to 3, dilations, pads): the
 * p-norm of each window's taps inside the input; padded taps add 0. */
#include <math.h>

#include "rt/kernels/kernels.h"

/* The taps j in [*lo, *hi) of a window starting at `start` whose position
 * start + j*d lies in [0, to). */
static void taps_in(int64_t start, int64_t d, int64_t k, int64_t to, int64_t *lo, int64_t *hi)
{
    int64_t a = pz_ceil_div(-start, d), b = pz_ceil_div(to - start, d);
    *lo = a < 0 ? 0 : a;
    *hi = b > k ? k : b;
    if (*hi < *lo) *hi = *lo;
}

void pz_any_lp_pool__ref(const pz_lp_pool_params *p, int dt, const int64_t *xd,
                         const int64_t *yd, const void *x, void *y, int ith, int nth)
{
    pz_geom3 g;
    pz_geom3_init(&g, p->nsp, p->kernel, p->stride, p->dilation, p->pad_begin, p->pad_end, xd, yd);
    const int64_t *in = g.in, *out = g.out, *k = g.k, *s = g.s, *d = g.d, *pb = g.pb;
    const int64_t isz = in[0] * in[1] * in[2], W = out[2];
    const double pw = (double)p->p;
    int64_t lo, hi;
    pz_split(xd[0] * xd[1] * out[0] * out[1], ith, nth, &lo, &hi);   /* rows (n, c, od, oh) */
    for (int64_t row = lo; row < hi; row++) {
        int64_t oh = row % out[1], od = row / out[1] % out[0], nc = row / (out[0] * out[1]);
        int64_t st[3] = {od * s[0] - pb[0], oh * s[1] - pb[1], 0}, t0[3], t1[3];
        taps_in(st[0], d[0], k[0], in[0], &t0[0], &t1[0]);
        taps_in(st[1], d[1], k[1], in[1], &t0[1], &t1[1]);
        for (int64_t ow = 0; ow < W; ow++) {
            st[2] = ow * s[2] - pb[2];
            taps_in(st[2], d[2], k[2], in[2], &t0[2], &t1[2]);
            double sum = 0;
            for (int64_t j0 = t0[0]; j0 < t1[0]; j0++)
            for (int64_t j1 = t0[1]; j1 < t1[1]; j1++)
            for (int64_t j2 = t0[2]; j2 < t1[2]; j2++) {
                int64_t i0 = st[0] + j0 * d[0], i1 = st[1] + j1 * d[1], i2 = st[2] + j2 * d[2];
                double v = fabs(pz_ld(x, dt, nc * isz + (i0 * in[1] + i1) * in[2] + i2));
                sum += p->p == 1 ? v : p->p == 2 ? v * v : pow(v, pw);
            }
            pz_st(y, dt, row * W + ow,
                  p->p == 1 ? sum : p->p == 2 ? sqrt(sum) : pow(sum, 1.0 / pw));
        }
    }
}
