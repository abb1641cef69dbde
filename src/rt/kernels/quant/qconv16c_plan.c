/* qconv16c_plan.c - the int8 NCHW16c convolution's plan (packing, class biases,
 * register tile), the driver of the SIMD micro-kernels (VNNI, AVX2) and the
 * choice of ISA (qisa.h; qconv16c.h, qconv16c_impl.h).
 *
 * The driver cuts an image's output into
 *   rows [T, B) x columns [L, R)   every tap inside: row tiles of up to rw
 *                                   pixels, input pixels sw*16 bytes apart
 *   rows [T, B), other columns      the border columns: column tiles of up to
 *                                   rwc pixels down the column (input pixels
 *                                   sh rows apart), the taps of that column
 *   other rows (top and bottom)     the row's [L, R) as row tiles with its
 *                                   kernel rows, each other pixel alone
 * Every tile skips the taps outside the image and starts from its class's
 * bias, which has x_zp's share of the other taps folded in: no padding is
 * read and no scratch is needed. The work units are (image, group of rm
 * output blocks, output row), then (image, group, border column), split
 * evenly by pz_split; a unit's tiles keep the group's weights in cache.
 * A 1x1 conv with stride 1 and no padding takes the image as one row of H*W
 * pixels, in spans of a few tiles (the units): no short tile at row ends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/quant/qconv16c_impl.h"
#include "rt/rt_assert.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

int pz_qconv16c_plan_vnni(const pz_qconv16c_plan *p)
{
    return p->kern == PZ_Q8_VNNI;
}

pz_q8_kernel pz_qconv16c_plan_kernel(const pz_qconv16c_plan *p)
{
    return p->kern;
}

void pz_qconv16c_plan_free(pz_qconv16c_plan *p)
{
    if (!p) return;
    free(p->w), free(p->w16);
    free(p->mult), free(p->flo), free(p->fhi);
    free(p->bias);
    free(p->rcls), free(p->khlo), free(p->khhi);
    free(p->ccls), free(p->kwlo), free(p->kwhi);
    free(p);
}

/* Taps [*lo, *hi) of a k-wide kernel (dilation dil) inside [0, size) for a
 * window starting at i0. */
static void tap_range(int64_t i0, int k, int dil, int64_t size, int *lo, int *hi)
{
    int a = 0, b = k;
    while (a < k && i0 + (int64_t)a * dil < 0) a++;
    while (b > a && i0 + (int64_t)(b - 1) * dil >= size) b--;
    *lo = a;
    *hi = b > a ? b : a;
}

/* Classes of out positions: cls[o] indexes the distinct (lo, hi) pairs. */
static int classify(int64_t out, int64_t stride, int64_t pad, int k, int dil, int64_t size,
                    int *cls, int *lo, int *hi, int *clo, int *chi)
{
    int nc = 0;
    for (int64_t o = 0; o < out; o++) {
        tap_range(o * stride - pad, k, dil, size, &lo[o], &hi[o]);
        int c = 0;
        while (c < nc && (clo[c] != lo[o] || chi[c] != hi[o])) c++;
        if (c == nc) clo[nc] = lo[o], chi[nc] = hi[o], nc++;
        cls[o] = c;
    }
    return nc;
}

/* The full-window range [*a, *b) of positions (lo == 0, hi == k). */
static void full_range(int64_t out, const int *lo, const int *hi, int k, int64_t *a, int64_t *b)
{
    int64_t i = 0;
    while (i < out && !(lo[i] == 0 && hi[i] == k)) i++;
    int64_t j = i;
    while (j < out && lo[j] == 0 && hi[j] == k) j++;
    *a = i;
    *b = j;
}

#ifndef PZ_SCALAR
/* Estimated cycles of a row of ow pixels in tiles of up to rwmax pixels x
 * groups of rm blocks: each q step of a tile takes the longest of its
 * vpdpbusd (2 a cycle), its loads (2 a cycle) and one accumulator's latency. */
static double row_cost(int64_t ow, int64_t mb, int rm, int rwmax)
{
    double t = 0;
    for (int64_t g = 0; g < mb; g += rm) {
        int r = (int)(mb - g < rm ? mb - g : rm);
        int64_t nt = cdiv(ow, rwmax);
        double w = (double)ow / (double)nt, c = w * r / 2;
        if ((w + r) / 2 > c) c = (w + r) / 2;
        if (c < 5) c = 5;
        t += (double)nt * c;
    }
    return t;
}
#endif

