/* spconv16c.c - the block-sparse conv's plan (packing the non-zero blocks)
 * and its ISA-independent driver; see spconv16c.h. */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/spconv16c.h"

/* A flat conv's pixels go in spans whose input (every block) is about this
 * many bytes: each output block's list runs over the span while it is in L2. */
#define SPCONV_SPAN_BYTES (128 * 1024)

int pz_spconv_ok(const pz_conv16c_desc *d)
{
    return d->cblk == 16 && d->kh >= 1 && d->kh <= 64 && d->kw >= 1;
}

int64_t pz_spconv_block_count(int64_t m, int64_t c, int64_t kh, int64_t kw)
{
    return (m + 15) / 16 * ((c + 15) / 16) * kh * kw;
}

static int block_is_zero(const float *w, const pz_conv16c_desc *d, int64_t ob, int64_t ib,
                         int64_t kh, int64_t kw)
{
    for (int64_t o = ob * 16; o < ob * 16 + 16 && o < d->m; o++)
        for (int64_t i = ib * 16; i < ib * 16 + 16 && i < d->c; i++)
            if (w[((o * d->c + i) * d->kh + kh) * d->kw + kw] != 0.0f) return 0;
    return 1;
}

int pz_spconv_plan_make(pz_spconv_plan *p, const pz_conv16c_desc *d, const float *w, pz_isa isa)
{
    memset(p, 0, sizeof *p);
    p->d = *d;
    p->mb = (d->m + 15) / 16;
    p->cb = (d->c + 15) / 16;
    int64_t taps = (int64_t)d->kh * d->kw, per_ob = p->cb * taps;
    p->nblocks = p->mb * per_ob;
    p->start = malloc((size_t)(p->mb + 1) * sizeof *p->start);
    p->tap = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof *p->tap);
    if (!p->start || !p->tap) goto oom;
    /* the lists first: which blocks of each output block have a weight */
    for (int64_t ob = 0; ob < p->mb; ob++) {
        p->start[ob] = p->nnz;
        for (int64_t t = 0; t < per_ob; t++) {
            int64_t ib = t / taps, kh = t % taps / d->kw, kw = t % d->kw;
            if (!block_is_zero(w, d, ob, ib, kh, kw)) p->tap[p->nnz++] = (int32_t)t;
        }
    }
    p->start[p->mb] = p->nnz;
    size_t bytes = ((size_t)(p->nnz ? p->nnz : 1) * 256 * sizeof(float) + 63) / 64 * 64;
    p->w = aligned_alloc(64, bytes);
    if (!p->w) goto oom;
    /* block [ic][lane] = W[ob*16 + lane][ib*16 + ic][kh][kw], zero past M and C */
    for (int64_t ob = 0; ob < p->mb; ob++)
        for (int64_t k = p->start[ob]; k < p->start[ob + 1]; k++) {
            int64_t t = p->tap[k], ib = t / taps, kh = t % taps / d->kw, kw = t % d->kw;
            float *blk = p->w + k * 256;
            for (int64_t ic = 0; ic < 16; ic++)
                for (int64_t l = 0; l < 16; l++) {
                    int64_t o = ob * 16 + l, i = ib * 16 + ic;
                    blk[ic * 16 + l] = o < d->m && i < d->c
                        ? w[((o * d->c + i) * d->kh + kh) * d->kw + kw] : 0.0f;
                }
        }
    p->flat = d->kh == 1 && d->kw == 1 && d->sh == 1 && d->sw == 1 && d->pt == 0 && d->pl == 0 &&
              d->oh == d->h && d->ow == d->w;
    int64_t need = (d->ow - 1) * d->sw + (int64_t)(d->kw - 1) * d->dw + 1;
    p->wp = d->pl + d->w > need ? d->pl + d->w : need;
    p->wide = !p->flat && d->sh == 1 && d->sw == 1;
    p->hp = d->oh + (int64_t)(d->kh - 1) * d->dh;
    p->row = pz_fast_kernels_for(isa)->sprow;
    return 0;
oom:
    pz_spconv_plan_free(p);
    return -1;
}

void pz_spconv_plan_free(pz_spconv_plan *p)
{
    free(p->start);
    free(p->tap);
    free(p->w);
    memset(p, 0, sizeof *p);
}

/* A strided conv's span of pixels: its gathered taps about GATHER_BYTES (in
 * L2 while every output block runs over them), at least 48 pixels. */
