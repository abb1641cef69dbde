/* qgconv_dyn.c - grouped and depthwise ConvInteger with a run-time zero
 * point (qgconv_dyn.h): a worker's share of the (image, channel, output
 * row) rows; for each input channel its kh rows are copied into padded
 * rows and all its taps summed in one call into a row of int32 in the
 * worker's scratch, then stored as int32 or through the float32 output
 * stage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qgconv_dyn.h"

struct pz_qgconv_dyn {
    pz_qconv_dyn_desc d;
    int64_t group, cg;     /* groups; input channels a group */
    int32_t *w;            /* [m][cg][kh][kw]: w - zw[m] */
    int64_t owv, pw;       /* columns summed (the vector taps: ow up to a multiple of 16,
                            * the twin: ow); a padded row's bytes */
    pz_qgconv_taps_fn *taps;
};

void pz_qgconv_dyn_free(pz_qgconv_dyn *q)
{
    if (!q) return;
    free(q->w);
    free(q);
}

pz_qgconv_dyn *pz_qgconv_dyn_new(const pz_qconv_dyn_desc *d, int64_t group, pz_isa isa,
                                 const void *w, const void *wzp, int wzp_per_m, char *err,
                                 size_t errsize)
{
    if (errsize) err[0] = 0;
    if (d->n < 1 || d->c < 1 || d->m < 1 || d->oh < 1 || d->ow < 1 || d->ih < 1 || d->iw < 1 ||
        d->kh < 1 || d->kw < 1 || d->sh < 1 || d->sw < 1 || d->dh < 1 || d->dw < 1 ||
        d->pt < 0 || d->pl < 0) {
        snprintf(err, errsize, "qgconv_dyn: sizes must be >= 1, pads >= 0");
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
    if (!q || !q->w) {
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
    /* a padded row holds the input row at pl and X's zero point around it,
     * as far as the last tap of the last column summed reads (+ 1: stride
     * 2's vector loads read the odd byte after it) */
    q->taps = pz_qgconv_taps__scalar;
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) q->taps = pz_qgconv_taps__avx512;
    if (isa == PZ_ISA_AVX2 && pz_cpu_isa() >= PZ_ISA_AVX2) q->taps = pz_qgconv_taps__avx2;
#endif
    (void)isa;
    q->owv = q->taps == pz_qgconv_taps__scalar ? d->ow : (d->ow + 15) / 16 * 16;
    const int64_t reach = (int64_t)(d->kw - 1) * d->dw + (q->owv - 1) * d->sw + 2;
    q->pw = ((reach > d->pl + d->iw ? reach : d->pl + d->iw) + 63) / 64 * 64;
    return q;
}

pz_isa pz_qgconv_dyn_isa(const pz_qgconv_dyn *q)
{
#ifndef PZ_SCALAR
    if (q->taps == pz_qgconv_taps__avx512) return PZ_ISA_AVX512;
    if (q->taps == pz_qgconv_taps__avx2) return PZ_ISA_AVX2;
#endif
    return PZ_ISA_SCALAR;
}

/* A worker's scratch: the sums (owv int32, to 64 bytes), kh padded rows,
 * a tap's row pointer and weight for each of the kh kw taps */
static size_t acc_bytes(const pz_qgconv_dyn *q)
{
    return (size_t)(q->owv * 4 + 63) / 64 * 64;
}

static size_t worker_bytes(const pz_qgconv_dyn *q)
{
    const size_t nt = (size_t)q->d.kh * (size_t)q->d.kw;
    const size_t b = acc_bytes(q) + (size_t)q->d.kh * (size_t)q->pw +
                     nt * (sizeof(const uint8_t *) + sizeof(int32_t));
    return (b + 63) / 64 * 64;
}

size_t pz_qgconv_dyn_scratch(const pz_qgconv_dyn *q, int nth)
{
    return worker_bytes(q) * (size_t)(nth > 0 ? nth : 1);
}

void pz_qgconv_taps__scalar(int32_t *acc, int64_t n, const uint8_t *const *xs, const int32_t *wv,
                            int nt, int sw, int32_t zx, int x_signed)
{
    /* in uint32: int32's wrap without signed overflow (a product fits) */
    for (int t = 0; t < nt; t++)
        for (int64_t ow = 0; ow < n; ow++) {
            const int32_t xv = x_signed ? ((const int8_t *)xs[t])[ow * sw] : xs[t][ow * sw];
            acc[ow] = (int32_t)((uint32_t)acc[ow] + (uint32_t)((xv - zx) * wv[t]));
        }
}

void pz_qgconv_dyn_run(const pz_qgconv_dyn *q, const void *x, int32_t x_zp, const pz_qdyn_out *o,
                       void *y, void *scratch, int ith, int nth)
{
    const pz_qconv_dyn_desc *d = &q->d;
    const int64_t OH = d->oh, OW = d->ow, IH = d->ih, IW = d->iw, cg = q->cg, pw = q->pw;
    const int64_t mg = d->m / q->group, ksz = (int64_t)d->kh * d->kw;
    char *ws = (char *)scratch + worker_bytes(q) * (size_t)ith;
    int32_t *acc = (int32_t *)ws;
    uint8_t *rows = (uint8_t *)ws + acc_bytes(q);
    const uint8_t **xs = (const uint8_t **)(void *)(rows + d->kh * pw);
    int32_t *wv = (int32_t *)(void *)(xs + ksz);
    /* taps outside the image read X's zero point: they add (zx - zx) w = 0,
     * as the reference's padding does */
    const int zb = (uint8_t)x_zp;
    int64_t r0, r1;
    pz_split(d->n * d->m * OH, ith, nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t oh = r % OH, m = r / OH % d->m, nb = r / OH / d->m, g = m / mg;
        memset(acc, 0, (size_t)q->owv * sizeof *acc);
        for (int64_t ci = 0; ci < cg; ci++) {
            const uint8_t *xp = (const uint8_t *)x + ((nb * d->c + g * cg + ci) * IH) * IW;
            const int32_t *wp = q->w + (m * cg + ci) * ksz;
            int nt = 0;
            for (int kh = 0; kh < d->kh; kh++) {
                const int64_t ih = oh * d->sh - d->pt + (int64_t)kh * d->dh;
                if (ih < 0 || ih >= IH) continue;   /* rows of the padding add 0 */
                uint8_t *row = rows + kh * pw;
                memset(row, zb, (size_t)d->pl);
                memcpy(row + d->pl, xp + ih * IW, (size_t)IW);
                memset(row + d->pl + IW, zb, (size_t)(pw - d->pl - IW));
                for (int kw = 0; kw < d->kw; kw++, nt++)
                    xs[nt] = row + (int64_t)kw * d->dw, wv[nt] = wp[kh * d->kw + kw];
            }
            if (nt) q->taps(acc, q->owv, xs, wv, nt, d->sw, x_zp, d->x_signed);
        }
        if (o)
            pz_qdyn_out_row(o, m, acc, (float *)y + r * OW, OW);
        else
            memcpy((int32_t *)y + r * OW, acc, (size_t)OW * sizeof *acc);
    }
}
