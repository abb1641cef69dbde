/* conv_transpose_fast.c - the transposed convolution's fast twin for a
 * kernel equal to its stride (k = s >= 2 on W, k = s on H, no dilation,
 * no padding: the FPN's and the DB head's 2x2 stride-2 upsampling). Its
 * taps do not overlap: output pixel (ih*s + kh, iw*s + kw) gets one term
 * per input channel, x[c, ih, iw] * w[c, m, kh, kw]. For each input row
 * the k*k output phases are accumulated over the channels as contiguous
 * axpy rows (which gcc vectorizes), then scattered into the output rows.
 *
 * Bits: the reference's, each output element bias + the terms in channel
 * order, one IEEE multiply and add each (this file is compiled without
 * FMA contraction, as the reference). Split by input rows of the (n, m)
 * planes: a single output channel still splits among the workers. */
#include "rt/kernels/twins_fast.h"

enum { CT_COLS = 128, CT_PHASES = 16 };   /* a stack tile of 8 KiB */

bool pz_conv_transpose_fast_takes(const pz_conv_params *p, const int64_t *xd,
                                  const int64_t *yd)
{
    pz_geom3 g;
    pz_geom3_init(&g, p->nsp, p->kernel, p->stride, p->dilation, p->pad_begin, p->pad_end, xd, yd);
    if (g.k[0] != 1 || g.s[0] != 1 || g.k[1] * g.k[2] > CT_PHASES || g.s[2] < 2) return false;
    for (int i = 0; i < 3; i++)
        if (g.k[i] != g.s[i] || g.d[i] != 1 || g.pb[i] != 0 || g.out[i] != g.in[i] * g.s[i])
            return false;
    return true;
}

void pz_f32_conv_transpose__fast(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                                 const float *x, const float *w, const float *b, float *y,
                                 int ith, int nth)
{
    pz_geom3 g;
    pz_geom3_init(&g, p->nsp, p->kernel, p->stride, p->dilation, p->pad_begin, p->pad_end, xd, yd);
    const int64_t N = xd[0], C = xd[1], M = yd[1], G = p->group, Cg = C / G, Mg = M / G;
    const int64_t rows = g.in[0] * g.in[1], iw = g.in[2], isz = rows * iw;
    const int64_t kh = g.k[1], kw = g.k[2], ow = g.out[2], osz = g.out[0] * g.out[1] * ow;
    const int K = (int)(kh * kw);
    float t[CT_PHASES][CT_COLS];

    /* one unit = one input row of one (n, m) plane: output rows r*kh .. + kh */
    int64_t lo, hi;
    pz_split(N * M * rows, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t nm = u / rows, r = u % rows, n = nm / M, m = nm % M;
        const int64_t grp = m / Mg, mg = m % Mg;
        const float bias = b ? b[m] : 0.0f;
        float *yp = y + nm * osz + r * kh * ow;
        for (int64_t c0 = 0; c0 < iw; c0 += CT_COLS) {
            const int64_t len = iw - c0 < CT_COLS ? iw - c0 : CT_COLS;
            for (int k = 0; k < K; k++)
                for (int64_t i = 0; i < len; i++) t[k][i] = bias;
            for (int64_t c = 0; c < Cg; c++) {
                const int64_t ci = grp * Cg + c;
                const float *xr = x + (n * C + ci) * isz + r * iw + c0;
                const float *wc = w + (ci * Mg + mg) * K;   /* W is {C, M/G, kh, kw} */
                for (int k = 0; k < K; k++) {
                    const float wv = wc[k];
                    float *tk = t[k];
                    for (int64_t i = 0; i < len; i++) tk[i] += xr[i] * wv;
                }
            }
            for (int64_t a = 0; a < kh; a++)
                for (int64_t e = 0; e < kw; e++) {
                    const float *tk = t[a * kw + e];
                    float *yr = yp + a * ow + c0 * kw + e;
                    for (int64_t i = 0; i < len; i++) yr[i * kw] = tk[i];
                }
        }
    }
}
