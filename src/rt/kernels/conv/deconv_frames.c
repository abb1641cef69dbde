/* deconv_frames.c - ConvTranspose3d as one 2-D transposed conv per output
 * frame over the input frames it reads, stacked as channels (see
 * deconv_frames.h). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/deconv_frames.h"

bool pz_deconv_frames_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                            const int64_t *yd)
{
    (void)xd;
    return rank == 5 && p->nsp == 3 && p->group == 1 && pz_act_is_clamp(p->act.kind) &&
           yd[2] > 0 && yd[3] > 0 && yd[4] > 0 && p->dilation[0] == 1 &&
           p->stride[0] >= 1 && p->stride[0] <= PZ_DECONV_MAX_TPHASES &&
           p->kernel[0] >= p->stride[0] && p->pad_begin[0] >= 0 &&
           (int64_t)p->stride[1] * p->stride[2] <= PZ_DECONV_MAX_PHASES &&
           pz_deconv_axis_takes(p->kernel[1], p->stride[1], p->dilation[1], p->pad_begin[1]) &&
           pz_deconv_axis_takes(p->kernel[2], p->stride[2], p->dilation[2], p->pad_begin[2]) &&
           pz_deconv_taps(p->kernel[2], p->stride[2], 0) <= 64;   /* conv16c's taps on W */
}

/* temporal phase rt's 2-D plan over Jt stacked frames of c16 channels */
static int make_phase(pz_deconv_frames *f, int64_t rt, const pz_conv_params *p, const int64_t *xd,
                      const int64_t *yd, const float *w, const float *b, pz_isa isa)
{
    const int64_t C = f->c, M = f->m, KT = p->kernel[0], J = f->jt[rt], c16 = f->cb * 16;
    const int64_t khw = (int64_t)p->kernel[1] * p->kernel[2];
    pz_conv_params p2 = {.nsp = 2, .group = 1, .kernel = {p->kernel[1], p->kernel[2]},
                         .stride = {p->stride[1], p->stride[2]}, .dilation = {1, 1},
                         .pad_begin = {p->pad_begin[1], p->pad_begin[2]},
                         .pad_end = {p->pad_end[1], p->pad_end[2]}, .act = p->act};
    const int64_t xd2[4] = {1, J * c16, xd[3], xd[4]}, yd2[4] = {1, M, yd[3], yd[4]};
    /* W'[(J - 1 - j) c16 + c][m] = W[c][m][rt + j st] (the frames stacked oldest first) */
    float *w2 = calloc((size_t)(J * c16 * M * khw), sizeof(float));
    if (!w2) return 1;
    for (int64_t jj = 0; jj < J; jj++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t m = 0; m < M; m++)
                memcpy(w2 + ((jj * c16 + c) * M + m) * khw,
                       w + ((c * M + m) * KT + rt + (J - 1 - jj) * f->st) * khw,
                       (size_t)khw * sizeof(float));
    int rc = pz_deconv_phases_make(&f->ph[rt], &p2, xd2, yd2, w2, b, isa);
    free(w2);
    if (rc) return 1;
    f->ph[rt]->ycs = f->ot * f->ohw;   /* an output frame's channels are T OH OW apart */
    return 0;
}

int pz_deconv_frames_make(pz_deconv_frames **out, const pz_conv_params *p, const int64_t *xd,
                          const int64_t *yd, const float *w, const float *b, pz_isa isa)
{
    *out = NULL;
    pz_deconv_frames *f = calloc(1, sizeof *f);
    if (!f) return 1;
    f->n = xd[0], f->c = xd[1], f->m = yd[1], f->t = xd[2], f->ot = yd[2];
    f->hw = xd[3] * xd[4], f->ohw = yd[3] * yd[4];
    f->st = p->stride[0], f->pbt = p->pad_begin[0], f->cb = (f->c + 15) / 16;
    int64_t last = f->t;   /* one past the last frame read */
    for (int64_t rt = 0; rt < f->st; rt++) {
        f->jt[rt] = pz_deconv_taps(p->kernel[0], f->st, rt);
        f->q0[rt] = pz_deconv_first_q(f->st, f->pbt, rt);
        f->nq[rt] = pz_deconv_count_q(f->st, f->pbt, rt, f->ot);
        if (f->jt[rt] - 1 - f->q0[rt] > f->fpre) f->fpre = f->jt[rt] - 1 - f->q0[rt];
        if (f->nq[rt] && f->q0[rt] + f->nq[rt] > last) last = f->q0[rt] + f->nq[rt];
    }
    f->ft = f->fpre + last;
    f->to_blk = pz_fast_kernels_for(isa)->rows_to_block;
    f->bar = aligned_alloc(64, (sizeof(pz_barrier) + 63) / 64 * 64);
    if (!f->bar) {
        free(f);
        return 1;
    }
    memset(f->bar, 0, sizeof *f->bar);
    for (int64_t rt = 0; rt < f->st; rt++)
        if (f->nq[rt] && make_phase(f, rt, p, xd, yd, w, b, isa)) {
            pz_deconv_frames_free(f);
            return 1;
        }
    *out = f;
    return 0;
}

size_t pz_deconv_frames_scratch_bytes(const pz_deconv_frames *f)
{
    int64_t ys = 0;
    for (int64_t rt = 0; rt < f->st; rt++)
        if (f->ph[rt] && f->ph[rt]->yimage > ys) ys = f->ph[rt]->yimage;
    return (size_t)(f->ft * f->cb * f->hw * 16 + ys) * sizeof(float);
}

void pz_deconv_frames_run(const pz_deconv_frames *f, int64_t n, const float *x, float *y,
                          void *scratch, int ith, int nth)
{
    const int64_t frame = f->cb * f->hw * 16;
    float *xs = scratch, *ys = xs + f->ft * frame;
    for (int64_t i = 0; i < n; i++) {
        int64_t lo, hi;
        pz_split(f->ft * f->cb, ith, nth, &lo, &hi);
        for (int64_t u = lo; u < hi; u++) {   /* (frame, block): zeros outside X's frames */
            const int64_t b = u % f->cb, fi = u / f->cb - f->fpre;
            const int64_t nch = f->c - b * 16 < 16 ? f->c - b * 16 : 16;
            float *dst = xs + u * f->hw * 16;
            if (fi < 0 || fi >= f->t)
                memset(dst, 0, (size_t)(f->hw * 16) * sizeof(float));
            else
                f->to_blk(x + ((i * f->c + b * 16) * f->t + fi) * f->hw, f->t * f->hw, nch, f->hw,
                          16, dst);
        }
        if (nth > 1) pz_barrier_wait(f->bar, nth);
        for (int64_t rt = 0; rt < f->st; rt++)
            for (int64_t k = 0; k < f->nq[rt]; k++) {   /* output frame q st + rt - pbt */
                const int64_t q = f->q0[rt] + k, o = q * f->st + rt - f->pbt;
                const float *x0 = xs + (q - (f->jt[rt] - 1) + f->fpre) * frame;   /* oldest */
                pz_deconv_phases_run_blocked(f->ph[rt], x0, y + (i * f->m * f->ot + o) * f->ohw, ys,
                                             ith, nth);
                if (nth > 1) pz_barrier_wait(f->bar, nth);   /* ys is the next frame's */
            }
    }
}

void pz_deconv_frames_free(pz_deconv_frames *f)
{
    if (!f) return;
    for (int64_t rt = 0; rt < PZ_DECONV_MAX_TPHASES; rt++) pz_deconv_phases_free(f->ph[rt]);
    free(f->bar);
    free(f);
}
