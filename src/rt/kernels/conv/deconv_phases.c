/* deconv_phases.c - ConvTranspose1d and ConvTranspose2d as stride-1 convs,
 * one per output phase (see deconv_phases.h). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/deconv_phases.h"
#include "rt/mem.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int64_t pz_deconv_taps(int64_t k, int64_t s, int64_t r)
{
    return (k - r + s - 1) / s;
}

int64_t pz_deconv_first_q(int64_t s, int64_t pb, int64_t r)
{
    return -floor_div(r - pb, s);   /* ceil((pb - r) / s) */
}

int64_t pz_deconv_count_q(int64_t s, int64_t pb, int64_t r, int64_t out)
{
    /* q*s + r - pb < out */
    const int64_t q = -floor_div(r - out - pb, s) - pz_deconv_first_q(s, pb, r);
    return q > 0 ? q : 0;
}

bool pz_deconv_axis_takes(int64_t k, int64_t s, int64_t d, int64_t pb)
{
    if (d != 1 || s < 1 || k < s || pb < 0) return false;
    for (int64_t r = 0; r < s; r++)
        if (pz_deconv_taps(k, s, r) - 1 - pz_deconv_first_q(s, pb, r) < 0) return false;
    return true;
}

/* Axis a's kernel with its dilation's zeros, (K - 1) d + 1; 0 past
 * PZ_DECONV_MAX_DILATION (most of such a kernel's taps are zeros). */
static int64_t dilated_k(const pz_conv_params *p, int a)
{
    const int64_t d = p->dilation[a];
    return d >= 1 && d <= PZ_DECONV_MAX_DILATION ? ((int64_t)p->kernel[a] - 1) * d + 1 : 0;
}

bool pz_deconv_phases_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                            const int64_t *yd)
{
    if (p->group < 1 || !pz_act_is_clamp(p->act.kind)) return false;
    if (p->group > 1 && (xd[1] % (16 * p->group) || yd[1] % (16 * p->group))) return false;
    if (rank == 4) {
        /* dilated: the kernel with d - 1 zeros between taps (make_dilated) */
        const int64_t kh = dilated_k(p, 0), kw = dilated_k(p, 1);
        return p->nsp == 2 && yd[2] > 0 && yd[3] > 0 && kh > 0 && kw > 0 &&
               (int64_t)p->stride[0] * p->stride[1] <= PZ_DECONV_MAX_PHASES &&
               pz_deconv_axis_takes(kh, p->stride[0], 1, p->pad_begin[0]) &&
               pz_deconv_axis_takes(kw, p->stride[1], 1, p->pad_begin[1]) &&
               pz_deconv_taps(kw, p->stride[1], 0) <= 64;   /* conv16c's taps on W */
    }
    return rank == 3 && p->nsp == 1 && p->dilation[0] == 1 &&
           p->stride[0] >= 1 && p->stride[0] <= PZ_DECONV_MAX_PHASES &&
           p->kernel[0] >= p->stride[0] && p->pad_begin[0] >= 0 && yd[2] > 0 &&
           (p->kernel[0] + p->stride[0] - 1) / p->stride[0] <= 64;   /* conv16c's taps */
}

/* the buffers both ranks share; 1 when out of memory */
static int alloc_common(pz_deconv_phases *f, int64_t wsz, int64_t mw, pz_isa isa, float **wt)
{
    f->conv = pz_fast_kernels_for(isa)->conv2d;
    f->to_blk = pz_fast_kernels_for(isa)->rows_to_block;
    f->from_blk = pz_fast_kernels_for(isa)->block_to_rows;
    f->wp = pz_alloc_big((size_t)(wsz > 0 ? wsz : 1) * sizeof(float), 0);
    f->bp = pz_alloc_big((size_t)pz_pack_bias16_size(f->m) * sizeof(float), 0);
    f->bar = aligned_alloc(64, (sizeof(pz_barrier) + 63) / 64 * 64);
    *wt = malloc((size_t)(mw > 0 ? mw : 1) * sizeof(float));
    if (!f->wp || !f->bp || !f->bar || !*wt) return 1;
    memset(f->bar, 0, sizeof *f->bar);
    return 0;
}

/* 2-D: phase r = rh * sw + rw, a conv of Jh x Jw taps with pads before
 * Jh - 1 - q0h and Jw - 1 - q0w over X as it is */
