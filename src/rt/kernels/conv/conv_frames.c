/* conv_frames.c - 1-D and 3-D group-1 convs on the 2-D fast conv, one
 * conv2d call per output frame (see conv_frames.h). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/conv_frames.h"
#include "rt/kernels/conv/conv_im2col.h"
#include "rt/kernels/dwconv/dwconvk16c.h"
#include "rt/kernels/layout/block_rows.h"
#include "rt/mem.h"
#include "rt/rows.h"

/* packed weights and bias, on huge pages when the run options ask (f->huge) */
static float *alloc_floats(const pz_conv_frames *f, int64_t count)
{
    size_t bytes = ((size_t)(count > 0 ? count : 1) * sizeof(float) + 63) / 64 * 64;
    return pz_alloc_big(bytes, f->huge);
}

/* The 2-D conv of one frame of p: H, W (1-D: 1, L); depthwise keeps the
 * group. */
static pz_conv_params frame_params(const pz_conv_params *p, int rank)
{
    pz_conv_params p2 = *p;
    PZ_FRAME_PARAMS(p2, p, rank);
    return p2;
}

/* One frame's 2-D depthwise descriptor (d->n = 1), 0 when a kernel takes it. */
static int dw_frame_init(pz_conv16c_desc *d, const pz_conv_params *p, int rank, const int64_t *xd,
                         const int64_t *yd)
{
    const int t3 = rank == 5;
    pz_conv_params p2 = frame_params(p, rank);
    int64_t xd4[4] = {1, xd[1], t3 ? xd[3] : 1, xd[rank - 1]};
    int64_t yd4[4] = {1, yd[1], t3 ? yd[3] : 1, yd[rank - 1]};
    return pz_dwconvk16c_init(d, &p2, xd4, yd4);
}

bool pz_conv_frames_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                          const int64_t *yd)
{
    pz_conv16c_desc d;
    if ((rank != 3 && rank != 5) || p->nsp != rank - 2) return false;
    if (pz_conv_im2col_takes(p, rank, xd, yd)) return true;
    if (p->group == xd[1] && yd[1] == xd[1] && p->group > 1)
        return dw_frame_init(&d, p, rank, xd, yd) == 0;
    pz_conv_params pg = frame_params(p, rank);
    pg.group = 1;
    int64_t xd4[4] = {1, 16, 1, 1}, yd4[4] = {1, 16, 1, 1};
    if (pz_conv16c_init(&d, &pg, xd4, yd4)) return false;   /* the attributes' limits (k <= 64) */
    if (p->group == 1) return rank == 3 || p->dilation[0] == 1;
    return pz_conv_grouped_k(p, xd, yd) != 0;
}

/* Grouped: super-groups of kg groups (pz_conv_grouped_k), a group-1 conv2d
 * of kg * C/G -> kg * M/G channels each (the last of fewer groups); the
 * weights of each (tap, super-group) dense, block-diagonal. */
