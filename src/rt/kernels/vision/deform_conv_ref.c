/* deform_conv_ref.c - reference DeformConv (2-D): a grouped convolution
 * whose taps read X bilinearly at their place moved by the learned offsets
 * (dh, dw) and scaled by the mask:
 *   Y[n,m,oh,ow] = B[m] + sum_{c,kh,kw} W[m,c,kh,kw] * mask * X~[n, g*C/G + c,
 *                  oh*sh - ph + kh*dh + off_h, ow*sw - pw + kw*dw + off_w],
 * X~ zero outside the image (torchvision's rule). Any float type through
 * double. */
#include "rt/kernels/kernels.h"

static double dc_sample(const void *x, int dt, int64_t base, int64_t H, int64_t W, double h,
                        double w)
{
    if (h <= -1 || h >= (double)H || w <= -1 || w >= (double)W) return 0;
    int64_t hl = (int64_t)floor(h), wl = (int64_t)floor(w), hh = hl + 1, wh = wl + 1;
    double lh = h - (double)hl, lw = w - (double)wl, v = 0;
    if (hl >= 0 && wl >= 0) v += (1 - lh) * (1 - lw) * pz_ld(x, dt, base + hl * W + wl);
    if (hl >= 0 && wh < W) v += (1 - lh) * lw * pz_ld(x, dt, base + hl * W + wh);
    if (hh < H && wl >= 0) v += lh * (1 - lw) * pz_ld(x, dt, base + hh * W + wl);
    if (hh < H && wh < W) v += lh * lw * pz_ld(x, dt, base + hh * W + wh);
    return v;
}

void pz_any_deform_conv__ref(const pz_deform_conv_params *p, int dt, const int64_t *xd,
                             const int64_t *yd, const void *x, const void *wt, const void *off,
                             const void *b, const void *mask, void *y, int ith, int nth)
{
    int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], M = yd[1], OH = yd[2], OW = yd[3];
    int64_t kh = p->kernel[0], kw = p->kernel[1], kn = kh * kw, cg = C / p->group;
    int64_t mg = M / p->group, cog = C / p->offset_group, plane = OH * OW;
    int64_t lo, hi;
    pz_split(N * M, ith, nth, &lo, &hi);
    for (int64_t nm = lo; nm < hi; nm++) {
        int64_t n = nm / M, m = nm % M, g = m / mg;
        for (int64_t o = 0; o < plane; o++) {
            int64_t oh = o / OW, ow = o % OW;
            double acc = b ? pz_ld(b, dt, m) : 0;
            for (int64_t c = 0; c < cg; c++) {
                int64_t ci = g * cg + c, og = ci / cog, xb = (n * C + ci) * H * W;
                for (int64_t k = 0; k < kn; k++) {
                    int64_t i = k / kw, j = k % kw;
                    /* offsets [N, og*2*kn + 2k (+1 for w), OH, OW]; mask [N, og*kn + k, ..] */
                    int64_t oo = ((n * p->offset_group + og) * 2 * kn + 2 * k) * plane + o;
                    double h = (double)(oh * p->stride[0] - p->pad_begin[0] + i * p->dilation[0]) +
                               pz_ld(off, dt, oo);
                    double w = (double)(ow * p->stride[1] - p->pad_begin[1] + j * p->dilation[1]) +
                               pz_ld(off, dt, oo + plane);
                    double s = dc_sample(x, dt, xb, H, W, h, w);
                    if (mask) s *= pz_ld(mask, dt, ((n * p->offset_group + og) * kn + k) * plane + o);
                    acc += pz_ld(wt, dt, (m * cg + c) * kn + k) * s;
                }
            }
            pz_st(y, dt, nm * plane + o, acc);
        }
    }
}
