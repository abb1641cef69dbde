/* spconv16c.h - the block-sparse direct convolution on NCHW16c (the
 * sparsity knob: pz_conv_params.sparsity, README "Sparsity").
 *
 * A block is 16 output channels x 16 input channels x one kernel tap
 * (kh, kw) of W[M][C][KH][KW]: the tile the micro-kernel multiplies at once
 * (one output block's 16 lanes times one input block's 16 channels). A 1x1
 * conv's block is 16 x 16. The compiler prunes whole blocks (src/opt/
 * sparsity.c, the same geometry: pz_spconv_block_count); prepare packs only
 * the blocks with a non-zero weight, per output block, and keeps their
 * taps: the plan is made once, run only walks the lists. Any all-zero block
 * is skipped, pruned or the model's own.
 *
 * Run: a 1x1 conv with stride 1 and no padding takes the image as one row
 * of H*W pixels. Any other conv ("wide") copies the input rows its
 * worker's outputs read into scratch as phase planes: plane (ph, pw) holds
 * the padded input pixels (i*sh + ph, j*sw + pw), rows of wp = OW +
 * (KW - 1)*dw/sw pixels with the padding made zeros (stride 1: one plane,
 * the padded input). Output pixel (oh, ow) is then virtual pixel
 * oh * wp + ow, whose tap (kh, kw) lies in plane (kh*dh % sh, kw*dw % sw)
 * at a fixed offset (kh*dh/sh rows, kw*dw/sw pixels): one long row with
 * uniform stride, the columns past OW computed and dropped. A strided
 * conv's planes hold its input once (no tap is gathered); only the planes
 * a tap reads are copied. Each span of pixels then runs the row kernel
 * once per output block over that block's list.
 * The row kernel (pz_sprow_fn: AVX-512 and its scalar twin, which AVX2 and
 * the scalar ISA run) accumulates in the block list's order with one fused
 * multiply-add per tap, so its two versions give the same bits.
 */
#ifndef PZ_SPCONV16C_H
#define PZ_SPCONV16C_H

#include "rt/kernels/fast.h"

/* One call of the row kernel: npix pixels of one output block. */
typedef struct pz_sprow_args {
    const float *const *x;   /* [nb]: block b's input at pixel 0, channel 0 */
    const float *const *w;   /* [nb]: block b's weights, [16 ic][16 lanes] */
    int nb;
    int64_t ps;              /* input floats from one pixel to the next */
    int64_t npix;
    const float *bias;       /* 16 (padded) */
    const float *z;          /* residual at pixel 0 (16 floats a pixel), or NULL */
    float *y;                /* output at pixel 0, 16 floats a pixel */
    const pz_act *act;       /* RELU or CLIP or none */
    int64_t c0, m;           /* lanes with c0 + lane >= m are written 0 */
    /* vw > 0: pixel j is (v / vw, v % vw), v = vp0 + j, of a plane whose
     * rows are vw wide: it goes to y and z at (v / vw * ow + v % vw) * 16,
     * and not at all when v % vw >= ow (a padding column, computed anyway) */
    int64_t vw, vp0, ow;
} pz_sprow_args;

void pz_f32_sprow16c__scalar(const pz_sprow_args *a);
void pz_f32_sprow16c__avx512(const pz_sprow_args *a);

typedef struct {
    pz_conv16c_desc d;
    int64_t mb, cb;           /* output and input blocks */
    int64_t nblocks, nnz;     /* blocks in all, and with a non-zero weight */
    int64_t *start;           /* [mb + 1]: output block ob's blocks are [start[ob], start[ob+1]) */
    int32_t *tap;             /* [nnz]: (ib * KH + kh) * KW + kw */
    float *w;                 /* [nnz][16][16], 64-byte aligned */
    int flat;                 /* a 1x1, stride 1, no padding: pixels as one row */
    int npl;                  /* wide: phase planes a tap reads */
    int32_t *plph;            /* [taps]: plane k's phase, ph * sw + pw (the first npl) */
    int32_t *tpl;             /* [taps]: tap (kh * KW + kw)'s plane */
    int64_t *toff;            /* [taps]: its offset in the plane, pixels */
    int64_t hp;               /* rows of a plane, OH + (KH - 1) * dh / sh */
    int64_t wp;               /* pixels of a plane's row, OW + (KW - 1) * dw / sw */
    pz_sprow_fn row;
} pz_spconv_plan;

/* Whether the sparse conv takes descriptor d (a 2-D group-1 conv whose
 * input comes in whole 16-channel blocks, at most 64 kernel rows). */
int pz_spconv_ok(const pz_conv16c_desc *d);
/* Blocks of W[M][C][KH][KW] (partial blocks at the channel edges count). */
int64_t pz_spconv_block_count(int64_t m, int64_t c, int64_t kh, int64_t kw);
/* Packs W (plain [M][C][KH][KW]) into p for isa; -1 when out of memory. */
int pz_spconv_plan_make(pz_spconv_plan *p, const pz_conv16c_desc *d, const float *w, pz_isa isa);
void pz_spconv_plan_free(pz_spconv_plan *p);
/* Floats of scratch one worker needs (0 for a flat conv). */
int64_t pz_spconv_scratch_size(const pz_spconv_plan *p);
/* Y = act(conv + bias + z) for every output row of the first n images (at
 * most the plan's d.n: a dynamic region's run); scratch is the worker's
 * (not a function of n). */
void pz_spconv_run(const pz_spconv_plan *p, int64_t n, const float *x, const float *bias,
                   const float *z, float *y, float *scratch, int ith, int nth);

#endif
