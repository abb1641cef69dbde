/* pool_frames.h - 1-D and 3-D max and average pooling on the 2-D NCHW16c
 * pooling kernels (pool2d of fast.h), planned at compile time
 * (pool_frames.c).
 *
 * The plain input [N][C][T][H][W] is blocked into scratch frame by frame
 * ([N][T][C/16][H][W][16]); one pool2d call pools every frame over H and W
 * (N * T images); then each output frame combines the pooled frames of its
 * kT window that lie inside the input: max takes their largest value, in
 * frame order; average sums the frames' averages and divides by the window's
 * frame count (frames inside the input, or with count_include_pad inside
 * the padded one): the same value as one 3-D average, since every frame of
 * a window averages over the same H x W taps. That combination writes the
 * plain output. A 1-D pool over [L] is one frame of H = 1, W = L. Each
 * frame is pooled once even where windows overlap in T.
 *
 *   pz_pool_frames_takes(p, rank) then pz_pool_frames_make(&f, p, rank, xd,
 *   yd, isa) == 0; scratch of pz_pool_frames_scratch_bytes(f) shared by the
 *   workers; pz_pool_frames_run(f, x, y, scratch, ith, nth) on every worker.
 * The scalar kernels (isa scalar) are the twin of the others.
 */
#ifndef PZ_POOL_FRAMES_H
#define PZ_POOL_FRAMES_H

#include "rt/kernels/fast.h"
#include "rt/pool.h"

typedef struct {
    pz_pool16c_desc d;           /* every frame of every image: N * T images */
    pz_pool16c_fn pool;          /* pool2d of the chosen ISA */
    pz_barrier *bar;             /* between blocking, pooling and combining */
    pz_rows_to_block_fn to_blk;  /* the ISA's blocking and unblocking */
    pz_block_to_rows_fn from_blk;
    int64_t n, c, cb;            /* batch, channels, 16-channel blocks */
    int64_t t, ot, kt, st, pt;   /* frames in and out; the window in T */
    int64_t dt, tpe;             /* its dilation; the pad after */
    int64_t hw, ohw;             /* pixels of an input, an output frame */
    bool max, include_pad;
} pz_pool_frames;

/* This path takes a float pool of params p on X of rank `rank` (1-D or 3-D,
 * max or average, no Indices output: the caller's test). */
bool pz_pool_frames_takes(const pz_pool_params *p, int rank);
/* Plans it (X dims xd, Y dims yd) on isa's pool2d. 0, or 1 when out of memory. */
int pz_pool_frames_make(pz_pool_frames **out, const pz_pool_params *p, int rank,
                        const int64_t *xd, const int64_t *yd, pz_isa isa);
/* Bytes of run-time scratch (shared by the workers): blocked X, pooled frames. */
size_t pz_pool_frames_scratch_bytes(const pz_pool_frames *f);
/* Y = pool(X), both plain, on worker ith of nth. */
void pz_pool_frames_run(const pz_pool_frames *f, const float *x, float *y, void *scratch, int ith,
                        int nth);
void pz_pool_frames_free(pz_pool_frames *f);

#endif
