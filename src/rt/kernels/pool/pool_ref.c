/* pool_ref.c - reference max and average pooling (N-d, dilations, pads,
 * count_include_pad, argmax indices in either storage order). */
#include <math.h>

#include "rt/kernels/kernels.h"

/* The taps j in [*lo, *hi) of a window starting at `start` whose position
 * start + j*d lies in [from, to). */
static void taps_in(int64_t start, int64_t d, int64_t k, int64_t from, int64_t to,
                    int64_t *lo, int64_t *hi)
{
    int64_t a = pz_ceil_div(from - start, d), b = pz_ceil_div(to - start, d);
    *lo = a < 0 ? 0 : a;
    *hi = b > k ? k : b;
    if (*hi < *lo) *hi = *lo;
}

PZ_ALWAYS_INLINE void pool_body(const pz_pool_params *p, int dt, const int64_t *xd,
                                const int64_t *yd, const void *x, void *y, int64_t *idx,
                                int ith, int nth)
{
    pz_geom3 g;
    pz_geom3_init(&g, p->nsp, p->kernel, p->stride, p->dilation, p->pad_begin, p->pad_end, xd, yd);
    const int64_t *in = g.in, *out = g.out, *k = g.k, *s = g.s, *d = g.d, *pb = g.pb, *pe = g.pe;
    const int64_t isz = in[0] * in[1] * in[2];
    const int64_t W = out[2];

    /* one unit of work = one output row (n, c, od, oh) */
    int64_t lo, hi;
    pz_split(xd[0] * xd[1] * out[0] * out[1], ith, nth, &lo, &hi);
    for (int64_t row = lo; row < hi; row++) {
        int64_t oh = row % out[1], od = row / out[1] % out[0], nc = row / (out[0] * out[1]);
        int64_t st[3] = {od * s[0] - pb[0], oh * s[1] - pb[1], 0};
        int64_t t0[3], t1[3];   /* taps inside the input, per axis */
        taps_in(st[0], d[0], k[0], 0, in[0], &t0[0], &t1[0]);
        taps_in(st[1], d[1], k[1], 0, in[1], &t0[1], &t1[1]);
        for (int64_t ow = 0; ow < W; ow++) {
            int64_t yi = row * W + ow;
            st[2] = ow * s[2] - pb[2];
            taps_in(st[2], d[2], k[2], 0, in[2], &t0[2], &t1[2]);
            if (p->kind == PZ_POOL_MAX) {
                double best = -INFINITY;
                int64_t arg = -1;
                for (int64_t j0 = t0[0]; j0 < t1[0]; j0++)
                for (int64_t j1 = t0[1]; j1 < t1[1]; j1++)
                for (int64_t j2 = t0[2]; j2 < t1[2]; j2++) {
                    int64_t i0 = st[0] + j0 * d[0], i1 = st[1] + j1 * d[1], i2 = st[2] + j2 * d[2];
                    int64_t at = (i0 * in[1] + i1) * in[2] + i2;
                    double v = pz_ld(x, dt, nc * isz + at);
                    if (v > best || arg < 0) {
                        best = v;
                        /* column-major: the first spatial dim varies fastest */
                        arg = p->storage_order ? i0 + (i1 + i2 * in[1]) * in[0] : at;
                    }
                }
                pz_st(y, dt, yi, best);
                if (idx) idx[yi] = nc * isz + (arg < 0 ? 0 : arg);
            } else {
                double sum = 0;
                int64_t cnt = (t1[0] - t0[0]) * (t1[1] - t0[1]) * (t1[2] - t0[2]);
                for (int64_t j0 = t0[0]; j0 < t1[0]; j0++)
                for (int64_t j1 = t0[1]; j1 < t1[1]; j1++)
                for (int64_t j2 = t0[2]; j2 < t1[2]; j2++) {
                    int64_t i0 = st[0] + j0 * d[0], i1 = st[1] + j1 * d[1], i2 = st[2] + j2 * d[2];
                    sum += pz_ld(x, dt, nc * isz + (i0 * in[1] + i1) * in[2] + i2);
                }
                if (p->count_include_pad) {
                    /* the divisor counts the taps inside the padded input */
                    cnt = 1;
                    for (int a = 0; a < 3; a++) {
                        int64_t a0, a1;
                        taps_in(st[a], d[a], k[a], -pb[a], in[a] + pe[a], &a0, &a1);
                        cnt *= a1 - a0;
                    }
                }
                pz_st(y, dt, yi, cnt > 0 ? sum / (double)cnt : 0.0);
            }
        }
    }
}

void pz_f32_pool__ref(const pz_pool_params *p, const int64_t *xd, const int64_t *yd,
                      const float *x, float *y, int64_t *idx, int ith, int nth)
{
    pool_body(p, PZ_F32, xd, yd, x, y, idx, ith, nth);
}

void pz_any_pool__ref(const pz_pool_params *p, int dtype, const int64_t *xd, const int64_t *yd,
                      const void *x, void *y, int64_t *idx, int ith, int nth)
{
    pool_body(p, dtype, xd, yd, x, y, idx, ith, nth);
}
