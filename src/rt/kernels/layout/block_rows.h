/* block_rows.h - one block of a plain tensor's channels to and from the
 * blocked [pixels][k] layout of the fast kernels (block_rows.c), for the
 * layers that block their plain input into scratch themselves (1-D and 3-D
 * convs and pools, frame by frame).
 *
 * Channel l of the block is the row src + l * cstride of `np` pixels; the
 * blocked side is np vectors of k lanes. Pixels go 16 at a time so that the
 * k rows read and the 16 x k floats written stay in L1 (one lane at a time
 * over a whole row strides the blocked side np times). Only data moves.
 */
#ifndef PZ_BLOCK_ROWS_H
#define PZ_BLOCK_ROWS_H

#include "rt/kernels/fast.h"

/* dst[q * k + l] = src[l * cstride + q] for l < nch, 0 for nch <= l < k. */
void pz_f32_rows_to_block(const float *restrict src, int64_t cstride, int64_t nch, int64_t np,
                          int k, float *restrict dst);
/* dst[l * cstride + q] = src[q * k + l] for l < nch (the other lanes dropped). */
void pz_f32_block_to_rows(const float *restrict src, int k, int64_t nch, int64_t np,
                          float *restrict dst, int64_t cstride);
void pz_f32_rows_to_block__avx512(const float *restrict src, int64_t cstride, int64_t nch,
                                  int64_t np, int k, float *restrict dst);
void pz_f32_block_to_rows__avx512(const float *restrict src, int k, int64_t nch, int64_t np,
                                  float *restrict dst, int64_t cstride);

/* A frame's 2-D (H, W) values of a per-axis attribute a of an N-d layer of
 * rank `rank` (the layers that run 1-D and 3-D as frames): 3-D {a[1],
 * a[2]}, 1-D {fill, a[0]} (a frame of height 1). */
static inline void pz_frame_axes(int rank, const int64_t *a, int64_t fill, int64_t *out)
{
    out[0] = rank == 5 ? a[1] : fill;
    out[1] = rank == 5 ? a[2] : a[0];
}

/* The per-axis attributes of params p (pz_conv_params or pz_pool_params)
 * for one frame into params p2: kernel, stride, dilation, pads. */
#define PZ_FRAME_PARAMS(p2, p, rank)                                   \
    do {                                                               \
        (p2).nsp = 2;                                                  \
        pz_frame_axes((rank), (p)->kernel, 1, (p2).kernel);            \
        pz_frame_axes((rank), (p)->stride, 1, (p2).stride);            \
        pz_frame_axes((rank), (p)->dilation, 1, (p2).dilation);        \
        pz_frame_axes((rank), (p)->pad_begin, 0, (p2).pad_begin);      \
        pz_frame_axes((rank), (p)->pad_end, 0, (p2).pad_end);          \
    } while (0)

#endif