#ifndef PZ_SCALAR
/* The AVX2 kernel's int16 copy of the packed weights (qconv16c_impl.h):
 * tap element [q][ic/4*4 + e] of w goes to pair (e & 1), element (e >> 1). */
static int pack16(pz_qconv16c_plan *p)
{
    const int64_t ntap = p->mb * p->cb * p->d.kh * p->d.kw;
    p->w16 = malloc((size_t)ntap * QC_TAP16);
    if (!p->w16) return -1;
    for (int64_t t = 0; t < ntap; t++)
        for (int q = 0; q < 4; q++)
            for (int l = 0; l < 16; l++)
                for (int e = 0; e < 4; e++)
                    p->w16[t * (QC_TAP16 / 2) + ((q * 2 + (e & 1)) * 16 + l) * 2 + (e >> 1)] =
                        p->w[t * QC_TAP + q * 64 + l * 4 + e];
    p->pick = pz_qconv16c_pick__avx2;
    p->wk = (const int8_t *)p->w16;
    p->tapb = QC_TAP16;
    return 0;
}

/* The register tile of the SIMD kernels. VNNI: the least estimated time
 * for a row of the interior. AVX2 and AVX-VNNI (12 of the 16 YMM accumulate): 3 pixels
 * x 2 blocks for a 1x1 conv (fewer steps a weight load), else 6 x 1
 * (bench/RESULTS.md, 'qconv16c AVX2'); the descriptor's rm 1 or 2 wins. */
static void choose_tile(pz_qconv16c_plan *p, const pz_qconv16c_desc *d)
{
    const int *rwmax = pz_qconv16c_rwmax__avx512vnni;
    if (p->kern == PZ_Q8_AVX2 || p->kern == PZ_Q8_AVXVNNI) {
        rwmax = p->kern == PZ_Q8_AVX2 ? pz_qconv16c_rwmax__avx2 : pz_qconv16c_rwmax__avxvnni;
        if (p->kern == PZ_Q8_AVXVNNI) {
            p->pick = pz_qconv16c_pick__avxvnni;
            p->wk = p->w;
            p->tapb = QC_TAP;
        }
        p->rm = d->kh * d->kw == 1 && p->mb >= 2 ? 2 : 1;
        if (d->rm == 1 || (d->rm == 2 && p->mb >= 2)) p->rm = d->rm;
    } else {
        p->pick = pz_qconv16c_pick__avx512vnni;
        p->wk = p->w;
        p->tapb = QC_TAP;
        int64_t wi = p->R > p->L ? p->R - p->L : d->ow;
        /* 14x2 first: at equal estimates it ran as fast as 6x4 or a little
         * faster, 9x3 and 16x1 behind both (bench/RESULTS.md, 'qconv16c:
         * tile order') */
        static const int order[4] = {2, 4, 3, 1};
        double best = 0;
        for (int i = 0; i < 4; i++) {
            const int rm = order[i];
            if (rm > p->mb && rm > 1) continue;
            double c = row_cost(wi, p->mb, rm, rwmax[rm]);
            if (!p->rm || c < 0.98 * best) best = c, p->rm = rm;
        }
        if (d->rm >= 1 && d->rm <= 4) p->rm = d->rm;
    }
    p->rw = rwmax[p->rm];
    p->rwc = rwmax[p->rm];
    p->flat = d->kh == 1 && d->kw == 1 && d->sh == 1 && d->sw == 1 && d->pt == 0 && d->pl == 0 &&
              d->oh == d->ih && d->ow == d->iw;
    p->span = 8 * (int64_t)p->rw;
}
#endif

#define FAIL(...) do { snprintf(err, errsize, __VA_ARGS__); goto fail; } while (0)

