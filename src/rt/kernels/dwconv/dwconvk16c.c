/* dwconvk16c.c - the scalar twin of the any-size depthwise conv on NCHW16c
 * (see dwconvk16c.h), and which kernel an ISA gets. */
#include <math.h>

#include "rt/kernels/dwconv/dwconvk16c.h"

pz_conv16c_fn pz_dwconvk16c_kernel_for(pz_isa isa)
{
    return pz_fast_kernels_for(isa)->dwconvk;
}

/* Output pixel ow of one row: acc = bias + taps in (kh, kw) order, the taps
 * outside the input left out. xp: the block's plane; wp: its kh*kw weight
 * vectors; rows [kh0, kh1) are inside the input. */
static void pixel(const pz_conv16c_desc *d, const float *xp, const float *wp, const float *bv,
                  int64_t ih0, int64_t kh0, int64_t kh1, int64_t ow, float *acc)
{
    for (int j = 0; j < 16; j++) acc[j] = bv ? bv[j] : 0.0f;
    int64_t iw0 = ow * d->sw - d->pl;
    for (int64_t kh = kh0; kh < kh1; kh++) {
        const float *row = xp + (ih0 + kh * d->dh) * d->w * 16;
        for (int64_t kw = 0; kw < d->kw; kw++) {
            int64_t iw = iw0 + kw * d->dw;
            if (iw < 0 || iw >= d->w) continue;
            const float *xv = row + iw * 16, *wv = wp + (kh * d->kw + kw) * 16;
            for (int j = 0; j < 16; j++) acc[j] = fmaf(xv[j], wv[j], acc[j]);
        }
    }
}

void pz_f32_dwconvk_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith, int nth)
{
    const int64_t cb = (d->c + 15) / 16, kk = (int64_t)d->kh * d->kw;
    const int valid = (int)(d->c - (cb - 1) * 16);
    const bool act = d->act.kind != PZ_ACT_NONE;
    int64_t u0, u1;
    pz_split(d->n * cb * d->oh, ith, nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        int64_t oh = u % d->oh, blk = u / d->oh % cb, plane = u / d->oh;
        const float *xp = x + plane * d->h * d->w * 16, *wp = w + blk * kk * 16;
        const float *bv = b ? b + blk * 16 : NULL;
        int64_t ih0 = oh * d->sh - d->pt, kh0 = 0, kh1 = d->kh;
        while (kh0 < kh1 && ih0 + kh0 * d->dh < 0) kh0++;
        while (kh1 > kh0 && ih0 + (kh1 - 1) * d->dh >= d->h) kh1--;
        for (int64_t ow = 0; ow < d->ow; ow++) {
            float acc[16];
            pixel(d, xp, wp, bv, ih0, kh0, kh1, ow, acc);
            int64_t o = ((plane * d->oh) + oh) * d->ow * 16 + ow * 16;
            for (int j = 0; j < 16; j++) {
                float v = acc[j] + (z ? z[o + j] : 0.0f);
                const bool pad = blk == cb - 1 && j >= valid;   /* no channel, no slope */
                if (act && !pad) v = pz_act_c_f32(&d->act, v, blk * 16 + j);
                y[o + j] = pad ? 0.0f : v;
            }
        }
    }
}
