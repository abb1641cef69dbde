/* conv_transpose_ref.c - the reference transposed convolution (N-d, groups,
 * dilation, pads; output_padding is in the output's shape), then the
 * params' act (the layer takes ReLU and Clip). */
#include "rt/kernels/act.h"
#include "rt/kernels/kernels.h"

void pz_f32_conv_transpose__ref(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                                const float *x, const float *w, const float *b, float *y,
                                int ith, int nth)
{
    pz_geom3 g;
    pz_geom3_init(&g, p->nsp, p->kernel, p->stride, p->dilation, p->pad_begin, p->pad_end, xd, yd);
    const int64_t *in = g.in, *out = g.out, *k = g.k, *s = g.s, *d = g.d, *pb = g.pb;
    const int64_t N = xd[0], C = xd[1], M = yd[1], G = p->group;
    const int64_t Cg = C / G, Mg = M / G;
    const int64_t isz = in[0] * in[1] * in[2], osz = out[0] * out[1] * out[2];
    const int64_t ksz = k[0] * k[1] * k[2];

    /* one unit of work = one output plane (n, m): its writes stay in it */
    int64_t lo, hi;
    pz_split(N * M, ith, nth, &lo, &hi);
    for (int64_t nm = lo; nm < hi; nm++) {
        int64_t n = nm / M, m = nm % M, grp = m / Mg, mg = m % Mg;
        float *yp = y + nm * osz;
        for (int64_t o = 0; o < osz; o++) yp[o] = b ? b[m] : 0.0f;

        for (int64_t c = 0; c < Cg; c++) {
            int64_t ci = grp * Cg + c;
            const float *xc = x + (n * C + ci) * isz;
            const float *wc = w + (ci * Mg + mg) * ksz;   /* W is {C, M/G, kernel} */
            for (int64_t id = 0; id < in[0]; id++)
            for (int64_t kd = 0; kd < k[0]; kd++) {
                int64_t od = id * s[0] - pb[0] + kd * d[0];
                if (od < 0 || od >= out[0]) continue;
                for (int64_t ih = 0; ih < in[1]; ih++)
                for (int64_t kh = 0; kh < k[1]; kh++) {
                    int64_t oh = ih * s[1] - pb[1] + kh * d[1];
                    if (oh < 0 || oh >= out[1]) continue;
                    const float *xr = xc + (id * in[1] + ih) * in[2];
                    float *yr = yp + (od * out[1] + oh) * out[2];
                    for (int64_t kw = 0; kw < k[2]; kw++) {
                        float wv = wc[(kd * k[1] + kh) * k[2] + kw];
                        int64_t off = kw * d[2] - pb[2];   /* ow = iw*s + off */
                        /* iw with 0 <= iw*s + off < out */
                        int64_t a = pz_ceil_div(-off, s[2]), e = pz_ceil_div(out[2] - off, s[2]);
                        if (a < 0) a = 0;
                        if (e > in[2]) e = in[2];
                        if (s[2] == 1 && e > a)
                            pz_axpy_f32(e - a, wv, xr + a, yr + a + off);
                        else
                            for (int64_t iw = a; iw < e; iw++) yr[iw * s[2] + off] += xr[iw] * wv;
                    }
                }
            }
        }
        if (p->act.kind != PZ_ACT_NONE)
            for (int64_t o = 0; o < osz; o++) yp[o] = pz_act_f32(&p->act, yp[o]);
    }
}