#define GATHER_BYTES (512 * 1024)
static int64_t gather_span(const pz_spconv_plan *p)
{
    int64_t s = GATHER_BYTES / (p->cb * p->d.kh * p->d.kw * 16 * (int64_t)sizeof(float));
    return s < 48 ? 48 : s;
}

static int64_t max_list(const pz_spconv_plan *p)
{
    int64_t mx = 1;
    for (int64_t ob = 0; ob < p->mb; ob++)
        if (p->start[ob + 1] - p->start[ob] > mx) mx = p->start[ob + 1] - p->start[ob];
    return mx;
}

/* The worker's scratch: two pointer lists, then the padded rows (wide) or
 * the gathered taps (strided). */
int64_t pz_spconv_scratch_size(const pz_spconv_plan *p)
{
    int64_t ptrs = 2 * max_list(p) * (int64_t)(sizeof(void *) / sizeof(float));
    ptrs = (ptrs + 15) / 16 * 16;
    if (p->flat) return ptrs;
    if (p->wide) return ptrs + (p->cb * p->hp + 1) * p->wp * 16;   /* + a slack row */
    int64_t span = gather_span(p) < p->d.oh * p->d.ow ? gather_span(p) : p->d.oh * p->d.ow;
    return ptrs + p->cb * p->d.kh * p->d.kw * span * 16;   /* a span's gathered taps */
}

static void run_flat(const pz_spconv_plan *p, const float *x, const float *bias, const float *z,
                     float *y, const float **xs, const float **ws, int ith, int nth)
{
    const pz_conv16c_desc *d = &p->d;
    int64_t hw = d->h * d->w, lo, hi;
    int64_t span = SPCONV_SPAN_BYTES / (p->cb * 16 * (int64_t)sizeof(float));
    span = span < 48 ? 48 : span / 12 * 12;
    pz_split(d->n * hw, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi;) {
        int64_t n = u / hw, p0 = u % hw, np = hi - u;
        if (np > hw - p0) np = hw - p0;
        if (np > span) np = span;
        for (int64_t ob = 0; ob < p->mb; ob++) {
            int nb = 0;
            for (int64_t k = p->start[ob]; k < p->start[ob + 1]; k++, nb++) {
                xs[nb] = x + ((n * p->cb + p->tap[k]) * hw + p0) * 16;
                ws[nb] = p->w + k * 256;
            }
            int64_t yo = ((n * p->mb + ob) * hw + p0) * 16;
            pz_sprow_args a = {xs, ws, nb, 16, np, bias + ob * 16, z ? z + yo : NULL, y + yo,
                               &d->act, ob * 16, d->m, 0, 0, 0};
            p->row(&a);
        }
        u += np;
    }
}

/* Padded row r (input row r - pt, or zeros) of every input block into
 * buf[ib][r - r0][wp pixels]. */
static void copy_rows(const pz_spconv_plan *p, const float *x, int64_t n, int64_t r0,
                      int64_t nr, float *buf)
{
    const pz_conv16c_desc *d = &p->d;
    for (int64_t ib = 0; ib < p->cb; ib++)
        for (int64_t r = r0; r < r0 + nr; r++) {
            float *dst = buf + (ib * nr + r - r0) * p->wp * 16;
            int64_t ih = r - d->pt;
            if (ih < 0 || ih >= d->h) {
                memset(dst, 0, (size_t)p->wp * 16 * sizeof(float));
                continue;
            }
            memset(dst, 0, (size_t)d->pl * 16 * sizeof(float));
            memcpy(dst + d->pl * 16, x + ((n * p->cb + ib) * d->h + ih) * d->w * 16,
                   (size_t)d->w * 16 * sizeof(float));
            memset(dst + (d->pl + d->w) * 16, 0,
                   (size_t)(p->wp - d->pl - d->w) * 16 * sizeof(float));
        }
}

/* Stride 1 (see the top of spconv16c.h): each image's virtual pixels
 * [0, (OH - 1) * wp + OW) split over the workers, each copying the padded
 * rows its share reads. */