pz_qconv16c_plan *pz_qconv16c_plan_new(const pz_qconv16c_desc *d, pz_isa isa, const int8_t *w,
                                       const int32_t *b, float x_scale, const float *w_scale,
                                       float y_scale, char *err, size_t errsize)
{
    if (errsize) err[0] = 0;
    pz_qconv16c_plan *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errsize, "qconv16c: out of memory");
        return NULL;
    }
    if (d->n < 1 || d->c < 1 || d->m < 1 || d->ih < 1 || d->iw < 1 || d->oh < 1 || d->ow < 1 ||
        d->kh < 1 || d->kw < 1 || d->sh < 1 || d->sw < 1 || d->dh < 1 || d->dw < 1 ||
        d->pt < 0 || d->pl < 0)
        FAIL("qconv16c: sizes, strides and dilations must be >= 1 and pads >= 0");
    if (d->w_zp != 0)
        FAIL("qconv16c: weight zero point %d: only symmetric weights (0)", (int)d->w_zp);
    const int32_t xmin = d->x_signed ? -128 : 0, ymin = d->y_signed ? -128 : 0;
    if (d->x_zp < xmin || d->x_zp > xmin + 255)
        FAIL("qconv16c: x zero point %d outside x's type", (int)d->x_zp);
    if (d->y_zp < ymin || d->y_zp > ymin + 255 || d->lo < ymin || d->hi > ymin + 255 ||
        d->lo > d->hi)
        FAIL("qconv16c: y zero point %d or clamp [%d, %d] outside y's type", (int)d->y_zp,
             (int)d->lo, (int)d->hi);
    p->d = *d;
    if (d->zsum) {
        /* QADD's operands (qdq.h): the conv's y (y_scale, y_zp) and z, in its order */
        const float ys = y_scale, zs = d->z_scale;
        const int32_t yz = d->y_zp, zz = d->z_zp;
        if (d->z_zp < ymin || d->z_zp > ymin + 255 || d->s_zp < ymin || d->s_zp > ymin + 255)
            FAIL("qconv16c: residual zero points %d, %d outside y's type", (int)d->z_zp,
                 (int)d->s_zp);
        pz_qadd_args q = {.sa = d->z_b ? zs : ys, .za = d->z_b ? zz : yz,
                          .sb = d->z_b ? ys : zs, .zb = d->z_b ? yz : zz, .sc = d->s_scale,
                          .zc = d->s_zp, .sgn = d->y_signed, .relu = d->z_relu};
        p->sum.q = q;
        p->sum.r = pz_qadd_ratios_of(&q);
        p->sum.z_b = d->z_b;
        if (!isfinite(p->sum.r.ac) || !isfinite(p->sum.r.bc) || !isfinite(p->sum.r.fixed))
            FAIL("qconv16c: residual scales %g, %g, %g give ratios that are not finite",
                 (double)ys, (double)zs, (double)d->s_scale);
        p->sum.lo = (float)ymin;
        p->sum.hi = (float)(ymin + 255);
        if (d->z_relu && (float)d->s_zp > p->sum.lo) p->sum.lo = (float)d->s_zp;   /* Relu */
    }
    const int64_t C = d->c, M = d->m, KH = d->kh, KW = d->kw, K = C * KH * KW;
    const int64_t mb = cdiv(M, 16), cb = cdiv(C, 16);
    p->mb = mb;
    p->cb = cb;
    const int32_t xzp = d->x_signed ? d->x_zp + 128 : d->x_zp;
    p->xflip = d->x_signed ? 0x80808080u : 0;
    int64_t cl = C - (cb - 1) * 16;    /* channels in the last input block */
    p->nq4_last = (int)cdiv(cl, 4);

    /* weights, packed; sums of each output channel's taps (for the biases) */
    p->w = calloc((size_t)(mb * cb * KH * KW * QC_TAP), 1);
    int64_t *tsum = calloc((size_t)(M * KH * KW), sizeof *tsum);
    p->mult = calloc((size_t)mb * 16, sizeof(float));
    p->flo = calloc((size_t)mb * 16, sizeof(float));
    p->fhi = calloc((size_t)mb * 16, sizeof(float));
    if (!p->w || !tsum || !p->mult || !p->flo || !p->fhi) {
        free(tsum);
        FAIL("qconv16c: out of memory");
    }
    for (int64_t m = 0; m < M; m++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t t = 0; t < KH * KW; t++) {
                int8_t v = w[(m * C + c) * KH * KW + t];
                int64_t ob = m / 16, l = m % 16, ib = c / 16, ic = c % 16;
                p->w[((ob * cb + ib) * KH * KW + t) * QC_TAP + (ic / 4) * 64 + l * 4 + ic % 4] = v;
                tsum[m * KH * KW + t] += v;
            }
    for (int64_t m = 0; m < M; m++) {
        /* as the reference rounds it: float(float(x_scale * w_scale) / y_scale) */
        float s = x_scale * w_scale[m];
        float mu = s / y_scale;
        if (!isfinite(mu)) {
            free(tsum);
            FAIL("qconv16c: output channel %lld: multiplier %g is not finite", (long long)m,
                 (double)mu);
        }
        p->mult[m] = mu;
        p->flo[m] = (float)(d->lo - d->y_zp);
        p->fhi[m] = (float)(d->hi - d->y_zp);
    }

    /* pixel classes and their biases */
    p->rcls = malloc((size_t)d->oh * sizeof(int));
    p->khlo = malloc((size_t)d->oh * sizeof(int));
    p->khhi = malloc((size_t)d->oh * sizeof(int));
    p->ccls = malloc((size_t)d->ow * sizeof(int));
    p->kwlo = malloc((size_t)d->ow * sizeof(int));
    p->kwhi = malloc((size_t)d->ow * sizeof(int));
    int *rlo = malloc((size_t)d->oh * sizeof(int)), *rhi = malloc((size_t)d->oh * sizeof(int));
    int *clo = malloc((size_t)d->ow * sizeof(int)), *chi = malloc((size_t)d->ow * sizeof(int));
    if (!p->rcls || !p->khlo || !p->khhi || !p->ccls || !p->kwlo || !p->kwhi || !rlo || !rhi ||
        !clo || !chi) {
        free(tsum), free(rlo), free(rhi), free(clo), free(chi);
        FAIL("qconv16c: out of memory");
    }
    p->nrc = classify(d->oh, d->sh, d->pt, d->kh, d->dh, d->ih, p->rcls, p->khlo, p->khhi, rlo, rhi);
    p->ncc = classify(d->ow, d->sw, d->pl, d->kw, d->dw, d->iw, p->ccls, p->kwlo, p->kwhi, clo, chi);
    full_range(d->oh, p->khlo, p->khhi, d->kh, &p->T, &p->B);
    full_range(d->ow, p->kwlo, p->kwhi, d->kw, &p->L, &p->R);
    p->bias = calloc((size_t)(p->nrc * p->ncc * mb * 16), sizeof(int32_t));
    int ok = p->bias != NULL;
    for (int rc = 0; ok && rc < p->nrc; rc++)
        for (int cc = 0; ok && cc < p->ncc; cc++)
            for (int64_t m = 0; m < M; m++) {
                int64_t s = 0;
                for (int kh = rlo[rc]; kh < rhi[rc]; kh++)
                    for (int kw = clo[cc]; kw < chi[cc]; kw++) s += tsum[(m * KH + kh) * KW + kw];
                int64_t v = (b ? b[m] : 0) - (int64_t)xzp * s;
                /* every partial sum, |v| + 255 * 128 * K, stays in int32
                 * (vpdpbusd wraps) */
                if ((v < 0 ? -v : v) + 255 * 128 * K > INT32_MAX) ok = -1;
                p->bias[((int64_t)rc * p->ncc + cc) * mb * 16 + m] = (int32_t)v;
            }
    free(tsum), free(rlo), free(rhi), free(clo), free(chi);
    if (!p->bias) FAIL("qconv16c: out of memory");
    if (ok < 0) FAIL("qconv16c: the int32 sums may overflow (bias with x_zp folded in, %lld products)", (long long)K);

    p->kern = pz_q8_kernel_for(isa, d->novnni);
