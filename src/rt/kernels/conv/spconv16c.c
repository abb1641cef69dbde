/* spconv16c.c - the block-sparse conv's plan (packing the non-zero blocks)
 * and its ISA-independent driver; see spconv16c.h. */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/spconv16c.h"

/* A span of pixels: its input (every block of every plane) and its output
 * (every block, and as much residual) about this many bytes, so that each
 * output block's list runs over the span while its input is still in L2. */
#define SPCONV_SPAN_BYTES (1024 * 1024)

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
    /* phase planes: plane (ph, pw) holds padded input pixels (i*sh + ph, j*sw + pw) */
    p->wp = d->ow + (int64_t)(d->kw - 1) * d->dw / d->sw;
    p->hp = d->oh + (int64_t)(d->kh - 1) * d->dh / d->sh;
    p->tpl = malloc((size_t)taps * sizeof *p->tpl);
    p->toff = malloc((size_t)taps * sizeof *p->toff);
    p->plph = malloc((size_t)taps * sizeof *p->plph);
    if (!p->tpl || !p->toff || !p->plph) goto oom;
    for (int64_t t = 0; t < taps; t++) {
        int64_t dy = t / d->kw * d->dh, dx = t % d->kw * d->dw;
        int32_t ph = (int32_t)(dy % d->sh * d->sw + dx % d->sw), pi = 0;
        while (pi < p->npl && p->plph[pi] != ph) pi++;
        if (pi == p->npl) p->plph[p->npl++] = ph;
        p->tpl[t] = pi;
        p->toff[t] = dy / d->sh * p->wp + dx / d->sw;
    }
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
    free(p->tpl);
    free(p->toff);
    free(p->plph);
    memset(p, 0, sizeof *p);
}

static int64_t max_list(const pz_spconv_plan *p)
{
    int64_t mx = 1;
    for (int64_t ob = 0; ob < p->mb; ob++)
        if (p->start[ob + 1] - p->start[ob] > mx) mx = p->start[ob + 1] - p->start[ob];
    return mx;
}

/* Pixels of a span (SPCONV_SPAN_BYTES), a multiple of 24, at least 48. */
static int64_t span_pixels(const pz_spconv_plan *p)
{
    int64_t per = (p->cb * (p->flat ? 1 : p->npl) + 2 * p->mb) * 16 * (int64_t)sizeof(float);
    int64_t s = SPCONV_SPAN_BYTES / per;
    return s < 48 ? 48 : s / 24 * 24;
}

/* The worker's scratch: two pointer lists, then the planes' rows (not
 * flat). */
int64_t pz_spconv_scratch_size(const pz_spconv_plan *p)
{
    int64_t ptrs = 2 * max_list(p) * (int64_t)(sizeof(void *) / sizeof(float));
    ptrs = (ptrs + 15) / 16 * 16;
    if (p->flat) return ptrs;
    return ptrs + (p->cb * p->npl * p->hp + 1) * p->wp * 16;   /* + a slack row */
}

/* [lo, hi) in n spans as even as can be (no short last span: each span
 * streams every weight block once). */
static int64_t even_span(int64_t lo, int64_t hi, int64_t smax)
{
    int64_t ns = (hi - lo + smax - 1) / smax;
    return ns > 0 ? (hi - lo + ns - 1) / ns : 1;
}