static int make_2d(pz_deconv_phases *f, const pz_conv_params *p, const int64_t *xd,
                   const int64_t *yd, const float *w, const float *b, pz_isa isa)
{
    const int64_t C = xd[1] / f->g, M = yd[1] / f->g, KH = p->kernel[0], KW = p->kernel[1];
    f->two_d = 1;
    f->h = xd[2], f->l = f->lp = xd[3], f->oh = yd[2], f->ol = yd[3];
    f->sh = p->stride[0], f->s = p->stride[1], f->pbh = p->pad_begin[0], f->pb = p->pad_begin[1];
    int64_t rows = 0, wsz = 0, jh[PZ_DECONV_MAX_PHASES], jw[PZ_DECONV_MAX_PHASES];
    for (int64_t rh = 0; rh < f->sh; rh++)
        for (int64_t rw = 0; rw < f->s; rw++) {
            const int64_t r = rh * f->s + rw;
            jh[r] = pz_deconv_taps(KH, f->sh, rh), jw[r] = pz_deconv_taps(KW, f->s, rw);
            f->q0h[r] = pz_deconv_first_q(f->sh, f->pbh, rh);
            f->q0[r] = pz_deconv_first_q(f->s, f->pb, rw);
            int64_t qh = pz_deconv_count_q(f->sh, f->pbh, rh, f->oh);
            int64_t qw = pz_deconv_count_q(f->s, f->pb, rw, f->ol);
            if (qh == 0 || qw == 0) qh = qw = 0;
            pz_conv_params p2 = {.nsp = 2, .group = 1, .kernel = {jh[r], jw[r]}, .stride = {1, 1},
                                 .dilation = {1, 1}, .act = p->act};
            p2.pad_begin[0] = jh[r] - 1 - f->q0h[r], p2.pad_begin[1] = jw[r] - 1 - f->q0[r];
            int64_t xd4[4] = {1, C, f->h, f->l}, yd4[4] = {1, M, qh > 0 ? qh : 1, qw > 0 ? qw : 1};
            if (pz_conv16c_init(&f->d[r], &p2, xd4, yd4)) return 1;   /* not reached: takes */
            f->d[r].cblk = 16;   /* blocked whatever the channels */
            f->d[r].oh = qh, f->d[r].ow = qw;
            f->yoff[r] = rows, rows += qh * qw;
            f->wg[r] = pz_conv16c_weights_size(&f->d[r]);
            f->woff[r] = wsz, wsz += f->g * f->wg[r];
        }
    f->yimage = rows * f->mb * 16;
    float *wt;
    if (alloc_common(f, wsz, M * C * KH * KW, isa, &wt)) {
        free(wt);
        return 1;
    }
    /* group g's W'_r[m][c][a][e] = W[g C + c][m][rh + (Jh - 1 - a) sh][rw + (Jw - 1 - e) sw]
       (W is [G C][M][KH][KW]: C, M the channels of a group) */
    for (int64_t r = 0; r < f->sh * f->s; r++) {
        const int64_t rh = r / f->s, rw = r % f->s, J = jh[r] * jw[r];
        for (int64_t gi = 0; gi < f->g; gi++) {
            const float *wgi = w + gi * C * M * KH * KW;
            for (int64_t m = 0; m < M; m++)
                for (int64_t c = 0; c < C; c++)
                    for (int64_t a = 0; a < jh[r]; a++)
                        for (int64_t e = 0; e < jw[r]; e++)
                            wt[(m * C + c) * J + a * jw[r] + e] =
                                wgi[((c * M + m) * KH + rh + (jh[r] - 1 - a) * f->sh) * KW + rw +
                                    (jw[r] - 1 - e) * f->s];
            pz_conv16c_pack_weights(&f->d[r], wt, f->wp + f->woff[r] + gi * f->wg[r]);
        }
    }
    free(wt);
    pz_pack_bias16(f->m, b, f->bp);
    return 0;
}

/* A dilated 2-D one as the same with the kernel's zeros written out: its
 * phases then read only input columns the dilated taps read (the zero
 * taps cost FMAs, at most PZ_DECONV_MAX_DILATION x the real ones a axis). */
static int make_dilated(pz_deconv_phases **out, const pz_conv_params *p, const int64_t *xd,
                        const int64_t *yd, const float *w, const float *b, pz_isa isa)
{
    pz_conv_params q = *p;
    const int64_t kh = p->kernel[0], kw = p->kernel[1], eh = dilated_k(p, 0), ew = dilated_k(p, 1);
    const int64_t planes = xd[1] * (yd[1] / p->group);   /* W is [C][M / group][KH][KW] */
    float *wd = calloc((size_t)(planes * eh * ew), sizeof(float));
    if (!wd) return 1;
    for (int64_t i = 0; i < planes; i++)
        for (int64_t a = 0; a < kh; a++)
            for (int64_t e = 0; e < kw; e++)
                wd[(i * eh + a * p->dilation[0]) * ew + e * p->dilation[1]] = w[(i * kh + a) * kw + e];
    q.kernel[0] = (int)eh, q.kernel[1] = (int)ew, q.dilation[0] = q.dilation[1] = 1;
    const int rc = pz_deconv_phases_make(out, &q, xd, yd, wd, b, isa);
    free(wd);
    return rc;
}

