/* conv16c_scalar.c - the scalar twin of the direct NCHW16c convolution
 * (conv16c_drive.c): the same layouts and packed weights as the __avx512 / __avx2
 * kernels, written as plain loops that the SIMD kernels are tested against. */
#include "rt/kernels/fast.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

void pz_f32_conv2d_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                   const float *restrict w, const float *restrict b,
                                   const float *restrict z, float *restrict y, int ith, int nth)
{
    const int64_t mb = cdiv(d->m, 16), cb = cdiv(d->c, d->cblk), cbk = d->cblk;
    const int64_t H = d->h, W = d->w, OH = d->oh, OW = d->ow;

    /* one unit = one output row (n, output block, oh) of the window
     * [r0, r1) (d->r1 == 0: every row) */
    const int64_t r0 = d->r1 ? d->r0 : 0, nr = d->r1 ? d->r1 - d->r0 : OH;
    int64_t lo, hi;
    pz_split(d->n * mb * nr, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t oh = r0 + u % nr, ob = u / nr % mb, n = u / (nr * mb);
        for (int64_t ow = 0; ow < OW; ow++) {
            float acc[16];
            for (int l = 0; l < 16; l++) acc[l] = b ? b[ob * 16 + l] : 0.0f;
            for (int64_t ib = 0; ib < cb; ib++)
                for (int64_t kh = 0; kh < d->kh; kh++) {
                    int64_t ih = oh * d->sh - d->pt + kh * d->dh;
                    if (ih < 0 || ih >= H) continue;
                    for (int64_t kw = 0; kw < d->kw; kw++) {
                        int64_t iw = ow * d->sw - d->pl + kw * d->dw;
                        if (iw < 0 || iw >= W) continue;
                        const float *xp = x + (((n * cb + ib) * H + ih) * W + iw) * cbk;
                        const float *wp = w + (((ob * cb + ib) * d->kh + kh) * d->kw + kw) * cbk * 16;
                        for (int64_t ic = 0; ic < cbk; ic++)
                            for (int l = 0; l < 16; l++) acc[l] += xp[ic] * wp[ic * 16 + l];
                    }
                }
            int64_t off = (((n * mb + ob) * OH + oh) * OW + ow) * 16;
            pz_f32_finish16(&d->act, ob * 16, d->m, acc, z ? z + off : NULL, y + off);
        }
    }
}
