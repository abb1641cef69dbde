/* conv_frames.h - a 1-D or 3-D group-1 convolution on the 2-D fast conv
 * (conv16c), planned at compile time (conv_frames.c).
 *
 * A 3-D conv over frames [T][H][W] is, for each output frame, a 2-D conv
 * whose input channels are the kT frames it reads side by side: with the
 * input laid out frame after frame, each frame NCHW16c ([cb][H][W][16]),
 * frames ti .. ti + kT - 1 are one contiguous NCHW16c image of kT * C16
 * channels, and the weights W[m][c][dt][kh][kw] become a 2-D W'[m][dt *
 * C16 + c][kh][kw] (zero on the padding channels). One conv2d call per
 * output frame, bias, residual and activation in its epilogue, no partial
 * sums kept between taps. A 1-D conv over [L] is the same with one frame
 * of H = 1, W = L. The temporal padding is zero frames in the scratch.
 * Few channels (a video stem's 3, kT * C <= 16) are stacked instead: each
 * output frame's taps blocked apart as one block of kT * C channels.
 * Depthwise (group == C == M) goes onto the 2-D depthwise kernels
 * (dwconv3x3, dwconvk16c.h) instead: an output frame is the sum over its
 * kT taps of a 2-D depthwise conv of one input frame with that tap's
 * weights, one call per tap, each adding the previous partial sums as its
 * residual (two frame buffers in turn, the last call writing the output
 * frame with the bias first, the act last); any temporal dilation.
 * Grouped convs (1 < group < C) the 2-D GROUPED rule takes
 * (pz_conv_grouped_k: super-groups of whole 16-channel blocks, weights
 * block-diagonal within one) go the same way tap by tap, one conv2d call
 * per tap and super-group on that super-group's run of blocks.
 * The layer keeps plain NCDHW (NCL) tensors: the input is blocked into
 * the scratch, the output unblocked from it (a pass over each, small
 * against the conv).
 * A 1-D group-1 conv with more taps (or a longer stride) than conv2d takes
 * (over 64: a Silero VAD's STFT) goes to conv_im2col.h instead.
 */
#ifndef PZ_CONV_FRAMES_H
#define PZ_CONV_FRAMES_H

#include "rt/kernels/fast.h"
#include "rt/pool.h"

struct pz_conv_im2col_s;

typedef struct {
    struct pz_conv_im2col_s *ic; /* 1-D with a long kernel: im2col + GEMM (conv_im2col.h),
                                  * the act in d.act; the rest unused */
    pz_conv16c_desc d;           /* one output frame: N = 1, the taps' frames as channels
                                  * (per tap: one frame, one super-group, the act) */
    pz_conv16c_desc d0;          /* per tap: the taps before the last, no act */
    pz_conv16c_desc dl, dl0;     /* per tap: the last super-group (fewer groups), d0's twin */
    pz_conv16c_fn conv;          /* conv2d (depthwise: dwconv3x3 or dwconvk) of the ISA */
    float *wp, *bp;              /* packed W' and bias (per tap: [kt][nsg] weight sets) */
    bool taps;                   /* depthwise or grouped: a call per tap and super-group */
    int64_t wtap;                /* per tap: floats of one (tap, super-group)'s weights */
    int64_t nsg, xsg, ysg, bsg;  /* per tap: super-groups; a super-group's floats in a
                                  * blocked input, output frame; its channels out */
    pz_barrier *bar;             /* between blocking, the convs and unblocking */
    pz_rows_to_block_fn to_blk;  /* the ISA's blocking and unblocking */
    pz_block_to_rows_fn from_blk;
    int64_t n, c, m;             /* batch, input and output channels */
    int64_t t, ot, tf;           /* input, output frames; slots in the scratch (t + pads,
                                  * stacked: ot) */
    bool stacked;                /* each output frame's taps blocked apart (kt * c <= 16) */
    int huge;                    /* packed weights on huge pages (pz_alloc_big) */
    int64_t kt, st, pt, dt;      /* temporal kernel, stride, pad before, dilation */
    int64_t hw, ohw;             /* pixels of an input, an output frame */
    int64_t xcb, cblk;           /* an input frame: xcb blocks of cblk channels */
    int64_t xframe, yframe;      /* floats of one blocked input, output frame */
} pz_conv_frames;

/* This path takes a conv of params p on X of rank `rank` (dims xd, Y dims
 * yd): 1-D or 3-D, group 1 with the temporal dilation 1 (the taps' frames
 * adjacent), depthwise (group == C == M) with the 2-D taps of a frame
 * pz_dwconvk16c_init takes (at most 64), or grouped where
 * pz_conv_grouped_k finds super-groups; or what pz_conv_im2col_takes. */
bool pz_conv_frames_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                          const int64_t *yd);
/* Plans the conv of params p (X dims xd, Y dims yd, rank 3 or 5; W and b
 * constant, b may be NULL) on isa's conv2d, which pz_conv_frames_takes;
 * huge: the packed weights on huge pages (the run options' hugepages).
 * Returns 0 with *out set, 1 when out of memory. */
int pz_conv_frames_make(pz_conv_frames **out, const pz_conv_params *p, int rank,
                        const int64_t *xd, const int64_t *yd, const float *w, const float *b,
                        pz_isa isa, int huge);
/* Bytes of run-time scratch (shared by the workers): blocked X, Y and,
 * with a residual, Z (depthwise: and a frame of partial sums). */
size_t pz_conv_frames_scratch_bytes(const pz_conv_frames *f, int with_z);
/* Y = act(conv(X) + B + Z) (Z plain like Y, or NULL) for the first n images
 * (at most the plan's f->n: a dynamic region's run) on worker ith of nth;
 * the scratch, sized for f->n, is laid out for n. */
void pz_conv_frames_run(const pz_conv_frames *f, int64_t n, const float *x, const float *z,
                        float *y, void *scratch, int ith, int nth);
void pz_conv_frames_free(pz_conv_frames *f);

#endif