#ifndef PZ_SCALAR
    if (p->kern == PZ_Q8_AVX2 && pack16(p) < 0) FAIL("qconv16c: out of memory");
    if (p->kern != PZ_Q8_SCALAR) choose_tile(p, d);
#endif
    return p;
fail:
    pz_qconv16c_plan_free(p);
    return NULL;
}

#ifndef PZ_SCALAR
/* ---- the driver ------------------------------------------------------------- */

typedef struct {
    const pz_qconv16c_plan *p;
    const uint8_t *x;        /* image n */
    uint8_t *y;              /* image n, the group's first block */
    const uint8_t *z;        /* the residual there, or NULL */
    int64_t g;               /* first output block of the group */
    int rm;
    pz_qconv16c_uk_args a;   /* fields common to the unit's calls */
} unit_ctx;

/* np pixels of a line of the output starting at output pixel (oh, ow): along
 * the row (horizontal: input pixels sw*16 bytes apart, output 16) or down
 * the column (input pixels sh rows apart, output OW*16 bytes), all of the
 * class of (oh, ow) (its kernel rows and columns, its bias), in balanced
 * tiles of up to rwmax pixels. */
static void run_line(unit_ctx *u, int64_t oh, int64_t ow, int64_t np, int horizontal, int rwmax)
{
    const pz_qconv16c_plan *p = u->p;
    const pz_qconv16c_desc *d = &p->d;
    if (np <= 0) return;
    pz_qconv16c_uk_args *a = &u->a;
    const int khlo = p->khlo[oh], kwlo = p->kwlo[ow];
    a->nkh = p->khhi[oh] - khlo;
    a->nkw = p->kwhi[ow] - kwlo;
    a->bias = p->bias + ((int64_t)p->rcls[oh] * p->ncc + p->ccls[ow]) * p->mb * 16 + u->g * 16;
    a->w = p->wk + ((u->g * p->cb * d->kh + khlo) * d->kw + kwlo) * p->tapb;
    a->xps = horizontal ? (int64_t)d->sw * 16 : (int64_t)d->sh * d->iw * 16;
    a->yps = horizontal ? 16 : d->ow * 16;
    const int psk = a->xps == 16 ? 0 : a->xps == 32 ? 1 : 2;
    const int xs = p->xflip != 0;
    const int64_t ih = oh * d->sh - d->pt + (int64_t)khlo * d->dh;
    const int64_t iw = ow * d->sw - d->pl + (int64_t)kwlo * d->dw;
    const uint8_t *x0 = u->x + (ih * d->iw + iw) * 16;
    uint8_t *y0 = u->y + (oh * d->ow + ow) * 16;
    int64_t nt = cdiv(np, rwmax), base = np / nt, ext = np % nt, t0 = 0;
    for (int64_t t = 0; t < nt; t++) {
        int tw = (int)(base + (t < ext));
        a->x = x0 + t0 * a->xps;
        a->y = y0 + t0 * a->yps;
        a->z = u->z ? u->z + (a->y - u->y) : NULL;
        p->pick(u->rm, tw, psk, xs)(a);
        t0 += tw;
    }
}

