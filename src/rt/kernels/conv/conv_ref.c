/* conv_ref.c - the reference convolution (N-d, groups, dilation, pads,
 * bias, residual, fused activation). Fast kernels are tested against it. */
#include "rt/kernels/kernels.h"

/* The outputs o in [*lo, *hi) whose input o*s - pb + k*d lies in [0, in). */
static void valid_out(int64_t in, int64_t out, int64_t s, int64_t pb, int64_t kd,
                      int64_t *lo, int64_t *hi)
{
    int64_t a = pz_ceil_div(pb - kd, s), b = pz_ceil_div(in + pb - kd, s);
    *lo = a < 0 ? 0 : a;
    *hi = b > out ? out : b;
    if (*hi < *lo) *hi = *lo;
}

/* y[i] += a * x[i*s], i < n. */
static void axpy(int64_t n, int64_t s, float a, const float *restrict x, float *restrict y)
{
    if (s == 1) {
        pz_axpy_f32(n, a, x, y);
        return;
    }
    for (int64_t i = 0; i < n; i++) y[i] += a * x[i * s];
}

void pz_f32_conv__ref(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                      const float *x, const float *w, const float *b, const float *z,
                      float *y, int ith, int nth)
{
    pz_geom3 g;
    pz_geom3_init(&g, p->nsp, p->kernel, p->stride, p->dilation, p->pad_begin, p->pad_end, xd, yd);
    const int64_t N = xd[0], C = xd[1], M = yd[1], G = p->group;
    const int64_t Cg = C / G, Mg = M / G;
    const int64_t isz = g.in[0] * g.in[1] * g.in[2];
    const int64_t ksz = g.k[0] * g.k[1] * g.k[2];
    const int64_t W = g.out[2];

    /* one unit of work = one output row (n, m, od, oh) of W elements */
    int64_t lo, hi;
    pz_split(N * M * g.out[0] * g.out[1], ith, nth, &lo, &hi);
    for (int64_t row = lo; row < hi; row++) {
        int64_t oh = row % g.out[1], od = row / g.out[1] % g.out[0];
        int64_t nm = row / (g.out[0] * g.out[1]), m = nm % M, n = nm / M;
        int64_t grp = m / Mg;
        float *yr = y + row * W;
        for (int64_t ow = 0; ow < W; ow++) yr[ow] = b ? b[m] : 0.0f;

        for (int64_t c = 0; c < Cg; c++) {
            const float *xc = x + (n * C + grp * Cg + c) * isz;
            const float *wc = w + (m * Cg + c) * ksz;
            for (int64_t kd = 0; kd < g.k[0]; kd++) {
                int64_t id = od * g.s[0] - g.pb[0] + kd * g.d[0];
                if (id < 0 || id >= g.in[0]) continue;
                for (int64_t kh = 0; kh < g.k[1]; kh++) {
                    int64_t ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
                    if (ih < 0 || ih >= g.in[1]) continue;
                    const float *xr = xc + (id * g.in[1] + ih) * g.in[2];
                    for (int64_t kw = 0; kw < g.k[2]; kw++) {
                        float wv = wc[(kd * g.k[1] + kh) * g.k[2] + kw];
                        int64_t off = kw * g.d[2] - g.pb[2];   /* iw = ow*s + off */
                        int64_t a, e;
                        valid_out(g.in[2], W, g.s[2], g.pb[2], kw * g.d[2], &a, &e);
                        if (e > a) axpy(e - a, g.s[2], wv, xr + a * g.s[2] + off, yr + a);
                    }
                }
            }
        }
        if (z) {
            const float *zr = z + row * W;
            for (int64_t ow = 0; ow < W; ow++) yr[ow] += zr[ow];
        }
        if (p->act.kind != PZ_ACT_NONE)
            for (int64_t ow = 0; ow < W; ow++) yr[ow] = pz_act_c_f32(&p->act, yr[ow], m);
    }
}
