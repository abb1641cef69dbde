/* qgconv_dyn.c - grouped and depthwise ConvInteger with a run-time zero
 * point (qgconv_dyn.h): a worker's share of the (image, channel, output
 * row) rows, each summed tap by tap into a row of int32 in its scratch,
 * then stored as int32 or through the float32 output stage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qgconv_dyn.h"

struct pz_qgconv_dyn {
    pz_qconv_dyn_desc d;
    int64_t group, cg;     /* groups; input channels a group */
    int32_t *w;            /* [m][cg][kh][kw]: w - zw[m] */
    int64_t *cols;         /* [kw][3]: the tap's column offset, then the output
                            * columns [o0, o1) whose reads it has in the row */
    pz_qgconv_tap_fn *tap;
};

void pz_qgconv_dyn_free(pz_qgconv_dyn *q)
{
    if (!q) return;
    free(q->w);
    free(q->cols);
    free(q);
}

pz_qgconv_dyn *pz_qgconv_dyn_new(const pz_qconv_dyn_desc *d, int64_t group, pz_isa isa,
                                 const void *w, const void *wzp, int wzp_per_m, char *err,
                                 size_t errsize)
{
    if (errsize) err[0] = 0;
    if (d->n < 1 || d->c < 1 || d->m < 1 || d->oh < 1 || d->ow < 1 || d->ih < 1 || d->iw < 1 ||
        d->kh < 1 || d->kw < 1 || d->sh < 1 || d->sw < 1 || d->dh < 1 || d->dw < 1) {
        snprintf(err, errsize, "qgconv_dyn: sizes must be >= 1");
        return NULL;
    }
    if (group < 1 || d->c % group || d->m % group) {
        snprintf(err, errsize, "qgconv_dyn: group %lld does not divide c %lld and m %lld",
                 (long long)group, (long long)d->c, (long long)d->m);
        return NULL;
    }
    pz_qgconv_dyn *q = calloc(1, sizeof *q);
    const int64_t cg = d->c / group, per_m = cg * d->kh * d->kw;
    if (q) q->w = malloc((size_t)(d->m * per_m) * sizeof *q->w);
    if (q) q->cols = malloc((size_t)d->kw * 3 * sizeof *q->cols);
    if (!q || !q->w || !q->cols) {
        snprintf(err, errsize, "qgconv_dyn: out of memory");
        pz_qgconv_dyn_free(q);
        return NULL;
    }
    q->d = *d, q->group = group, q->cg = cg;
    for (int64_t m = 0; m < d->m; m++) {
        const int64_t zi = wzp_per_m ? m : 0;
        const int32_t zw = !wzp ? 0 : d->w_signed ? ((const int8_t *)wzp)[zi]
                                                  : ((const uint8_t *)wzp)[zi];
        for (int64_t k = 0; k < per_m; k++) {
            const int64_t i = m * per_m + k;
            q->w[i] = (d->w_signed ? ((const int8_t *)w)[i] : ((const uint8_t *)w)[i]) - zw;
        }
    }
    for (int kw = 0; kw < d->kw; kw++) {
        /* columns ow whose tap kw reads inside the row: ow sw + off in [0, IW);
         * o0 = ceil(-off / sw) when off < 0; o1: last ow with ow sw + off < IW */
        const int64_t off = (int64_t)kw * d->dw - d->pl;
        const int64_t o0 = off < 0 ? (-off + d->sw - 1) / d->sw : 0;
        const int64_t o1 = d->iw - 1 - off < 0 ? 0 : (d->iw - 1 - off) / d->sw + 1;
        int64_t *c = q->cols + kw * 3;
        c[0] = off, c[1] = o0, c[2] = o1 < d->ow ? o1 : d->ow;
    }
    q->tap = pz_qgconv_tap__scalar;
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) q->tap = pz_qgconv_tap__avx512;
    if (isa == PZ_ISA_AVX2 && pz_cpu_isa() >= PZ_ISA_AVX2) q->tap = pz_qgconv_tap__avx2;
#endif
    (void)isa;
    return q;
}

pz_isa pz_qgconv_dyn_isa(const pz_qgconv_dyn *q)
{
#ifndef PZ_SCALAR
    if (q->tap == pz_qgconv_tap__avx512) return PZ_ISA_AVX512;
    if (q->tap == pz_qgconv_tap__avx2) return PZ_ISA_AVX2;
#endif
    return PZ_ISA_SCALAR;
}

static size_t row_bytes(const pz_qgconv_dyn *q)
{
    return (size_t)((q->d.ow * 4 + 63) / 64 * 64);
}

size_t pz_qgconv_dyn_scratch(const pz_qgconv_dyn *q, int nth)
{
    return row_bytes(q) * (size_t)(nth > 0 ? nth : 1);
}

void pz_qgconv_tap__scalar(int32_t *acc, const uint8_t *x, int64_t o0, int64_t o1, int sw,
                           int64_t off, int32_t zx, int32_t wv, int x_signed)
{
    /* in uint32: int32's wrap without signed overflow (a product fits) */
    for (int64_t ow = o0; ow < o1; ow++) {
        const int64_t i = ow * sw + off;
        const int32_t xv = x_signed ? ((const int8_t *)x)[i] : x[i];
        acc[ow] = (int32_t)((uint32_t)acc[ow] + (uint32_t)((xv - zx) * wv));
    }
}

void pz_qgconv_dyn_run(const pz_qgconv_dyn *q, const void *x, int32_t x_zp, const pz_qdyn_out *o,
                       void *y, void *scratch, int ith, int nth)
{
    const pz_qconv_dyn_desc *d = &q->d;
    const int64_t OH = d->oh, OW = d->ow, IH = d->ih, IW = d->iw, cg = q->cg;
    const int64_t mg = d->m / q->group, ksz = (int64_t)d->kh * d->kw;
    int32_t *acc = (int32_t *)((char *)scratch + row_bytes(q) * (size_t)ith);
    int64_t r0, r1;
    pz_split(d->n * d->m * OH, ith, nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t oh = r % OH, m = r / OH % d->m, nb = r / OH / d->m, g = m / mg;
        memset(acc, 0, (size_t)OW * sizeof *acc);
        for (int64_t ci = 0; ci < cg; ci++) {
            const uint8_t *xp = (const uint8_t *)x + ((nb * d->c + g * cg + ci) * IH) * IW;
            const int32_t *wp = q->w + (m * cg + ci) * ksz;
            for (int kh = 0; kh < d->kh; kh++) {
                const int64_t ih = oh * d->sh - d->pt + (int64_t)kh * d->dh;
                if (ih < 0 || ih >= IH) continue;
                for (int kw = 0; kw < d->kw; kw++) {
                    const int64_t *c = q->cols + kw * 3;
                    if (c[1] < c[2])
                        q->tap(acc, xp + ih * IW, c[1], c[2], d->sw, c[0], x_zp,
                               wp[kh * d->kw + kw], d->x_signed);
                }
            }
        }
        if (o)
            pz_qdyn_out_row(o, m, acc, (float *)y + r * OW, OW);
        else
            memcpy((int32_t *)y + r * OW, acc, (size_t)OW * sizeof *acc);
    }
}
