/* dwconv16c_scalar.c - the scalar twin of the 3x3 depthwise NCHW16c
 * convolution: plain loops over the same layouts as the SIMD kernels. */
#include "rt/kernels/fast.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The units [lo, hi) of (image, block, output row), pixel by pixel. */
static void dw_units(const pz_conv16c_desc *d, const float *x, const float *w, const float *b,
                     const float *z, float *y, int64_t lo, int64_t hi)
{
    const int64_t cb = cdiv(d->c, 16), H = d->h, W = d->w, OH = d->oh, OW = d->ow;
    for (int64_t u = lo; u < hi; u++) {
        int64_t oh = u % OH, bc = u / OH % cb, n = u / (OH * cb);
        const float *xb = x + (n * cb + bc) * H * W * 16;
        for (int64_t ow = 0; ow < OW; ow++) {
            float acc[16];
            for (int l = 0; l < 16; l++) acc[l] = b ? b[bc * 16 + l] : 0.0f;
            for (int64_t kh = 0; kh < 3; kh++) {
                int64_t ih = oh * d->sh - d->pt + kh;
                if (ih < 0 || ih >= H) continue;
                for (int64_t kw = 0; kw < 3; kw++) {
                    int64_t iw = ow * d->sw - d->pl + kw;
                    if (iw < 0 || iw >= W) continue;
                    const float *xp = xb + (ih * W + iw) * 16, *wp = w + (bc * 9 + kh * 3 + kw) * 16;
                    for (int l = 0; l < 16; l++) acc[l] += xp[l] * wp[l];
                }
            }
            int64_t off = (((n * cb + bc) * OH + oh) * OW + ow) * 16;
            pz_f32_finish16(&d->act, bc * 16, d->c, acc, z ? z + off : NULL, y + off);
        }
    }
}

void pz_f32_dwconv3x3_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                      const float *restrict w, const float *restrict b,
                                      const float *restrict z, float *restrict y, int ith,
                                      int nth)
{
    pz_dwconv3x3_drive(d, dw_units, NULL, 0,   /* finish16 applies every act */
                       x, w, b, z, y, ith, nth);
}