static void run_wide(const pz_spconv_plan *p, const float *x, const float *bias, const float *z,
                     float *y, const float **xs, const float **ws, float *buf, int ith, int nth)
{
    const pz_conv16c_desc *d = &p->d;
    const int64_t wp = p->wp, taps = (int64_t)d->kh * d->kw, plane = d->oh * d->ow * 16;
    const int64_t nv = (d->oh - 1) * wp + d->ow;
    int64_t span = SPCONV_SPAN_BYTES / (p->cb * 16 * (int64_t)sizeof(float));
    span = span < 48 ? 48 : span / 12 * 12;
    int64_t lo, hi;
    pz_split(nv, ith, nth, &lo, &hi);
    if (hi <= lo) return;
    int64_t r0 = lo / wp, r1 = (hi - 1) / wp + (int64_t)(d->kh - 1) * d->dh + 1;
    if (r1 > p->hp) r1 = p->hp;
    int64_t nr = r1 - r0;
    /* a garbage column near the end of the share reads up to a row past it */
    memset(buf + p->cb * nr * wp * 16, 0, (size_t)wp * 16 * sizeof(float));
    for (int64_t n = 0; n < d->n; n++) {
        copy_rows(p, x, n, r0, nr, buf);
        for (int64_t v0 = lo; v0 < hi; v0 += span) {
            int64_t np = hi - v0 < span ? hi - v0 : span;
            for (int64_t ob = 0; ob < p->mb; ob++) {
                int nb = 0;
                for (int64_t k = p->start[ob]; k < p->start[ob + 1]; k++, nb++) {
                    int64_t t = p->tap[k], ib = t / taps, kh = t % taps / d->kw, kw = t % d->kw;
                    xs[nb] = buf + (ib * nr * wp + kh * d->dh * wp + kw * d->dw + v0 - r0 * wp) * 16;
                    ws[nb] = p->w + k * 256;
                }
                int64_t yo = (n * p->mb + ob) * plane;
                pz_sprow_args a = {xs, ws, nb, 16, np, bias + ob * 16, z ? z + yo : NULL, y + yo,
                                   &d->act, ob * 16, d->m, wp, v0, d->ow};
                p->row(&a);
            }
        }
    }
}

void pz_spconv_run(const pz_spconv_plan *p, const float *x, const float *bias, const float *z,
                   float *y, float *scratch, int ith, int nth)
{
    const pz_conv16c_desc *d = &p->d;
    int64_t nl = max_list(p);
    const float **xs = (const float **)(void *)scratch, **ws = xs + nl;
    int64_t ptrs = (2 * nl * (int64_t)(sizeof(void *) / sizeof(float)) + 15) / 16 * 16;
    if (p->flat) {
        run_flat(p, x, bias, z, y, xs, ws, ith, nth);
        return;
    }
    float *rows = scratch + ptrs;
    if (p->wide) {
        run_wide(p, x, bias, z, y, xs, ws, rows, ith, nth);
        return;
    }
    /* strided: the taps of a span of the worker's pixels gathered,
     * buf[ib][tap][pixel], then every output block over the span */
    const int64_t P = d->oh * d->ow, taps = (int64_t)d->kh * d->kw, smax = gather_span(p);
    int64_t lo, hi;
    pz_split(P, ith, nth, &lo, &hi);
    if (hi <= lo) return;
    int64_t nsp = (hi - lo + smax - 1) / smax, span = (hi - lo + nsp - 1) / nsp;
    for (int64_t n = 0; n < d->n; n++)
        for (int64_t p0 = lo; p0 < hi; p0 += span) {
            int64_t np = hi - p0 < span ? hi - p0 : span;
            for (int64_t ib = 0; ib < p->cb; ib++)
                for (int64_t t = 0; t < taps; t++)
                    for (int64_t pix = p0; pix < p0 + np; pix++) {
                        int64_t oh = pix / d->ow, ow = pix % d->ow;
                        int64_t ih = oh * d->sh - d->pt + t / d->kw * d->dh;
                        int64_t iw = ow * d->sw - d->pl + t % d->kw * d->dw;
                        float *dst = rows + ((ib * taps + t) * np + pix - p0) * 16;
                        const float *src = x + (((n * p->cb + ib) * d->h + ih) * d->w + iw) * 16;
                        int in = ih >= 0 && ih < d->h && iw >= 0 && iw < d->w;
                        for (int l = 0; l < 16; l++) dst[l] = in ? src[l] : 0.0f;
                    }
            for (int64_t ob = 0; ob < p->mb; ob++) {
                int nb = 0;
                for (int64_t k = p->start[ob]; k < p->start[ob + 1]; k++, nb++) {
                    xs[nb] = rows + p->tap[k] * np * 16;   /* tap[k] = ib * taps + t */
                    ws[nb] = p->w + k * 256;
                }
                int64_t yo = ((n * p->mb + ob) * P + p0) * 16;
                pz_sprow_args a = {xs, ws, nb, 16, np, bias + ob * 16, z ? z + yo : NULL,
                                   y + yo, &d->act, ob * 16, d->m, 0, 0, 0};
                p->row(&a);
            }
        }
}
