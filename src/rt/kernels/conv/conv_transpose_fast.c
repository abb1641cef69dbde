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
#include "rt/kernels/conv/conv_transpose_rows.h"

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

static void axpy_c(float *restrict t, const float *restrict x, float w, int64_t n)
{
    for (int64_t i = 0; i < n; i++) t[i] += x[i] * w;
}

void pz_f32_conv_transpose__fast(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                                 const float *x, const float *w, const float *b, float *y,
                                 int ith, int nth)
{
    pz_ct_rows(axpy_c, p, xd, yd, x, w, b, y, ith, nth);
}
