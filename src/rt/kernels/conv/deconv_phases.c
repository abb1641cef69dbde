/* deconv_phases.c - ConvTranspose1d as s stride-1 convs, one per output
 * phase (see deconv_phases.h). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/deconv_phases.h"
#include "rt/mem.h"

static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

bool pz_deconv_phases_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                            const int64_t *yd)
{
    (void)xd;
    return rank == 3 && p->nsp == 1 && p->group == 1 && p->dilation[0] == 1 &&
           p->stride[0] >= 1 && p->stride[0] <= PZ_DECONV_MAX_PHASES &&
           p->kernel[0] >= p->stride[0] && p->pad_begin[0] >= 0 && yd[2] > 0 &&
           (p->kernel[0] + p->stride[0] - 1) / p->stride[0] <= 64 &&   /* conv16c's taps */
           pz_act_is_clamp(p->act.kind);
}

int pz_deconv_phases_make(pz_deconv_phases **out, const pz_conv_params *p, const int64_t *xd,
                          const int64_t *yd, const float *w, const float *b, pz_isa isa)
{
    *out = NULL;
    pz_deconv_phases *f = calloc(1, sizeof *f);
    if (!f) return 1;
    const int64_t C = xd[1], M = yd[1], K = p->kernel[0], s = p->stride[0], pb = p->pad_begin[0];
    f->n = xd[0], f->c = C, f->m = M, f->l = xd[2], f->ol = yd[2], f->s = s, f->pb = pb;
    f->cb = (C + 15) / 16, f->mb = (M + 15) / 16;
    int64_t reach = f->l, rows = 0, wsz = 0;
    int64_t J[PZ_DECONV_MAX_PHASES], Q[PZ_DECONV_MAX_PHASES];
    for (int64_t r = 0; r < s; r++) {
        J[r] = (K - r + s - 1) / s;
        f->q0[r] = -floor_div(r - pb, s);                           /* ceil((pb - r) / s) */
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
        int64_t xd4[4] = {1, C, 1, f->lp}, yd4[4] = {1, M, 1, Q[r] > 0 ? Q[r] : 1};
        if (pz_conv16c_init(&f->d[r], &p2, xd4, yd4)) {   /* not reached: takes */
            free(f);
            return 1;
        }
        f->d[r].cblk = 16;   /* blocked whatever the channels */
        f->d[r].ow = Q[r];
        f->yoff[r] = rows, rows += Q[r];
        f->woff[r] = wsz, wsz += pz_conv16c_weights_size(&f->d[r]);
    }
    f->yimage = rows * f->mb * 16;
    f->conv = pz_fast_kernels_for(isa)->conv2d;
    f->to_blk = pz_fast_kernels_for(isa)->rows_to_block;
    f->from_blk = pz_fast_kernels_for(isa)->block_to_rows;
    f->wp = pz_alloc_big((size_t)(wsz > 0 ? wsz : 1) * sizeof(float), 0);
    f->bp = pz_alloc_big((size_t)pz_pack_bias16_size(M) * sizeof(float), 0);
    f->bar = aligned_alloc(64, (sizeof(pz_barrier) + 63) / 64 * 64);
    float *wt = malloc((size_t)(M * C * K) * sizeof(float));
    if (!f->wp || !f->bp || !f->bar || !wt) {
        free(wt);
        pz_deconv_phases_free(f);
        return 1;
    }
    memset(f->bar, 0, sizeof *f->bar);
    for (int64_t r = 0; r < s; r++) {   /* W'_r[m][c][jj] = W[c][m][r + (J - 1 - jj) * s] */
        for (int64_t m = 0; m < M; m++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t jj = 0; jj < J[r]; jj++)
                    wt[(m * C + c) * J[r] + jj] = w[(c * M + m) * K + r + (J[r] - 1 - jj) * s];
        pz_conv16c_pack_weights(&f->d[r], wt, f->wp + f->woff[r]);
    }
    free(wt);
    pz_pack_bias16(M, b, f->bp);
    *out = f;
    return 0;
}

size_t pz_deconv_phases_scratch_bytes(const pz_deconv_phases *f)
{
    return (size_t)(f->n * (f->cb * f->lp * 16 + f->yimage)) * sizeof(float);
}

void pz_deconv_phases_run(const pz_deconv_phases *f, const float *x, float *y, void *scratch,
                          int ith, int nth)
{
    float *xs = scratch, *ys = xs + f->n * f->cb * f->lp * 16;
    int64_t lo, hi;
    pz_split(f->n * f->cb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {   /* (image, block): [lp][16], zeros past l */
        const int64_t b = u % f->cb, i = u / f->cb, nch = f->c - b * 16 < 16 ? f->c - b * 16 : 16;
        float *dst = xs + u * f->lp * 16;
        f->to_blk(x + (i * f->c + b * 16) * f->l, f->l, nch, f->l, 16, dst);
        memset(dst + f->l * 16, 0, (size_t)((f->lp - f->l) * 16) * sizeof(float));
    }
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    for (int64_t i = 0; i < f->n; i++)   /* each call splits its rows over the workers */
        for (int64_t r = 0; r < f->s; r++)
            if (f->d[r].ow > 0)
                f->conv(&f->d[r], xs + i * f->cb * f->lp * 16 + f->c0[r] * 16, f->wp + f->woff[r],
                        f->bp, NULL, ys + i * f->yimage + f->yoff[r] * f->mb * 16, ith, nth);
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    pz_split(f->n * f->s * f->mb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {   /* (image, phase, block): rows with stride s */
        const int64_t b = u % f->mb, r = u / f->mb % f->s, i = u / f->mb / f->s;
        const int64_t nq = f->d[r].ow, nch = f->m - b * 16 < 16 ? f->m - b * 16 : 16;
        const float *src = ys + i * f->yimage + f->yoff[r] * f->mb * 16 + b * nq * 16;
        float *row = y + (i * f->m + b * 16) * f->ol + f->q0[r] * f->s + r - f->pb;
        for (int64_t l = 0; l < nch; l++)
            for (int64_t q = 0; q < nq; q++) row[l * f->ol + q * f->s] = src[q * 16 + l];
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