static int grouped_make(pz_conv_frames *f, const pz_conv_params *p, int rank, const int64_t *xd,
                        const int64_t *yd, const float *w, pz_isa isa)
{
    const int64_t G = p->group, cg = xd[1] / G, mg = yd[1] / G, kg = pz_conv_grouped_k(p, xd, yd);
    const int64_t nsg = (G + kg - 1) / kg, last = G - (nsg - 1) * kg;
    const int t3 = rank == 5;
    pz_conv_params pg = frame_params(p, rank);
    pg.group = 1;
    const int64_t H = t3 ? xd[3] : 1, W = xd[rank - 1], OH = t3 ? yd[3] : 1, OW = yd[rank - 1];
    int64_t xd4[4] = {1, kg * cg, H, W}, yd4[4] = {1, kg * mg, OH, OW};
    int64_t xl[4] = {1, last * cg, H, W}, yl[4] = {1, last * mg, OH, OW};
    if (pz_conv16c_init(&f->d, &pg, xd4, yd4) || pz_conv16c_init(&f->dl, &pg, xl, yl)) return 1;
    f->d.cblk = f->dl.cblk = 16;   /* the input is blocked whatever its channels */
    f->conv = pz_fast_kernels_for(isa)->conv2d;
    f->nsg = nsg;
    f->xsg = kg * cg * H * W, f->ysg = kg * mg * OH * OW, f->bsg = kg * mg;
    f->wtap = pz_conv16c_weights_size(&f->d);
    const int64_t k2 = (int64_t)pg.kernel[0] * pg.kernel[1], dn = kg * mg * kg * cg * k2;
    float *dense = malloc((size_t)dn * sizeof(float));
    f->wp = alloc_floats(f, f->kt * nsg * f->wtap);
    if (!dense || !f->wp) {
        free(dense);
        return 1;
    }
    for (int64_t dt = 0; dt < f->kt; dt++)
        for (int64_t sg = 0; sg < nsg; sg++) {
            const int64_t ng = sg + 1 < nsg ? kg : last, sc = ng * cg;
            memset(dense, 0, (size_t)dn * sizeof(float));
            for (int64_t gi = 0; gi < ng; gi++)   /* [gi*mg + o][gi*cg + c] = W[m][c][dt] */
                for (int64_t o = 0; o < mg; o++)
                    for (int64_t c = 0; c < cg; c++)
                        memcpy(dense + ((gi * mg + o) * sc + gi * cg + c) * k2,
                               w + ((((sg * kg + gi) * mg + o) * cg + c) * f->kt + dt) * k2,
                               (size_t)k2 * sizeof(float));
            pz_conv16c_pack_weights(sg + 1 < nsg ? &f->d : &f->dl, dense,
                                    f->wp + (dt * nsg + sg) * f->wtap);
        }
    free(dense);
    return 0;
}

/* Depthwise: each tap's weights packed apart for the frame's 2-D kernel
 * (dwconv3x3 where it takes the frame, else dwconvk). */
static int dw_make(pz_conv_frames *f, const pz_conv_params *p, int rank, const int64_t *xd,
                   const int64_t *yd, const float *w, pz_isa isa)
{
    const int64_t C = xd[1];
    pz_conv16c_desc d;
    if (dw_frame_init(&d, p, rank, xd, yd)) return 1;   /* not reached: takes */
    pz_conv_params p2 = frame_params(p, rank);
    int64_t xd4[4] = {1, C, d.h, d.w}, yd4[4] = {1, C, d.oh, d.ow};
    pz_conv16c_desc d3;
    const bool k3 = pz_dwconv16c_init(&d3, &p2, xd4, yd4) == 0;
    const pz_fast_kernels *k = pz_fast_kernels_for(isa);
    f->conv = k3 ? k->dwconv3x3 : k->dwconvk;
    f->d = f->dl = d;
    f->nsg = 1;
    f->wtap = k3 ? pz_dw16c_weights_size(C) : pz_dwk16c_weights_size(&d);
    const int64_t kk = (int64_t)d.kh * d.kw;
    float *wt = malloc((size_t)(C * kk) * sizeof(float));
    f->wp = alloc_floats(f, f->kt * f->wtap);
    if (!wt || !f->wp) {
        free(wt);
        return 1;
    }
    for (int64_t dt = 0; dt < f->kt; dt++) {   /* tap dt: W[c][0][dt][kh][kw] */
        for (int64_t c = 0; c < C; c++)
            memcpy(wt + c * kk, w + (c * f->kt + dt) * kk, (size_t)kk * sizeof(float));
        if (k3) pz_dw16c_pack_weights(C, wt, f->wp + dt * f->wtap);
        else pz_dwk16c_pack_weights(&d, wt, f->wp + dt * f->wtap);
    }
    free(wt);
    return 0;
}

