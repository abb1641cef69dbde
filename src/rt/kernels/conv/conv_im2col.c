/* conv_im2col.c - 1-D group-1 convs with long kernels as im2col rows and
 * one packed GEMM (see conv_im2col.h). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/conv_im2col.h"
#include "rt/kernels/layout/block_rows.h"
#include "rt/mem.h"

bool pz_conv_im2col_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                          const int64_t *yd)
{
    if (rank != 3 || p->nsp != 1 || p->group != 1) return false;
    if (p->kernel[0] < 1 || p->stride[0] < 1 || p->dilation[0] < 1 || p->pad_begin[0] < 0)
        return false;
    /* what the 2-D fast conv (conv_frames.h) does not take: its attributes' limits */
    pz_conv_params p2 = *p;
    PZ_FRAME_PARAMS(p2, p, rank);
    pz_conv16c_desc d;
    const int64_t xd4[4] = {1, 16, 1, 1}, yd4[4] = {1, 16, 1, 1};
    if (pz_conv16c_init(&d, &p2, xd4, yd4) == 0) return false;
    const int64_t k = p->kernel[0], s = p->stride[0], dil = p->dilation[0];
    const bool in_place = xd[1] == 1 && dil == 1 && p->pad_begin[0] == 0 &&
                          (yd[2] - 1) * s + k <= xd[2];
    return in_place || xd[0] * yd[2] * xd[1] * k <= PZ_IM2COL_MAX_FLOATS;
}

int pz_conv_im2col_make(pz_conv_im2col **out, const pz_conv_params *p, const int64_t *xd,
                        const int64_t *yd, const float *w, const float *b, pz_isa isa, int huge)
{
    pz_conv_im2col *f = calloc(1, sizeof *f);
    if (!f) return 1;
    f->n = xd[0], f->c = xd[1], f->l = xd[2], f->m = yd[1], f->t = yd[2];
    f->k = p->kernel[0], f->s = p->stride[0], f->dil = p->dilation[0], f->pb = p->pad_begin[0];
    f->kk = f->c * f->k;
    f->in_place = f->c == 1 && f->dil == 1 && f->pb == 0 && (f->t - 1) * f->s + f->k <= f->l;
    f->gemm = pz_fast_kernels_for(isa)->gemm;
    f->huge = huge;
    /* W [M][C][k] is B' (N x K, trans_b) of the GEMM with N = M */
    const size_t wbytes = (size_t)pz_gemm_packed_b_size(f->kk, f->m) * sizeof(float);
    f->wp = pz_alloc_big((wbytes + 63) / 64 * 64, huge);
    f->bias = b ? malloc((size_t)f->m * sizeof(float)) : NULL;
    f->bar = aligned_alloc(64, (sizeof(pz_barrier) + 63) / 64 * 64);
    if (!f->wp || (b && !f->bias) || !f->bar) {
        pz_conv_im2col_free(f);
        return 1;
    }
    memset(f->bar, 0, sizeof *f->bar);
    pz_gemm_pack_b(f->kk, f->m, w, 1, 1.0f, f->wp);
    if (b) memcpy(f->bias, b, (size_t)f->m * sizeof(float));
    *out = f;
    return 0;
}

size_t pz_conv_im2col_scratch_bytes(const pz_conv_im2col *f)
{
    const int64_t rows = f->n * f->t;
    return (size_t)(rows * (f->in_place ? 0 : f->kk) + rows * f->m) * sizeof(float);
}

/* Row r = (image, frame) of cols: [C][k] of the padded input the frame reads
 * (zero in the padding). */
static void cols_row(const pz_conv_im2col *f, const float *x, float *cols, int64_t r)
{
    const int64_t i = r / f->t, t = r % f->t;
    float *row = cols + r * f->kk;
    for (int64_t c = 0; c < f->c; c++) {
        const float *xc = x + (i * f->c + c) * f->l;
        float *rc = row + c * f->k;
        for (int64_t j = 0; j < f->k; j++) {
            const int64_t at = t * f->s + j * f->dil - f->pb;
            rc[j] = at >= 0 && at < f->l ? xc[at] : 0.0f;
        }
    }
}

void pz_conv_im2col_run(const pz_conv_im2col *f, int64_t n, const pz_act *act, const float *x,
                        const float *z, float *y, void *scratch, int ith, int nth)
{
    const int64_t rows = n * f->t, M = f->m, T = f->t;
    float *cols = scratch, *yt = cols + (f->in_place ? 0 : rows * f->kk);
    pz_gemm_desc g = {.m = T, .n = M, .k = f->kk, .ldy = M, .c = f->bias, .csm = 0,
                      .csn = 1, .beta = f->bias ? 1.0f : 0.0f, .act = {.kind = PZ_ACT_NONE}};
    int64_t lo, hi;
    if (f->in_place) {
        /* image i's rows of cols: X from t*s, s apart; each GEMM shares its
         * panels out over the workers and the images' write apart */
        g.lda = f->s;
        for (int64_t i = 0; i < n; i++)
            f->gemm(&g, x + i * f->l, f->wp, yt + i * T * M, ith, nth);
    } else {
        pz_split(rows, ith, nth, &lo, &hi);
        for (int64_t r = lo; r < hi; r++) cols_row(f, x, cols, r);
        if (nth > 1) pz_barrier_wait(f->bar, nth);
        g.m = rows, g.lda = f->kk;
        f->gemm(&g, cols, f->wp, yt, ith, nth);
    }
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    /* Y[i][m][t] = act(Y^T[i*T + t][m] + Z[i][m][t]), by (image, channel) rows */
    pz_split(n * M, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t i = u / M, m = u % M;
        const float *src = yt + i * T * M + m;
        float *dst = y + u * T;
        const float *zr = z ? z + u * T : NULL;
        for (int64_t t = 0; t < T; t++) {
            const float v = src[t * M] + (zr ? zr[t] : 0.0f);
            dst[t] = act->kind == PZ_ACT_NONE ? v : pz_act_c_f32(act, v, m);
        }
    }
}

void pz_conv_im2col_free(pz_conv_im2col *f)
{
    if (!f) return;
    free(f->wp);
    free(f->bias);
    free(f->bar);
    free(f);
}
