/* pool16c.h - internal to the NCHW16c pooling kernels (pool16c*.c): the
 * window arithmetic all three ISAs share, so that they visit the same taps
 * in the same order and give the same bits. */
#ifndef PZ_POOL16C_H
#define PZ_POOL16C_H

#include "rt/kernels/fast.h"

/* The taps j in [*lo, *hi) of a window starting at `start` (stride d, k
 * taps) whose position start + j*d lies in [from, to). */
static inline void pz_pool16c_taps(int64_t start, int64_t d, int64_t k, int64_t from, int64_t to,
                                   int64_t *lo, int64_t *hi)
{
    int64_t a = pz_ceil_div(from - start, d), b = pz_ceil_div(to - start, d);
    *lo = a < 0 ? 0 : a;
    *hi = b > k ? k : b;
    if (*hi < *lo) *hi = *lo;
}

/* One output row (image, block, oh) of a pooling layer: the rows of its
 * window and, per output pixel, the columns; the divisor of an average. */
typedef struct {
    const float *x;          /* the input plane of this (image, block) */
    float *y;                /* the output row */
    int64_t iy0, ky0, ky1;   /* window rows: iy0 + ky*dh for ky in [ky0, ky1) */
    int tail;                /* lanes that hold channels (16 but in the last block) */
} pz_pool16c_row;

/* Fills r for unit u = (n*cb + block)*oh + oh of worker's share. */
static inline void pz_pool16c_row_init(const pz_pool16c_desc *d, const float *x, float *y,
                                       int64_t u, pz_pool16c_row *r)
{
    int64_t cb = (d->c + 15) / 16, oh = u % d->oh, plane = u / d->oh, blk = plane % cb;
    r->x = x + plane * d->h * d->w * 16;
    r->y = y + u * d->ow * 16;
    r->iy0 = oh * d->sh - d->pt;
    pz_pool16c_taps(r->iy0, d->dh, d->kh, 0, d->h, &r->ky0, &r->ky1);
    r->tail = blk == cb - 1 ? (int)(d->c - blk * 16) : 16;
}

/* Columns of output pixel ow, and the average's divisor (valid taps, or with
 * count_include_pad the taps inside the padded input). */
static inline float pz_pool16c_col(const pz_pool16c_desc *d, const pz_pool16c_row *r, int64_t ow,
                                   int64_t *ix0, int64_t *kx0, int64_t *kx1)
{
    *ix0 = ow * d->sw - d->pl;
    pz_pool16c_taps(*ix0, d->dw, d->kw, 0, d->w, kx0, kx1);
    int64_t cnt = (r->ky1 - r->ky0) * (*kx1 - *kx0);
    if (d->count_include_pad) {
        int64_t a0, a1, b0, b1;
        pz_pool16c_taps(r->iy0, d->dh, d->kh, -d->pt, d->h + d->pb, &a0, &a1);
        pz_pool16c_taps(*ix0, d->dw, d->kw, -d->pl, d->w + d->pr, &b0, &b1);
        cnt = (a1 - a0) * (b1 - b0);
    }
    return (float)cnt;
}

/* One output row's micro-kernel, and the driver (pool16c.c) that shares
 * the rows out over the workers and calls it for each. */
typedef void (*pz_pool16c_row_fn)(const pz_pool16c_desc *d, const pz_pool16c_row *r);
void pz_pool16c_drive(const pz_pool16c_desc *d, pz_pool16c_row_fn row, const float *restrict x,
                      float *restrict y, int ith, int nth);

#endif