int pz_conv_frames_make(pz_conv_frames **out, const pz_conv_params *p, int rank,
                        const int64_t *xd, const int64_t *yd, const float *w, const float *b,
                        pz_isa isa, int huge)
{
    *out = NULL;
    const int t3 = rank == 5;   /* a time axis before H and W */
    const int64_t kt = t3 ? p->kernel[0] : 1;
    pz_conv_params p2 = frame_params(p, rank);
    const int64_t C = xd[1], M = yd[1], C16 = (C + 15) / 16 * 16;
    const int64_t H = t3 ? xd[3] : 1, W = xd[rank - 1], OH = t3 ? yd[3] : 1, OW = yd[rank - 1];
    /* one tap: the frame's own channels (few of them read without padding
     * to 16, as the 2-D stem does); taps of few channels (a stem's 3 x 3):
     * stacked, each output frame's taps blocked apart as one block of
     * kt * C channels (no 16 / C times the MACs); else whole blocks side by
     * side, each input frame blocked once */
    const bool stacked = kt > 1 && kt * C <= 16;
    const int64_t cf = kt == 1 || stacked ? C : C16;
    int64_t xd4[4] = {1, kt * cf, H, W}, yd4[4] = {1, M, OH, OW};
    pz_conv_frames *f = calloc(1, sizeof *f);
    if (!f) return 1;
    f->huge = huge;
    if (pz_conv_im2col_takes(p, rank, xd, yd)) {   /* long kernels: im2col + GEMM */
        f->d.act = p->act;
        if (pz_conv_im2col_make(&f->ic, p, xd, yd, w, b, isa, huge)) {
            free(f);
            return 1;
        }
        *out = f;
        return 0;
    }
    f->n = xd[0], f->c = C, f->m = M;
    f->t = t3 ? xd[2] : 1, f->ot = t3 ? yd[2] : 1;
    f->kt = kt, f->st = t3 ? p->stride[0] : 1, f->pt = t3 ? p->pad_begin[0] : 0;
    f->dt = t3 ? p->dilation[0] : 1;
    f->to_blk = pz_fast_kernels_for(isa)->rows_to_block;
    f->from_blk = pz_fast_kernels_for(isa)->block_to_rows;
    f->stacked = stacked && p->group == 1;
    f->tf = f->stacked ? f->ot : f->t + f->pt + (t3 ? p->pad_end[0] : 0);
    f->hw = H * W, f->ohw = OH * OW;
    f->yframe = (M + 15) / 16 * 16 * f->ohw;
    if (p->group != 1) {   /* depthwise or grouped: per tap */
        const bool dw = p->group == C && M == C;
        f->taps = true;
        f->cblk = 16;
        f->xcb = (C + 15) / 16;
        f->xframe = f->xcb * 16 * f->hw;
        f->bar = aligned_alloc(64, (sizeof(pz_barrier) + 63) / 64 * 64);
        f->bp = alloc_floats(f, pz_pack_bias16_size(M));
        if (!f->bar || !f->bp ||
            (dw ? dw_make(f, p, rank, xd, yd, w, isa) : grouped_make(f, p, rank, xd, yd, w, isa))) {
            pz_conv_frames_free(f);
            return 1;
        }
        memset(f->bar, 0, sizeof *f->bar);
        f->d0 = f->d, f->dl0 = f->dl;
        f->d0.act.kind = f->dl0.act.kind = PZ_ACT_NONE;
        pz_pack_bias16(M, b, f->bp);
        *out = f;
        return 0;
    }
    pz_conv16c_desc d;
    if (pz_conv16c_init(&d, &p2, xd4, yd4)) {   /* not reached: 2-D, group 1 */
        free(f);
        return 1;
    }
    if (stacked) d.cblk = (int)(kt * C);
    f->d = d;
    f->conv = pz_fast_kernels_for(isa)->conv2d;
    f->cblk = d.cblk;
    f->xcb = (cf + d.cblk - 1) / d.cblk;
    f->xframe = f->xcb * d.cblk * f->hw;
    /* W'[m][dt * cf + c][kh][kw] = W[m][c][dt][kh][kw], zero for c >= C */
    const int64_t k2 = (int64_t)p2.kernel[0] * p2.kernel[1], cin = kt * cf;
    float *w2 = calloc((size_t)(M * cin * k2), sizeof(float));
    f->wp = alloc_floats(f, pz_conv16c_weights_size(&d));
    f->bp = alloc_floats(f, pz_pack_bias16_size(M));
    f->bar = aligned_alloc(64, (sizeof(pz_barrier) + 63) / 64 * 64);
    if (!w2 || !f->wp || !f->bp || !f->bar) {
        free(w2);
        pz_conv_frames_free(f);
        return 1;
    }
    memset(f->bar, 0, sizeof *f->bar);
    for (int64_t m = 0; m < M; m++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t dt = 0; dt < kt; dt++)
                memcpy(w2 + (m * cin + dt * cf + c) * k2, w + ((m * C + c) * kt + dt) * k2,
                       (size_t)k2 * sizeof(float));
    pz_conv16c_pack_weights(&d, w2, f->wp);
    free(w2);
    pz_pack_bias16(M, b, f->bp);
    *out = f;
    return 0;
}

