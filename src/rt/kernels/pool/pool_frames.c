/* pool_frames.c - 1-D and 3-D pools on the 2-D NCHW16c pool, every frame
 * pooled once, then combined over T (see pool_frames.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/layout/block_rows.h"
#include "rt/kernels/pool/pool16c.h"
#include "rt/kernels/pool/pool_frames.h"

bool pz_pool_frames_takes(const pz_pool_params *p, int rank)
{
    return (rank == 3 || rank == 5) && p->nsp == rank - 2 &&
           (p->kind == PZ_POOL_MAX || p->kind == PZ_POOL_AVG);
}

int pz_pool_frames_make(pz_pool_frames **out, const pz_pool_params *p, int rank,
                        const int64_t *xd, const int64_t *yd, pz_isa isa)
{
    *out = NULL;
    const int t3 = rank == 5;   /* a time axis before H and W */
    pz_pool_params p2 = *p;     /* the 2-D pool of one frame: H, W (1-D: 1, L) */
    PZ_FRAME_PARAMS(p2, p, rank);
    const int64_t T = t3 ? xd[2] : 1, OT = t3 ? yd[2] : 1;
    int64_t xd4[4] = {xd[0] * T, xd[1], t3 ? xd[3] : 1, xd[rank - 1]};
    int64_t yd4[4] = {xd[0] * T, xd[1], t3 ? yd[3] : 1, yd[rank - 1]};
    pz_pool_frames *f = calloc(1, sizeof *f);
    if (!f) return 1;
    if (pz_pool16c_init(&f->d, &p2, xd4, yd4)) {   /* not reached: 2-D, max or average */
        free(f);
        return 1;
    }
    f->pool = pz_fast_kernels_for(isa)->pool2d;
    f->to_blk = pz_fast_kernels_for(isa)->rows_to_block;
    f->from_blk = pz_fast_kernels_for(isa)->block_to_rows;
    f->n = xd[0], f->c = xd[1], f->cb = (xd[1] + 15) / 16;
    f->t = T, f->ot = OT;
    f->kt = t3 ? p->kernel[0] : 1, f->st = t3 ? p->stride[0] : 1;
    f->pt = t3 ? p->pad_begin[0] : 0, f->tpe = t3 ? p->pad_end[0] : 0;
    f->dt = t3 ? p->dilation[0] : 1;
    f->hw = xd4[2] * xd4[3], f->ohw = yd4[2] * yd4[3];
    f->max = p->kind == PZ_POOL_MAX;
    f->include_pad = p->count_include_pad != 0;
    f->bar = aligned_alloc(64, (sizeof(pz_barrier) + 63) / 64 * 64);
    if (!f->bar) {
        free(f);
        return 1;
    }
    memset(f->bar, 0, sizeof *f->bar);
    *out = f;
    return 0;
}

size_t pz_pool_frames_scratch_bytes(const pz_pool_frames *f)
{
    return (size_t)(f->n * f->t * f->cb * 16 * (f->hw + f->ohw)) * sizeof(float);
}

/* Output frame o of image i, block b, pixels [q0, q0 + np) (np <= 64) from
 * the pooled frames ps into plain y. */
static void combine(const pz_pool_frames *f, const float *ps, float *y, int64_t i, int64_t o,
                    int64_t b, int64_t q0, int64_t np)
{
    float acc[64 * 16];
    int64_t lo, hi, a0, a1;
    const int64_t t0 = o * f->st - f->pt;
    pz_pool16c_taps(t0, f->dt, f->kt, 0, f->t, &lo, &hi);
    for (int64_t e = 0; e < np * 16; e++) acc[e] = f->max ? -INFINITY : 0.0f;
    /* the window's frames inside the input; loops of 16 lanes, which the
     * compiler vectorises */
    for (int64_t j = lo; j < hi; j++) {
        const float *fr = ps + (((i * f->t + t0 + j * f->dt) * f->cb + b) * f->ohw + q0) * 16;
        if (f->max && j == lo) {
            memcpy(acc, fr, (size_t)(np * 16) * sizeof(float));
        } else if (f->max) {
            for (int64_t q = 0; q < np; q++)
                for (int l = 0; l < 16; l++) {
                    float v = fr[q * 16 + l], a = acc[q * 16 + l];
                    acc[q * 16 + l] = v > a ? v : a;
                }
        } else {
            for (int64_t q = 0; q < np; q++)
                for (int l = 0; l < 16; l++) acc[q * 16 + l] += fr[q * 16 + l];
        }
    }
    if (!f->max) {
        int64_t cnt = hi - lo;
        if (f->include_pad) {
            pz_pool16c_taps(t0, f->dt, f->kt, -f->pt, f->t + f->tpe, &a0, &a1);
            cnt = a1 - a0;
        }
        for (int64_t e = 0; e < np * 16; e++) acc[e] = cnt > 0 ? acc[e] / (float)cnt : 0.0f;
    }
    const int64_t nch = f->c - b * 16 < 16 ? f->c - b * 16 : 16;
    f->from_blk(acc, 16, nch, np, y + ((i * f->c + b * 16) * f->ot + o) * f->ohw + q0,
                         f->ot * f->ohw);
}

void pz_pool_frames_run(const pz_pool_frames *f, const float *x, float *y, void *scratch, int ith,
                        int nth)
{
    float *xs = scratch, *ps = xs + f->n * f->t * f->cb * 16 * f->hw;
    int64_t lo, hi;
    /* block every (image, frame, block): [i][t][b][hw][16] */
    pz_split(f->n * f->t * f->cb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t b = u % f->cb, t = u / f->cb % f->t, i = u / f->cb / f->t;
        const int64_t nch = f->c - b * 16 < 16 ? f->c - b * 16 : 16;
        f->to_blk(x + ((i * f->c + b * 16) * f->t + t) * f->hw, f->t * f->hw, nch,
                             f->hw, 16, xs + u * f->hw * 16);
    }
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    f->pool(&f->d, xs, ps, ith, nth);
    if (nth > 1) pz_barrier_wait(f->bar, nth);
    /* units of (image, output frame, block, 64 pixels) */
    const int64_t nq = (f->ohw + 63) / 64;
    pz_split(f->n * f->ot * f->cb * nq, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t q = u % nq, b = u / nq % f->cb, o = u / nq / f->cb % f->ot;
        const int64_t i = u / nq / f->cb / f->ot, q0 = q * 64;
        combine(f, ps, y, i, o, b, q0, f->ohw - q0 < 64 ? f->ohw - q0 : 64);
    }
}

void pz_pool_frames_free(pz_pool_frames *f)
{
    if (!f) return;
    free(f->bar);
    free(f);
}