int pz_deconv_phases_make(pz_deconv_phases **out, const pz_conv_params *p, const int64_t *xd,
                          const int64_t *yd, const float *w, const float *b, pz_isa isa)
{
    *out = NULL;
    if (p->nsp == 2 && (p->dilation[0] > 1 || p->dilation[1] > 1))
        return make_dilated(out, p, xd, yd, w, b, isa);
    pz_deconv_phases *f = calloc(1, sizeof *f);
    if (!f) return 1;
    const int64_t C = xd[1], M = yd[1], K = p->kernel[0], s = p->stride[0], pb = p->pad_begin[0];
    f->n = xd[0], f->c = C, f->m = M, f->g = p->group;
    f->cb = (C + 15) / 16, f->mb = (M + 15) / 16;
    f->cbg = f->cb / f->g, f->mbg = f->mb / f->g;   /* takes: whole blocks a group if g > 1 */
    f->h = f->oh = f->sh = 1;
    if (p->nsp == 2) {
        f->ycs = yd[2] * yd[3];
        if (make_2d(f, p, xd, yd, w, b, isa)) {
            pz_deconv_phases_free(f);
            return 1;
        }
        *out = f;
        return 0;
    }
    f->l = xd[2], f->ol = yd[2], f->s = s, f->pb = pb, f->ycs = yd[2];
    int64_t reach = f->l, rows = 0, wsz = 0;
    int64_t J[PZ_DECONV_MAX_PHASES], Q[PZ_DECONV_MAX_PHASES];
    for (int64_t r = 0; r < s; r++) {
        J[r] = pz_deconv_taps(K, s, r);
        f->q0[r] = pz_deconv_first_q(s, pb, r);
        Q[r] = -floor_div(r - f->ol - pb, s) - f->q0[r];            /* q*s + r - pb < OL */
        if (Q[r] < 0) Q[r] = 0;
        f->c0[r] = f->q0[r] - (J[r] - 1) > 0 ? f->q0[r] - (J[r] - 1) : 0;
        if (f->q0[r] + Q[r] + 1 > reach) reach = f->q0[r] + Q[r] + 1;   /* last column read */
    }
    f->lp = reach;   /* L + E: the reads past x's end land on zeros of the same row */
    for (int64_t r = 0; r < s; r++) {
        pz_conv_params p2 = {.nsp = 2, .group = 1, .kernel = {1, J[r]}, .stride = {1, 1},
                             .dilation = {1, 1}, .act = p->act};
        p2.pad_begin[1] = J[r] - 1 - f->q0[r] > 0 ? J[r] - 1 - f->q0[r] : 0;
        int64_t xd4[4] = {1, C / f->g, 1, f->lp}, yd4[4] = {1, M / f->g, 1, Q[r] > 0 ? Q[r] : 1};
        if (pz_conv16c_init(&f->d[r], &p2, xd4, yd4)) {   /* not reached: takes */
            free(f);
            return 1;
        }
        f->d[r].cblk = 16;   /* blocked whatever the channels */
        f->d[r].ow = Q[r];
        f->yoff[r] = rows, rows += Q[r];
        f->wg[r] = pz_conv16c_weights_size(&f->d[r]);
        f->woff[r] = wsz, wsz += f->g * f->wg[r];
    }
    f->yimage = rows * f->mb * 16;
    float *wt;
    if (alloc_common(f, wsz, M * C * K, isa, &wt)) {
        free(wt);
        pz_deconv_phases_free(f);
        return 1;
    }
    /* group g's W'_r[m][c][jj] = W[g Cg + c][m][r + (J - 1 - jj) s] (W: [G Cg][Mg][K]) */
    const int64_t Cg = C / f->g, Mg = M / f->g;
    for (int64_t r = 0; r < s; r++)
        for (int64_t gi = 0; gi < f->g; gi++) {
            const float *wgi = w + gi * Cg * Mg * K;
            for (int64_t m = 0; m < Mg; m++)
                for (int64_t c = 0; c < Cg; c++)
                    for (int64_t jj = 0; jj < J[r]; jj++)
                        wt[(m * Cg + c) * J[r] + jj] =
                            wgi[(c * Mg + m) * K + r + (J[r] - 1 - jj) * s];
            pz_conv16c_pack_weights(&f->d[r], wt, f->wp + f->woff[r] + gi * f->wg[r]);
        }
    free(wt);
    pz_pack_bias16(M, b, f->bp);
    *out = f;
    return 0;
}