size_t pz_conv_frames_scratch_bytes(const pz_conv_frames *f, int with_z)
{
    if (f->ic) return pz_conv_im2col_scratch_bytes(f->ic);
    int64_t floats = f->n * (f->tf * f->xframe + (with_z ? 2 : 1) * f->ot * f->yframe) +
                     (f->taps ? f->yframe : 0);
    return (size_t)floats * sizeof(float);
}

/* Stacked: slot s of image i is output frame s's taps, [hw][kt][c] (zero
 * where a tap falls in the padding). */
static void block_taps(const pz_conv_frames *f, const float *x, float *xs, int64_t s, int64_t i)
{
    const int64_t k = f->cblk, hw = f->hw;
    float *dst = xs + (i * f->tf + s) * f->xframe;
    for (int64_t dt = 0; dt < f->kt; dt++) {
        const int64_t t = s * f->st - f->pt + dt;
        for (int64_t c = 0; c < f->c; c++) {
            const float *src = x + ((i * f->c + c) * f->t + t) * hw;
            float *col = dst + dt * f->c + c;
            if (t < 0 || t >= f->t)
                for (int64_t q = 0; q < hw; q++) col[q * k] = 0;
            else
                for (int64_t q = 0; q < hw; q++) col[q * k] = src[q];
        }
    }
}

/* Blocked frame slot s of image i (slot = input frame + pt; the padding
 * slots zero): block cb's [hw][cblk] from plain x [n][c][t][hw]. */
static void block_in(const pz_conv_frames *f, const float *x, float *xs, int64_t unit)
{
    const int64_t cb = unit % f->xcb, s = unit / f->xcb % f->tf, i = unit / f->xcb / f->tf;
    if (f->stacked) {
        block_taps(f, x, xs, s, i);
        return;
    }
    const int64_t t = s - f->pt, k = f->cblk, hw = f->hw;
    float *dst = xs + (i * f->tf + s) * f->xframe + cb * hw * k;
    if (t < 0 || t >= f->t) {
        memset(dst, 0, (size_t)(hw * k) * sizeof(float));
        return;
    }
    const int64_t c0 = cb * k, nch = f->c - c0 < k ? f->c - c0 : k;
    f->to_blk(x + ((i * f->c + c0) * f->t + t) * hw, f->t * hw, nch, hw, (int)k, dst);
}

/* Plain [n][m][ot][ohw] <-> blocked output frames [n][ot][mb][ohw][16],
 * one (image, frame, block) unit; to_blocked writes the padding lanes 0. */
static void block_out(const pz_conv_frames *f, float *plain, float *blk, int64_t unit,
                      int to_blocked)
{
    const int64_t mb = (f->m + 15) / 16, b = unit % mb, t = unit / mb % f->ot;
    const int64_t i = unit / mb / f->ot, ohw = f->ohw, nch = f->m - b * 16 < 16 ? f->m - b * 16 : 16;
    float *fb = blk + (i * f->ot + t) * f->yframe + b * ohw * 16;
    float *row = plain + ((i * f->m + b * 16) * f->ot + t) * ohw;
    if (to_blocked) f->to_blk(row, f->ot * ohw, nch, ohw, 16, fb);
    else f->from_blk(fb, 16, nch, ohw, row, f->ot * ohw);
}