static void run_simd(const pz_qconv16c_plan *p, const uint8_t *x, const uint8_t *z, uint8_t *y,
                     int64_t r0, int64_t r1, int ith, int nth)
{
    const pz_qconv16c_desc *d = &p->d;
    const int64_t OH = d->oh, OW = d->ow, IH = d->ih, IW = d->iw;
    const int64_t L = p->L, R = p->R;
    /* rows [r0, r1): the rows of [T, B) among them run their border columns
     * down [T, B), the others row by row */
    const int64_t T = p->T > r0 ? p->T : r0, B = p->B < r1 ? p->B : r1;
    const int64_t ngrp = cdiv(p->mb, p->rm), nr = r1 - r0;
    /* border columns: those outside [L, R), run down rows [T, B) */
    const int64_t nbc = B > T ? OW - (R - L) : 0;
    /* units of an (image, group): rows and border columns, or spans of the
     * rows' pixels */
    const int64_t per = p->flat ? cdiv(nr * OW, p->span) : nr + nbc;
    int64_t lo, hi;
    pz_split(d->n * ngrp * per, ith, nth, &lo, &hi);

    unit_ctx u;
    u.p = p;
    pz_qconv16c_uk_args *a = &u.a;
    a->mult = NULL;
    a->xs_cb = IH * IW * 16;
    a->xs_h = (int64_t)d->dh * IW * 16;
    a->xs_w = (int64_t)d->dw * 16;
    a->ws_mb = p->cb * d->kh * d->kw * p->tapb;
    a->ws_cb = (int64_t)d->kh * d->kw * p->tapb;
    a->ws_h = (int64_t)d->kw * p->tapb;
    a->ys_mb = OH * OW * 16;
    a->ncb = (int)p->cb;
    a->nq4_last = p->nq4_last;
    a->yzp = d->y_zp;
    a->xflip = p->xflip;
    a->sum = &p->sum;
    for (int64_t k = lo; k < hi; k++) {
        const int64_t r = k % per, gi = k / per % ngrp, n = k / per / ngrp;
        u.g = gi * p->rm;
        u.rm = (int)(p->mb - u.g < p->rm ? p->mb - u.g : p->rm);
        u.x = x + n * p->cb * IH * IW * 16;
        u.y = y + (n * p->mb + u.g) * OH * OW * 16;
        u.z = z ? z + (u.y - y) : NULL;
        a->mult = p->mult + u.g * 16;
        a->flo = p->flo + u.g * 16;
        a->fhi = p->fhi + u.g * 16;
        if (p->flat) {
            /* pixels [r * span, ...) of the image as one row: input and
             * output pixels are both 16 bytes apart, rows after rows */
            const int64_t p0 = r0 * OW + r * p->span, pe = r1 * OW;
            const int64_t np = pe - p0 < p->span ? pe - p0 : p->span;
            run_line(&u, p0 / OW, p0 % OW, np, 1, p->rw);
        } else if (r < nr) {
            const int64_t oh = r0 + r;
            if (R > L) run_line(&u, oh, L, R - L, 1, p->rw);
            if (oh >= T && oh < B) continue;   /* border columns: column units */
            for (int64_t ow = 0; ow < OW; ow++)
                if (ow < L || ow >= R) run_line(&u, oh, ow, 1, 1, 1);
        } else {
            /* the (r - nr)-th column outside [L, R) */
            int64_t c = r - nr, ow = c < L ? c : R + (c - L);
            if (R <= L) ow = c;
            run_line(&u, T, ow, B - T, 0, p->rwc);
        }
    }
}
#endif