static void run_flat(const pz_spconv_plan *p, int64_t nimg, const float *x, const float *bias,
                     const float *z, float *y, const float **xs, const float **ws, int ith,
                     int nth)
{
    const pz_conv16c_desc *d = &p->d;
    int64_t hw = d->h * d->w, lo, hi;
    pz_split(nimg * hw, ith, nth, &lo, &hi);
    const int64_t span = even_span(lo, hi, span_pixels(p));
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

/* Rows [r0, r0 + nr) of every used plane of every input block into
 * buf[ib][plane][r - r0][wp pixels]: plane (ph, pw)'s row r, column j is
 * input pixel (r*sh + ph - pt, j*sw + pw - pl), or zeros in the padding. */
static void copy_rows(const pz_spconv_plan *p, const float *x, int64_t n, int64_t r0,
                      int64_t nr, float *buf)
{
    const pz_conv16c_desc *d = &p->d;
    const int64_t wp = p->wp;
    for (int64_t ib = 0; ib < p->cb; ib++)
        for (int64_t pi = 0; pi < p->npl; pi++) {
            const int64_t ph = p->plph[pi] / d->sw, pw = p->plph[pi] % d->sw;
            /* the columns j with an input pixel: [j0, j1) */
            int64_t j0 = (d->pl - pw + d->sw - 1) / d->sw, j1 = (d->w + d->pl - pw + d->sw - 1) / d->sw;
            j0 = j0 < 0 ? 0 : j0 > wp ? wp : j0;
            j1 = j1 < j0 ? j0 : j1 > wp ? wp : j1;
            for (int64_t r = r0; r < r0 + nr; r++) {
                float *dst = buf + ((ib * p->npl + pi) * nr + r - r0) * wp * 16;
                int64_t ih = r * d->sh + ph - d->pt;
                if (ih < 0 || ih >= d->h || j1 == j0) {
                    memset(dst, 0, (size_t)wp * 16 * sizeof(float));
                    continue;
                }
                const float *src = x + ((n * p->cb + ib) * d->h + ih) * d->w * 16;
                memset(dst, 0, (size_t)j0 * 16 * sizeof(float));
                if (d->sw == 1) {
                    memcpy(dst + j0 * 16, src + (j0 + pw - d->pl) * 16,
                           (size_t)(j1 - j0) * 16 * sizeof(float));
                } else {
                    for (int64_t j = j0; j < j1; j++)
                        memcpy(dst + j * 16, src + (j * d->sw + pw - d->pl) * 16, 16 * sizeof(float));
                }
                memset(dst + j1 * 16, 0, (size_t)(wp - j1) * 16 * sizeof(float));
            }
        }
}

/* Not flat (see the top of spconv16c.h): each image's virtual pixels
 * [0, (OH - 1) * wp + OW) split over the workers, each copying the plane
 * rows its share reads. */
static void run_wide(const pz_spconv_plan *p, int64_t nimg, const float *x, const float *bias,
                     const float *z, float *y, const float **xs, const float **ws, float *buf,
                     int ith, int nth)
{
    const pz_conv16c_desc *d = &p->d;
    const int64_t wp = p->wp, taps = (int64_t)d->kh * d->kw, plane = d->oh * d->ow * 16;
    const int64_t nv = (d->oh - 1) * wp + d->ow;
    int64_t lo, hi;
    pz_split(nv, ith, nth, &lo, &hi);
    if (hi <= lo) return;
    const int64_t span = even_span(lo, hi, span_pixels(p));
    int64_t r0 = lo / wp, r1 = (hi - 1) / wp + p->hp - d->oh + 1;
    if (r1 > p->hp) r1 = p->hp;
    int64_t nr = r1 - r0;
    /* a padding column near the end of the share reads up to a row past it */
    memset(buf + p->cb * p->npl * nr * wp * 16, 0, (size_t)wp * 16 * sizeof(float));
    for (int64_t n = 0; n < nimg; n++) {
        copy_rows(p, x, n, r0, nr, buf);
        for (int64_t v0 = lo; v0 < hi; v0 += span) {
            int64_t np = hi - v0 < span ? hi - v0 : span;
            for (int64_t ob = 0; ob < p->mb; ob++) {
                int nb = 0;
                for (int64_t k = p->start[ob]; k < p->start[ob + 1]; k++, nb++) {
                    int64_t t = p->tap[k], ib = t / taps, tt = t % taps;
                    xs[nb] = buf + (((ib * p->npl + p->tpl[tt]) * nr - r0) * wp + p->toff[tt] + v0) * 16;
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

void pz_spconv_run(const pz_spconv_plan *p, int64_t n, const float *x, const float *bias,
                   const float *z, float *y, float *scratch, int ith, int nth)
{
    int64_t nl = max_list(p);
    const float **xs = (const float **)(void *)scratch, **ws = xs + nl;
    int64_t ptrs = (2 * nl * (int64_t)(sizeof(void *) / sizeof(float)) + 15) / 16 * 16;
    if (p->flat)
        run_flat(p, n, x, bias, z, y, xs, ws, ith, nth);
    else
        run_wide(p, n, x, bias, z, y, xs, ws, scratch + ptrs, ith, nth);
}
