/* qdwconv16c.c - the int8 depthwise convolution's plan, driver and scalar
 * twin (qdwconv16c.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qconv16c_impl.h"
#include "rt/kernels/quant/qdwconv16c.h"

#define QDW_EXACT 16777216.0   /* 2^24: float32 holds every integer below it */

pz_qdwconv16c_plan *pz_qdwconv16c_plan_new(const pz_qconv16c_desc *d, pz_isa isa,
                                           const int8_t *w, const int32_t *b, float x_scale,
                                           const float *w_scale, float y_scale, char *err,
                                           size_t errsize)
{
    if (d->c != d->m || d->n < 1 || d->c < 1 || d->kh < 1 || d->kw < 1 || d->oh < 1 ||
        d->ow < 1 || d->sh < 1 || d->sw < 1 || d->dh < 1 || d->dw < 1 || d->w_zp) {
        snprintf(err, errsize, "not a depthwise conv it takes (c %lld, m %lld, w_zp %d)",
                 (long long)d->c, (long long)d->m, (int)d->w_zp);
        return NULL;
    }
    const int64_t taps = (int64_t)d->kh * d->kw, cb = (d->c + 15) / 16;
    const double xmax = 255.0;   /* the largest |x - x_zp| of any 8-bit x and zero point */
    pz_qdwconv16c_plan *p = calloc(1, sizeof *p);
    if (!p) return snprintf(err, errsize, "out of memory"), NULL;
    p->d = *d;
    p->cb = cb;
    p->w = calloc((size_t)(cb * taps * 16), sizeof(float));
    p->b = calloc((size_t)(cb * 16), sizeof(float));
    p->mult = calloc((size_t)(cb * 16), sizeof(float));
    p->flo = calloc((size_t)(cb * 16), sizeof(float));
    p->fhi = calloc((size_t)(cb * 16), sizeof(float));
    p->bz = calloc((size_t)(cb * 16), sizeof(float));
    if (!p->w || !p->b || !p->mult || !p->flo || !p->fhi || !p->bz) {
        pz_qdwconv16c_plan_free(p);
        return snprintf(err, errsize, "out of memory"), NULL;
    }
    for (int64_t c = 0; c < d->c; c++) {
        double wsum = 0, wtot = 0;
        for (int64_t t = 0; t < taps; t++) {
            const int8_t v = w[c * taps + t];
            p->w[((c / 16) * taps + t) * 16 + c % 16] = (float)v;
            wsum += fabs((double)v);
            wtot += v;
        }
        const double bc = b ? (double)b[c] : 0;
        /* as qconv16c rounds it: float(float(x_scale * w_scale) / y_scale) */
        const float m = (float)(x_scale * w_scale[c]) / y_scale;
        /* the border path's partial sums stay within |b| + wsum * 255, the
         * interior's (from bz, x not shifted, x_zp * w given back for a kernel
         * row outside the image) within |b| + 2 * wsum * 255 */
        if (fabs(bc) + 2 * wsum * xmax >= QDW_EXACT || !isfinite(m)) {
            pz_qdwconv16c_plan_free(p);
            snprintf(err, errsize, "channel %lld: its sums could leave float32's exact integers "
                     "or its multiplier is not finite", (long long)c);
            return NULL;
        }
        p->b[c] = (float)bc;
        p->bz[c] = (float)(bc - (double)d->x_zp * wtot);   /* exact: below 2^24 too */
        p->mult[c] = m;
        p->flo[c] = (float)(d->lo - d->y_zp);
        p->fhi[c] = (float)(d->hi - d->y_zp);
    }
    /* interior columns: ow * sw - pl >= 0 and ow * sw - pl + (kw - 1) * dw < iw */
    p->owlo = (d->pl + d->sw - 1) / d->sw;
    const int64_t last = d->iw - 1 + d->pl - (int64_t)(d->kw - 1) * d->dw;
    p->owhi = last < 0 ? 0 : last / d->sw + 1;
    if (p->owhi > d->ow) p->owhi = d->ow;
    if (p->owlo > p->owhi) p->owlo = p->owhi;
    p->row = isa == PZ_ISA_AVX512 ? pz_qdwconv16c_row__avx512 : pz_qdwconv16c_row__scalar;
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX2) p->row = pz_qdwconv16c_row__avx2;
    /* MobileNet's 3x3 at stride 1 and 2: the VNNI row (novnni: a test's
     * and PZ_ISA=avx512-novnni's way to the float row) */
    if (isa == PZ_ISA_AVX512 && !d->novnni && pz_cpu_has_vnni() && d->kh == 3 && d->kw == 3 &&
        d->dh == 1 && d->dw == 1 && d->sw <= 2) {
        p->w16 = calloc((size_t)(cb * 6 * 32), sizeof *p->w16);
        p->zrow = malloc((size_t)((d->iw > 1 ? d->iw : 1) * 16));
        if (!p->w16 || !p->zrow) {
            pz_qdwconv16c_plan_free(p);
            return snprintf(err, errsize, "out of memory"), NULL;
        }
        for (int64_t c = 0; c < d->c; c++)
            for (int kw = 0; kw < 3; kw++) {
                int16_t *q = p->w16 + (c / 16) * 6 * 32 + c % 16 * 2;
                q[kw * 32] = w[c * 9 + kw];
                q[kw * 32 + 1] = w[c * 9 + 3 + kw];
                q[(3 + kw) * 32] = w[c * 9 + 6 + kw];
            }
        memset(p->zrow, (uint8_t)d->x_zp, (size_t)((d->iw > 1 ? d->iw : 1) * 16));
        p->row = pz_qdwconv16c_row__vnni;
    }
