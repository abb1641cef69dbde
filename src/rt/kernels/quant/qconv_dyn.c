/* qconv_dyn.c - ConvInteger with a run-time zero point (qconv_dyn.h):
 * blocks of output pixels unrolled into rows of bytes (im2col), their int8
 * product with W on qgemm's kernels (int32 out), the zero points' terms
 * added as the block goes back to NCHW. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qconv_dyn.h"
#include "rt/kernels/quant/qgemm.h"

struct pz_qconv_dyn {
    pz_qconv_dyn_desc d;
    int64_t k, pb;          /* c kh kw; output pixels a block (a multiple of qgemm's 6 rows) */
    pz_qgemm_plan *p;
    int64_t *s;             /* [m] sums of w' */
    int32_t *zw;            /* [m] zw' */
};

static int64_t align64(int64_t b)
{
    return (b + 63) / 64 * 64;
}

/* The pixel block: the im2col rows near 256 KiB (in L2 with W's panels),
 * 6 to 192 pixels. */
static int64_t block_pixels(int64_t k)
{
    int64_t pb = (256 * 1024 / k) / 6 * 6;
    return pb < 6 ? 6 : pb > 192 ? 192 : pb;
}

void pz_qconv_dyn_free(pz_qconv_dyn *q)
{
    if (!q) return;
    pz_qgemm_plan_free(q->p);
    free(q->s), free(q->zw);
    free(q);
}

pz_qconv_dyn *pz_qconv_dyn_new(const pz_qconv_dyn_desc *d, pz_isa isa, const void *w,
                               const void *wzp, int wzp_per_m, char *err, size_t errsize)
{
    if (errsize) err[0] = 0;
    if (d->n < 1 || d->c < 1 || d->m < 1 || d->oh < 1 || d->ow < 1 || d->kh < 1 || d->kw < 1 ||
        d->sh < 1 || d->sw < 1 || d->dh < 1 || d->dw < 1) {
        snprintf(err, errsize, "qconv_dyn: sizes, strides and dilations must be >= 1");
        return NULL;
    }
    pz_qconv_dyn *q = calloc(1, sizeof *q);
    const int64_t M = d->m, K = d->c * d->kh * d->kw;
    int8_t *wq = malloc((size_t)(M * K));
    if (q) q->s = malloc((size_t)M * sizeof *q->s), q->zw = malloc((size_t)M * sizeof *q->zw);
    if (!q || !wq || !q->s || !q->zw) {
        snprintf(err, errsize, "qconv_dyn: out of memory");
        goto fail;
    }
    q->d = *d;
    q->k = K;
    q->pb = block_pixels(K);
    /* w' = w for int8, w - 128 for uint8 (vpdpbusd's signed operand) */
    for (int64_t m = 0; m < M; m++) {
        int64_t s = 0;
        for (int64_t k = 0; k < K; k++) {
            const int v = d->w_signed ? ((const int8_t *)w)[m * K + k]
                                      : ((const uint8_t *)w)[m * K + k] - 128;
            wq[m * K + k] = (int8_t)v;
            s += v;
        }
        q->s[m] = s;
        const int64_t i = wzp_per_m ? m : 0;
        q->zw[m] = !wzp ? (d->w_signed ? 0 : -128)
                   : d->w_signed ? ((const int8_t *)wzp)[i] : ((const uint8_t *)wzp)[i] - 128;
    }
    pz_qgemm_desc gd = {.m = q->pb, .n = M, .k = K, .out_i32 = 1, .novnni = d->novnni};
    q->p = pz_qgemm_plan_new(&gd, isa, wq, 1, NULL, 1.0f, NULL, 1.0f, err, errsize);
    if (!q->p) goto fail;
    free(wq);
    return q;
fail:
    free(wq);
    pz_qconv_dyn_free(q);
    return NULL;
}

pz_q8_kernel pz_qconv_dyn_kernel(const pz_qconv_dyn *q)
{
    return pz_qgemm_plan_kernel(q->p);
}

/* a worker's scratch: the block's rows of bytes, its G, its row sums */
static int64_t worker_bytes(const pz_qconv_dyn *q)
{
    return align64(q->pb * q->k) + align64(q->pb * q->d.m * 4) + align64(q->pb * 8);
}

size_t pz_qconv_dyn_scratch(const pz_qconv_dyn *q, int nth)
{
    return (size_t)(worker_bytes(q) * (nth > 0 ? nth : 1));
}

/* Pixels [p0, p1) of image xi (uint8 terms: flip 0x80 for int8) as rows of
 * a, padding taps zxu; r[p] the rows' sums. */
static void im2col(const pz_qconv_dyn_desc *d, const uint8_t *xi, uint8_t flip, uint8_t zxu,
                   int64_t p0, int64_t p1, uint8_t *a, int64_t k, int64_t *r)
{
    const int64_t hw = d->ih * d->iw;
    for (int64_t p = p0; p < p1; p++) {
        const int64_t oy = p / d->ow, ox = p % d->ow;
        uint8_t *row = a + (p - p0) * k;
        int64_t s = 0;
        for (int64_t c = 0; c < d->c; c++)
            for (int ky = 0; ky < d->kh; ky++) {
                const int64_t iy = oy * d->sh - d->pt + (int64_t)ky * d->dh;
                const uint8_t *xr = xi + c * hw + iy * d->iw;
                const int in_y = iy >= 0 && iy < d->ih;
                for (int kx = 0; kx < d->kw; kx++) {
                    const int64_t ix = ox * d->sw - d->pl + (int64_t)kx * d->dw;
                    const uint8_t v = in_y && ix >= 0 && ix < d->iw ? xr[ix] ^ flip : zxu;
                    *row++ = v;
                    s += v;
                }
            }
        r[p - p0] = s;
    }
}

void pz_qconv_dyn_run(const pz_qconv_dyn *q, const void *x, int32_t x_zp, int32_t *y,
                      void *scratch, int ith, int nth)
{
    const pz_qconv_dyn_desc *d = &q->d;
    const int64_t P = d->oh * d->ow, M = d->m, K = q->k, pb = q->pb;
    const int64_t nb = (P + pb - 1) / pb;
    const uint8_t flip = d->x_signed ? 0x80 : 0;
    const int64_t zxu = d->x_signed ? x_zp + 128 : x_zp;
    uint8_t *a = (uint8_t *)scratch + worker_bytes(q) * ith;
    int32_t *g = (int32_t *)(a + align64(pb * K));
    int64_t *r = (int64_t *)((char *)g + align64(pb * M * 4));
    int64_t u0, u1;
    pz_split(d->n * nb, ith, nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        const int64_t img = u / nb, p0 = u % nb * pb, p1 = p0 + pb < P ? p0 + pb : P;
        const uint8_t *xi = (const uint8_t *)x + img * d->c * d->ih * d->iw;
        im2col(d, xi, flip, (uint8_t)zxu, p0, p1, a, K, r);
        pz_qgemm_run_block(q->p, a, K, g, M, p1 - p0, 0, pz_qgemm_panel_groups(q->p));
        for (int64_t p = p0; p < p1; p++) r[p - p0] -= K * zxu;   /* sum_k (xu - zxu) */
        int32_t *yi = y + img * M * P;
        for (int64_t m = 0; m < M; m++) {
            const int64_t zs = zxu * q->s[m], zw = q->zw[m];
            int32_t *ym = yi + m * P;
            for (int64_t p = p0; p < p1; p++)
                ym[p] = (int32_t)(uint32_t)((int64_t)g[(p - p0) * M + m] - zs - zw * r[p - p0]);
        }
    }
}
