/* deconv_frames.h - a 3-D transposed convolution (ConvTranspose3d of 3-D
 * U-Nets' and video decoders' upsampling) as 2-D ones on deconv_phases,
 * planned at compile time (deconv_frames.c).
 *
 * Output frame o = q*st + rt - pbt of temporal phase rt takes the taps
 * kt = rt + j*st from input frame q - j, j < Jt = ceil((KT - rt) / st).
 * Those Jt input frames, blocked one after another, are one image of
 * Jt * C16 channels (C16: C rounded up to 16), so each output frame is one
 * 2-D transposed conv of that image with the weights W'[(Jt - 1 - j) * C16
 * + c][m] = W[c][m][rt + j*st] (zero for the padding lanes): deconv_phases
 * with one plan per temporal phase. The layer blocks each image's frames
 * once into scratch, with zero frames before and after where a phase
 * reads past X's ends. Group 1, dilation 1, KT >= st, pads >= 0, and the
 * 2-D axes as deconv_phases takes them.
 */
#ifndef PZ_DECONV_FRAMES_H
#define PZ_DECONV_FRAMES_H

#include "rt/kernels/conv/deconv_phases.h"

#define PZ_DECONV_MAX_TPHASES 8

typedef struct {
    pz_deconv_phases *ph[PZ_DECONV_MAX_TPHASES];   /* temporal phase rt's 2-D plan */
    int64_t jt[PZ_DECONV_MAX_TPHASES];             /* its taps */
    int64_t q0[PZ_DECONV_MAX_TPHASES], nq[PZ_DECONV_MAX_TPHASES];   /* its first q, count */
    pz_rows_to_block_fn to_blk;
    pz_barrier *bar;
    int64_t n, c, m, t, ot, hw, ohw, st, pbt, cb, fpre, ft;   /* ft frames, fpre zero before */
} pz_deconv_frames;

bool pz_deconv_frames_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                            const int64_t *yd);
/* Plans it on isa's conv2d (W [C][M][KT][KH][KW], b may be NULL): 0, or 1
 * when out of memory. */
int pz_deconv_frames_make(pz_deconv_frames **out, const pz_conv_params *p, const int64_t *xd,
                          const int64_t *yd, const float *w, const float *b, pz_isa isa);
size_t pz_deconv_frames_scratch_bytes(const pz_deconv_frames *f);
/* Y = act(convtranspose(X) + B), plain, for the first n images (at most the
 * plan's f->n: a dynamic region's run; the scratch is one image's) on
 * worker ith of nth. */
void pz_deconv_frames_run(const pz_deconv_frames *f, int64_t n, const float *x, float *y,
                          void *scratch, int ith, int nth);
void pz_deconv_frames_free(pz_deconv_frames *f);

#endif
