/* qconv16c_scalar.c - the scalar twin of the int8 NCHW16c convolution
 * (qconv16c.h): the same plan, packed weights and class biases as the VNNI
 * kernel, as plain loops over every output pixel. The sums are exact and
 * the requantization is pz_qconv16c_requant, so the two agree bit for bit;
 * a residual then takes QADD's scalar twin on each 16 lanes. */
#include "rt/kernels/quant/qconv16c_impl.h"

void pz_qconv16c_run__scalar(const pz_qconv16c_plan *p, const uint8_t *x, const uint8_t *z,
                             uint8_t *y, int64_t r0, int64_t r1, int ith, int nth)
{
    const pz_qconv16c_desc *d = &p->d;
    const int64_t mb = p->mb, cb = p->cb, IH = d->ih, IW = d->iw, OH = d->oh, OW = d->ow;
    const int KH = d->kh, KW = d->kw;
    const uint8_t flip = (uint8_t)p->xflip;
    /* one unit = one output row (n, output block, oh), oh in [r0, r1) */
    const int64_t nr = r1 - r0;
    int64_t lo, hi;
    pz_split(d->n * mb * nr, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t oh = r0 + u % nr, ob = u / nr % mb, n = u / (nr * mb);
        const int64_t ih0 = oh * d->sh - d->pt;
        for (int64_t ow = 0; ow < OW; ow++) {
            const int64_t iw0 = ow * d->sw - d->pl;
            const int32_t *bias =
                p->bias + ((int64_t)p->rcls[oh] * p->ncc + p->ccls[ow]) * mb * 16 + ob * 16;
            int32_t acc[16];
            for (int l = 0; l < 16; l++) acc[l] = bias[l];
            for (int64_t ib = 0; ib < cb; ib++)
                for (int kh = p->khlo[oh]; kh < p->khhi[oh]; kh++)
                    for (int kw = p->kwlo[ow]; kw < p->kwhi[ow]; kw++) {
                        const int64_t ih = ih0 + (int64_t)kh * d->dh;
                        const int64_t iw = iw0 + (int64_t)kw * d->dw;
                        const uint8_t *xp = x + (((n * cb + ib) * IH + ih) * IW + iw) * 16;
                        const int8_t *wp = p->w + (((ob * cb + ib) * KH + kh) * KW + kw) * QC_TAP;
                        for (int ic = 0; ic < 16; ic++)
                            for (int l = 0; l < 16; l++)
                                acc[l] += (int32_t)(uint8_t)(xp[ic] ^ flip) *
                                          wp[(ic / 4) * 64 + l * 4 + ic % 4];
                    }
            const int64_t yo = (((n * mb + ob) * OH + oh) * OW + ow) * 16;
            uint8_t *yp = y + yo;
            for (int l = 0; l < 16; l++) {
                const int64_t m = ob * 16 + l;
                yp[l] = pz_qconv16c_requant(acc[l], p->mult[m], p->flo[m], p->fhi[m], d->y_zp);
            }
            if (z) pz_qconv16c_sum16(pz_qadd8__scalar, &p->sum, yp, z + yo);
        }
    }
}