void pz_qconv16c_run_rows(const pz_qconv16c_plan *p, const void *x, const void *z, void *y,
                          int64_t r0, int64_t r1, int ith, int nth)
{
    if (r0 < 0) r0 = 0;
    if (r1 > p->d.oh) r1 = p->d.oh;
    if (r1 <= r0) return;
    PZ_RT_ASSERT(!z == !p->d.zsum);   /* a residual plan reads its z, another none */
#ifndef PZ_SCALAR
    if (p->pick) {
        run_simd(p, x, z, y, r0, r1, ith, nth);
        return;
    }
#endif
    pz_qconv16c_run__scalar(p, x, z, y, r0, r1, ith, nth);
}

void pz_qconv16c_run(const pz_qconv16c_plan *p, const void *x, const void *z, void *y, int ith,
                     int nth)
{
    pz_qconv16c_run_rows(p, x, z, y, 0, p->d.oh, ith, nth);
}

/* ---- layout conversion ---------------------------------------------------- */

void pz_u8_nchw_to_nchw16c(int64_t n, int64_t c, int64_t h, int64_t w, uint8_t pad,
                           const uint8_t *restrict x, uint8_t *restrict y, int ith, int nth)
{
    const int64_t cb = cdiv(c, 16);
    int64_t lo, hi;
    pz_split(n * cb * h, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t r = u % h, b = u / h % cb, i = u / h / cb;
        uint8_t *yr = y + u * w * 16;
        const int64_t nl = c - b * 16 < 16 ? c - b * 16 : 16;
        /* a block with padding lanes (a net's RGB input: 13 of 16) is
         * written whole first, then only its real lanes a byte at a time:
         * the stem's conversion cost as much as its conv when every lane
         * was a strided byte store */
        if (nl < 16) memset(yr, pad, (size_t)(w * 16));
        for (int64_t l = 0; l < nl; l++) {
            const uint8_t *xr = x + ((i * c + b * 16 + l) * h + r) * w;
            for (int64_t j = 0; j < w; j++) yr[j * 16 + l] = xr[j];
        }
    }
}

void pz_u8_nchw16c_to_nchw(int64_t n, int64_t c, int64_t h, int64_t w,
                           const uint8_t *restrict x, uint8_t *restrict y, int ith, int nth)
{
    const int64_t cb = cdiv(c, 16);
    int64_t lo, hi;
    pz_split(n * cb * h, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t r = u % h, b = u / h % cb, i = u / h / cb;
        const uint8_t *xr = x + u * w * 16;
        for (int64_t l = 0; l < 16 && b * 16 + l < c; l++) {
            uint8_t *yr = y + ((i * c + b * 16 + l) * h + r) * w;
            for (int64_t j = 0; j < w; j++) yr[j] = xr[j * 16 + l];
        }
    }
}
