/* qconv_dyn.c - ConvInteger with a run-time zero point (qconv_dyn.h). A
 * unit is a segment of an output row: the kh input rows it reads are first
 * staged channels-last (t[ky][col][c], padding as zxu, with each column's
 * channel sum), so that each pixel's im2col row is kh kw copies of C bytes
 * and its sum kh kw adds; then the int8 product with W on qgemm's kernels
 * (int32 out), the zero points' terms added as the segment goes back to
 * NCHW. W is packed in the rows' order, k = (ky kw + kx) C + c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qconv_dyn.h"
#include "rt/kernels/quant/qgemm.h"

struct pz_qconv_dyn {
    pz_qconv_dyn_desc d;
    int64_t k, pb, nseg;    /* c kh kw; output pixels a segment, segments a row */
    int64_t cols;           /* staged input columns a segment reads */
    pz_qgemm_plan *p;
    int64_t *s;             /* [m] sums of w' */
    int32_t *zw;            /* [m] zw' */
};

static int64_t align64(int64_t b)
{
    return (b + 63) / 64 * 64;
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
    const int64_t M = d->m, C = d->c, KK = (int64_t)d->kh * d->kw, K = C * KK;
    int8_t *wq = malloc((size_t)(M * K));
    if (q) q->s = malloc((size_t)M * sizeof *q->s), q->zw = malloc((size_t)M * sizeof *q->zw);
    if (!q || !wq || !q->s || !q->zw) {
        snprintf(err, errsize, "qconv_dyn: out of memory");
        goto fail;
    }
    q->d = *d;
    q->k = K;
    /* a segment's im2col rows near 512 KiB (in L2 with W's panels), at
     * most a row and 1024 pixels (its int32 sums, 4 KiB a channel), at
     * least 6 (a tile of qgemm) */
    int64_t pb = 512 * 1024 / K;
    pb = pb < 6 ? 6 : pb > 1024 ? 1024 : pb;
    q->nseg = (d->ow + pb - 1) / pb;
    q->pb = (d->ow + q->nseg - 1) / q->nseg;
    q->cols = (q->pb - 1) * d->sw + (int64_t)(d->kw - 1) * d->dw + 1;
    /* w' = w for int8, w - 128 for uint8 (vpdpbusd's signed operand), as
     * [m][ky kw + kx][c] */
    for (int64_t m = 0; m < M; m++) {
        int64_t s = 0;
        for (int64_t c = 0; c < C; c++)
            for (int64_t t = 0; t < KK; t++) {
                const int64_t i = (m * C + c) * KK + t;
                const int v = d->w_signed ? ((const int8_t *)w)[i] : ((const uint8_t *)w)[i] - 128;
                wq[m * K + t * C + c] = (int8_t)v;
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

/* a worker's scratch: the staged rows and their column sums, the
 * segment's im2col rows, its G, its row sums */
static int64_t stage_bytes(const pz_qconv_dyn *q)
{
    return align64(q->d.kh * q->cols * q->d.c);
}

static int64_t worker_bytes(const pz_qconv_dyn *q)
{
    return stage_bytes(q) + align64(q->d.kh * q->cols * 8) + align64(q->pb * q->k) +
           align64(q->pb * q->d.m * 4) + align64(q->pb * 8);
}

size_t pz_qconv_dyn_scratch(const pz_qconv_dyn *q, int nth)
{
    return (size_t)(worker_bytes(q) * (nth > 0 ? nth : 1));
}

/* The kh input rows of output row oy, columns from ix0 on, channels last
 * into t[ky][col][c] (uint8 terms; zxu outside the image); cs[ky][col] the
 * channel sums. */
static void stage(const pz_qconv_dyn *q, const uint8_t *xi, uint8_t flip, uint8_t zxu,
                  int64_t oy, int64_t ix0, int64_t cols, uint8_t *t, int64_t *cs)
{
    const pz_qconv_dyn_desc *d = &q->d;
    const int64_t C = d->c, hw = d->ih * d->iw;
    for (int ky = 0; ky < d->kh; ky++) {
        const int64_t iy = oy * d->sh - d->pt + (int64_t)ky * d->dh;
        uint8_t *tr = t + ky * q->cols * C;
        int64_t *csr = cs + ky * q->cols;
        /* the columns inside the image: [c0, c1) */
        int64_t c0 = ix0 < 0 ? -ix0 : 0, c1 = d->iw - ix0 < cols ? d->iw - ix0 : cols;
        if (iy < 0 || iy >= d->ih || c1 < c0) c0 = c1 = 0;
        for (int64_t col = 0; col < cols; col++) {
            if (col >= c0 && col < c1) {
                csr[col] = 0;
                continue;
            }
            memset(tr + col * C, zxu, (size_t)C);
            csr[col] = C * zxu;
        }
        /* the sums as the bytes go (a pass over tr after them took a
         * quarter of the kernel's time); four channels a store */
        int64_t c = 0;
        for (; c + 4 <= C && c0 < c1; c += 4) {
            const uint8_t *s0 = xi + c * hw + iy * d->iw + ix0;
            for (int64_t col = c0; col < c1; col++) {
                const uint32_t v0 = s0[col] ^ flip, v1 = s0[hw + col] ^ flip,
                               v2 = s0[2 * hw + col] ^ flip, v3 = s0[3 * hw + col] ^ flip;
                const uint32_t u = v0 | v1 << 8 | v2 << 16 | v3 << 24;
                memcpy(tr + col * C + c, &u, 4);
                csr[col] += v0 + v1 + v2 + v3;
            }
        }
        for (; c < C && c0 < c1; c++) {
            const uint8_t *src = xi + c * hw + iy * d->iw + ix0;
            for (int64_t col = c0; col < c1; col++) {
                const uint8_t v = src[col] ^ flip;
                tr[col * C + c] = v;
                csr[col] += v;
            }
        }
    }
}

void pz_qconv_dyn_run(const pz_qconv_dyn *q, const void *x, int32_t x_zp, const pz_qdyn_out *o,
                      void *y, void *scratch, int ith, int nth)
{
    const pz_qconv_dyn_desc *d = &q->d;
    const int64_t P = d->oh * d->ow, M = d->m, K = q->k, C = d->c, pb = q->pb, cols = q->cols;
    const uint8_t flip = d->x_signed ? 0x80 : 0;
    const int64_t zxu = d->x_signed ? x_zp + 128 : x_zp;
    uint8_t *t = (uint8_t *)scratch + worker_bytes(q) * ith;
    int64_t *cs = (int64_t *)(t + stage_bytes(q));
    uint8_t *a = (uint8_t *)cs + align64(d->kh * cols * 8);
    int32_t *g = (int32_t *)(a + align64(pb * K));
    int64_t *r = (int64_t *)((char *)g + align64(pb * M * 4));
    int64_t u0, u1;
    pz_split(d->n * d->oh * q->nseg, ith, nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        const int64_t img = u / (d->oh * q->nseg), oy = u / q->nseg % d->oh;
        const int64_t ox0 = u % q->nseg * pb, ox1 = ox0 + pb < d->ow ? ox0 + pb : d->ow;
        const uint8_t *xi = (const uint8_t *)x + img * C * d->ih * d->iw;
        const int64_t ix0 = ox0 * d->sw - d->pl;
        stage(q, xi, flip, (uint8_t)zxu, oy, ix0, (ox1 - ox0 - 1) * d->sw +
              (int64_t)(d->kw - 1) * d->dw + 1, t, cs);
        /* each pixel's row: the kh kw taps' C bytes; its sum less K zxu */
        for (int64_t ox = ox0; ox < ox1; ox++) {
            uint8_t *row = a + (ox - ox0) * K;
            int64_t s = -K * zxu;
            for (int ky = 0; ky < d->kh; ky++)
                for (int kx = 0; kx < d->kw; kx++) {
                    const int64_t col = (ox - ox0) * d->sw + (int64_t)kx * d->dw;
                    memcpy(row, t + (ky * cols + col) * C, (size_t)C);
                    row += C;
                    s += cs[ky * cols + col];
                }
            r[ox - ox0] = s;
        }
        pz_qgemm_run_block(q->p, a, K, g, M, ox1 - ox0, 0, pz_qgemm_panel_groups(q->p));
        const int64_t yo = img * M * P + oy * d->ow;
        int32_t acc[64];   /* a float output's sums, a chunk of the segment at a time */
        for (int64_t m = 0; m < M; m++) {
            const int64_t zs = zxu * q->s[m], zw = q->zw[m];
            if (!o) {
                int32_t *ym = (int32_t *)y + yo + m * P;
                for (int64_t ox = ox0; ox < ox1; ox++)
                    ym[ox] = (int32_t)(uint32_t)((int64_t)g[(ox - ox0) * M + m] - zs -
                                                zw * r[ox - ox0]);
                continue;
            }
            float *ym = (float *)y + yo + m * P;
            for (int64_t c0 = ox0; c0 < ox1; c0 += 64) {
                const int64_t c1 = c0 + 64 < ox1 ? c0 + 64 : ox1;
                for (int64_t ox = c0; ox < c1; ox++)
                    acc[ox - c0] = (int32_t)(uint32_t)((int64_t)g[(ox - ox0) * M + m] - zs -
                                                      zw * r[ox - ox0]);
                pz_qdyn_out_row(o, m, acc, ym + c0, c1 - c0);
            }
        }
    }
}