size_t pz_deconv_phases_scratch_bytes(const pz_deconv_phases *f)
{
    return (size_t)(f->n * (f->cb * f->h * f->lp * 16 + f->yimage)) * sizeof(float);
}

/* 2-D: phase r's [M/16][Qh][Qw][16] of image i to Y with strides sh, sw */
static void scatter_2d(const pz_deconv_phases *f, const float *ys, float *y, int64_t u)
{
    const int64_t np = f->sh * f->s, b = u % f->mb, r = u / f->mb % np, i = u / f->mb / np;
    const int64_t rh = r / f->s, rw = r % f->s, qh = f->d[r].oh, qw = f->d[r].ow;
    const int64_t nch = f->m - b * 16 < 16 ? f->m - b * 16 : 16;
    const float *src = ys + i * f->yimage + f->yoff[r] * f->mb * 16 + b * qh * qw * 16;
    float *y0 = y + (i * f->m + b * 16) * f->ycs +
                (f->q0h[r] * f->sh + rh - f->pbh) * f->ol + f->q0[r] * f->s + rw - f->pb;
    for (int64_t l = 0; l < nch; l++)
        for (int64_t a = 0; a < qh; a++) {
            float *row = y0 + l * f->ycs + a * f->sh * f->ol;
            const float *sp = src + a * qw * 16 + l;
            for (int64_t e = 0; e < qw; e++) row[e * f->s] = sp[e * 16];
        }
}

void pz_deconv_phases_run(const pz_deconv_phases *f, const float *x, float *y, void *scratch,
                          int ith, int nth)
{
    const int64_t xplane = f->h * f->lp * 16;
    float *xs = scratch, *ys = xs + f->n * f->cb * xplane;
    int64_t lo, hi;
    pz_split(f->n * f->cb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {   /* (image, block): [h][lp][16], zeros past l */
        const int64_t b = u % f->cb, i = u / f->cb, nch = f->c - b * 16 < 16 ? f->c - b * 16 : 16;
        const int64_t hw = f->h * f->l;
        float *dst = xs + u * xplane;
        f->to_blk(x + (i * f->c + b * 16) * hw, hw, nch, hw, 16, dst);
        if (f->lp > f->l) memset(dst + f->l * 16, 0, (size_t)((f->lp - f->l) * 16) * sizeof(float));
    }
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    pz_deconv_phases_run_blocked(f, xs, y, ys, ith, nth);
}

void pz_deconv_phases_run_blocked(const pz_deconv_phases *f, const float *xs, float *y, float *ys,
                                  int ith, int nth)
{
    const int64_t xplane = f->h * f->lp * 16, np = f->sh * f->s;
    int64_t lo, hi;
    for (int64_t i = 0; i < f->n; i++)   /* each call splits its rows over the workers */
        for (int64_t r = 0; r < np; r++)
            for (int64_t gi = 0; gi < f->g && f->d[r].ow > 0 && f->d[r].oh > 0; gi++)
                f->conv(&f->d[r], xs + (i * f->cb + gi * f->cbg) * xplane + f->c0[r] * 16,
                        f->wp + f->woff[r] + gi * f->wg[r], f->bp + gi * f->mbg * 16, NULL,
                        ys + i * f->yimage + f->yoff[r] * f->mb * 16 +
                            gi * f->mbg * f->d[r].oh * f->d[r].ow * 16,
                        ith, nth);
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    pz_split(f->n * np * f->mb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {   /* (image, phase, block): rows with stride s */
        if (f->two_d) {
            scatter_2d(f, ys, y, u);
            continue;
        }
        const int64_t b = u % f->mb, r = u / f->mb % f->s, i = u / f->mb / f->s;
        const int64_t nq = f->d[r].ow, nch = f->m - b * 16 < 16 ? f->m - b * 16 : 16;
        const float *src = ys + i * f->yimage + f->yoff[r] * f->mb * 16 + b * nq * 16;
        float *row = y + (i * f->m + b * 16) * f->ycs + f->q0[r] * f->s + r - f->pb;
        for (int64_t l = 0; l < nch; l++)
            for (int64_t q = 0; q < nq; q++) row[l * f->ycs + q * f->s] = src[q * 16 + l];
    }
}

void pz_deconv_phases_free(pz_deconv_phases *f)
{
    if (!f) return;
    free(f->wp);
    free(f->bp);
    free(f->bar);
    free(f);
}