#endif
    return p;
}

void pz_qdwconv16c_plan_free(pz_qdwconv16c_plan *p)
{
    if (!p) return;
    free(p->w), free(p->b), free(p->mult), free(p->flo), free(p->fhi), free(p->bz), free(p->w16);
    free(p->zrow);
    free(p);
}

void pz_qdwconv16c_run(const pz_qdwconv16c_plan *p, const void *x, void *y, int ith, int nth)
{
    pz_qdwconv16c_run_rows(p, x, y, 0, p->d.oh, ith, nth);
}

void pz_qdwconv16c_run_rows(const pz_qdwconv16c_plan *p, const void *x, void *y, int64_t r0,
                            int64_t r1, int ith, int nth)
{
    const pz_qconv16c_desc *d = &p->d;
    const int64_t taps = (int64_t)d->kh * d->kw;
    if (r0 < 0) r0 = 0;
    if (r1 > d->oh) r1 = d->oh;
    if (r1 <= r0) return;
    const int64_t nr = r1 - r0;
    int64_t lo, hi;
    pz_split(d->n * p->cb * nr, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t oh = r0 + u % nr, plane = u / nr, blk = plane % p->cb;
        p->row(p, (const uint8_t *)x + plane * d->ih * d->iw * 16,
               (uint8_t *)y + (plane * d->oh + oh) * d->ow * 16, oh, p->w + blk * taps * 16,
               p->b + blk * 16, p->bz + blk * 16, p->mult + blk * 16, p->flo + blk * 16,
               p->fhi + blk * 16);
    }
}

void pz_qdwconv16c_row__scalar(const pz_qdwconv16c_plan *p, const uint8_t *x, uint8_t *y,
                               int64_t oh, const float *w, const float *b, const float *bz,
                               const float *mult, const float *flo, const float *fhi)
{
    (void)bz;   /* every pixel as a border one: exact sums give the same integer */
    const pz_qconv16c_desc *d = &p->d;
    const float zp = (float)d->x_zp;
    for (int64_t ow = 0; ow < d->ow; ow++)
        for (int l = 0; l < 16; l++) {
            float acc = b[l];   /* exact: an integer below 2^24 (the plan's check) */
            for (int kh = 0; kh < d->kh; kh++) {
                const int64_t ih = oh * d->sh - d->pt + kh * d->dh;
                if (ih < 0 || ih >= d->ih) continue;
                for (int kw = 0; kw < d->kw; kw++) {
                    const int64_t iw = ow * d->sw - d->pl + kw * d->dw;
                    if (iw < 0 || iw >= d->iw) continue;
                    const uint8_t v = x[(ih * d->iw + iw) * 16 + l];
                    const float xv = d->x_signed ? (float)(int8_t)v : (float)v;
                    acc += (xv - zp) * w[(kh * d->kw + kw) * 16 + l];
                }
            }
            y[ow * 16 + l] = pz_qconv16c_requant((int32_t)acc, mult[l], flo[l], fhi[l], d->y_zp);
        }
}