/* Per tap: output frame y from the blocked frames from x (the first tap's
 * slot): tap dt adds its conv of slot dt * dilation to the sums so far, the
 * buffers y and tmp in turn so that the last tap writes y; the first takes
 * the bias and z, the last the act (PRELU's slopes from the super-group's
 * first channel, as the bias). A barrier after each tap (kT > 1): a tap
 * reads the partial sums every worker wrote, and the next frame's taps
 * write tmp again, whatever the kernel's split. */
static void tap_frame(const pz_conv_frames *f, const float *x, const float *z, float *y,
                      float *tmp, int ith, int nth)
{
    const float *prev = z;
    for (int64_t dt = 0; dt < f->kt; dt++) {
        float *out = (f->kt - 1 - dt) % 2 ? tmp : y;
        const bool last = dt + 1 == f->kt;
        for (int64_t sg = 0; sg < f->nsg; sg++) {
            pz_conv16c_desc d = sg + 1 < f->nsg ? (last ? f->d : f->d0) : (last ? f->dl : f->dl0);
            if (d.act.kind == PZ_ACT_PRELU) d.act.slope = f->d.act.slope + sg * f->bsg;
            const float *xt = x + dt * f->dt * f->xframe + sg * f->xsg;
            f->conv(&d, xt, f->wp + (dt * f->nsg + sg) * f->wtap, dt ? NULL : f->bp + sg * f->bsg,
                    prev ? prev + sg * f->ysg : NULL, out + sg * f->ysg, ith, nth);
        }
        if (f->kt > 1 && nth > 1) pz_barrier_wait(f->bar, nth);
        prev = out;
    }
}

void pz_conv_frames_run(const pz_conv_frames *f, int64_t n, const float *x, const float *z,
                        float *y, void *scratch, int ith, int nth)
{
    if (f->ic) {
        pz_conv_im2col_run(f->ic, n, &f->d.act, x, z, y, scratch, ith, nth);
        return;
    }
    /* the scratch's parts for n images (n <= f->n: within its size) */
    float *xs = scratch, *ys = xs + n * f->tf * f->xframe, *zs = ys + n * f->ot * f->yframe;
    const int64_t yunits = n * f->ot * ((f->m + 15) / 16);
    int64_t lo, hi;
    pz_split(n * f->tf * f->xcb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) block_in(f, x, xs, u);
    if (z) {
        pz_split(yunits, ith, nth, &lo, &hi);
        for (int64_t u = lo; u < hi; u++) block_out(f, (float *)z, zs, u, 1);
    }
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    /* each call shares its frame's rows out over the workers; the calls
     * write disjoint frames, so they follow each other without a barrier
     * (per tap, depthwise and grouped: tap_frame's barrier after each tap) */
    for (int64_t i = 0; i < n; i++)
        for (int64_t t = 0; t < f->ot; t++) {
            const int64_t yo = (i * f->ot + t) * f->yframe;
            const int64_t slot = f->stacked ? t : t * f->st;
            if (f->taps) {
                tap_frame(f, xs + (i * f->tf + slot) * f->xframe, z ? zs + yo : NULL, ys + yo,
                         zs + (z ? n * f->ot * f->yframe : 0), ith, nth);
                continue;
            }
            f->conv(&f->d, xs + (i * f->tf + slot) * f->xframe, f->wp, f->bp,
                    z ? zs + yo : NULL, ys + yo, ith, nth);
        }
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    pz_split(yunits, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) block_out(f, y, ys, u, 0);
}

void pz_conv_frames_free(pz_conv_frames *f)
{
    if (!f) return;
    pz_conv_im2col_free(f->ic);
    free(f->wp);
    free(f->bp);
    free(f->bar);
    free(f);
}
