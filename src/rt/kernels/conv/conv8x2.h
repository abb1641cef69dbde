/* conv8x2.h - the 1x1 convolution for an output of 8 mod 16 channels
 * (MobileNetV2's 24-channel projects), with every FMA lane useful, and for
 * an output of 16 channels (fewer loads than the direct conv's tile).
 *
 * Why: the direct conv (conv16c) computes 16 output channels per ZMM
 * register, so with M = 24 the second block's register has 8 idle lanes: a
 * quarter of the FMAs are wasted, and the layer cannot pass 75% of peak
 * (where a YMM FMA takes a whole FMA slot, as on the Intel cores measured,
 * half registers do not help). Here a register's 16 lanes are 8 output
 * channels x 2 input channels (lane 2k + s: channel k of its group of 8,
 * input channel 2p + s of the pair p). One q step is a pair of input
 * channels: the input vector is one 64-bit broadcast (x[2p], x[2p+1]
 * repeated: a plain load, no shuffle), each weight vector holds the pair's
 * weights of 8 output channels, and each FMA does 16 useful multiply-adds.
 * At the end the two lanes of each channel are added (two permutes and an
 * add make a whole 16-channel block out of two groups' registers).
 *
 * M = 16 (MobileNetV2's project 32->16 at 112x112) goes here too: the
 * direct conv's tile for one output block (14 pixels x 1 block) loads a
 * broadcast for every FMA (15 loads for 14 FMAs a q step); here the two
 * groups of 8 share each 64-bit broadcast (16 loads for 28 FMAs), for two
 * permutes and an add per output vector (bench/RESULTS.md, 'conv8x2:
 * M = 16').
 *
 * Shapes (pz_conv8x2_ok): kernel 1x1, stride 1, no padding, input block 16,
 * C even, M % 16 == 8 or M == 16. The image is one row of H*W pixels, as in
 * conv16c's flat path; a row window [r0, r1) (d->r1 != 0, a fused F-Block,
 * whose view may shift rows by d->pt: output row r reads input row r - pt)
 * is its pixels [r0*W, r1*W).
 *
 * Work: the M/8 groups of 8 channels go in calls of 2 (one output block)
 * and a last call of 3 (a block and a half) when they are odd, or 1 (M = 8);
 * M = 16 is one call of 2. Workers take equal runs of (image, pixel); each
 * run goes in chunks of at most 126 pixels, and each chunk through every
 * call, its input in L1 (each tile prefetches the input of the tile
 * PZ_C8X2_PF_TILES ahead). A tile is RW pixels x the
 * call's groups in registers: 9 x 3 (27 ZMM), 14 x 2, 14 x 1. Each output
 * element is computed by one worker in an order that does not depend on nth:
 * results are bitwise equal whatever the MP.
 *
 * How the runtime's conv op (rt/ops/conv.c) calls it, instead of the direct
 * conv, on AVX-512 (pz_conv8x2_kernel_for returns NULL elsewhere):
 *
 *   if (pz_conv16c_init(&d, params, xd, yd) == 0 && (fn = pz_conv8x2_pick(&d, isa))) {
 *       wp = alloc(pz_conv8x2_weights_size(&d) floats);
 *       pz_conv8x2_pack_weights(&d, W, wp);        // W: ONNX [M][C][1][1]
 *       bp = alloc(pz_pack_bias16_size(d.m) floats); pz_pack_bias16(d.m, B, bp);
 *       // at run, on every worker ith of nth:
 *       fn(&d, x, wp, bp, z, y, ith, nth);
 *   }
 *
 * x: NCHW16c; y: NCHW16c; z: a residual like y, or NULL; bp may be NULL.
 * y = act(conv(x) + bias + z); lanes of channels >= M are written as zeros.
 * The scalar twin (plain C, the same sums in the same order) is what the
 * tests hold the AVX-512 kernel to, beside the reference conv.
 */
#ifndef PZ_CONV8X2_H
#define PZ_CONV8X2_H

#include <stdint.h>

#include "rt/kernels/fast.h"

#define PZ_C8X2_CHUNK 126     /* pixels of input a chunk keeps in L1 across calls */
#define PZ_C8X2_PF_TILES 2    /* how far ahead a tile prefetches its input (conv8x2_avx512.c) */

/* 1 when the kernel takes d (see the top), else 0. */
int pz_conv8x2_ok(const pz_conv16c_desc *d);

/* Packed weights: the calls' in order, each contiguous:
 *   [call][ceil(C/16) input blocks][8 pairs][gc groups][8 channels][2]
 * (gc: the call's groups), zero where c >= C. */
int64_t pz_conv8x2_weights_size(const pz_conv16c_desc *d);
void pz_conv8x2_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                             float *restrict wp);

void pz_f32_conv1x1_8x2_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                        const float *restrict w, const float *restrict b,
                                        const float *restrict z, float *restrict y, int ith,
                                        int nth);
void pz_f32_conv1x1_8x2_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                        const float *restrict w, const float *restrict b,
                                        const float *restrict z, float *restrict y, int ith,
                                        int nth);

/* The AVX-512 kernel for PZ_ISA_AVX512 (not in a PZ_SCALAR=1 build), else
 * NULL: with 8-lane YMM registers (AVX2) the direct conv wastes no lane. */
pz_conv16c_fn pz_conv8x2_kernel_for(pz_isa isa);

/* The kernel a layer d takes on isa, or NULL for the direct conv: the rule
 * of the runtime's conv op and of bench/kernels, in one place. NULL unless
 * pz_conv8x2_ok(d) and pz_conv8x2_kernel_for(isa). The A/B switch
 * (run options' conv8x2, PZ_CONV8X2) is the conv op's: it asks only when on. */
pz_conv16c_fn pz_conv8x2_pick(const pz_conv16c_desc *d, pz_isa isa);

/* ---- internal: the tile the driver (conv8x2.c) calls -------------------------- */

typedef struct {
    const float *x;          /* input: block 0, first pixel of the first tile */
    const float *w;          /* the call's packed weights */
    const float *bias;       /* gc x 16 floats: bias k in lane 2k, zero in odd lanes */
    const float *z;          /* residual at the output block of the call, or NULL */
    float *y;                /* output: the call's first block, first pixel */
    int64_t xs_cb, ys_mb;    /* strides (floats): input block, output block */
    int ncb, np_last;        /* input blocks; pairs in the last one (1..8) */
    int ntile;               /* tiles of rw pixels, one after the other */
    int act;                 /* 0: none, 1: clamp to [lo, hi] */
    float lo, hi;
} pz_c8x2_args;

/* tile(a, gc, rw): ntile tiles of rw pixels x gc groups (1..3). rwmax[gc]
 * is the widest. */
typedef struct {
    void (*tile)(const pz_c8x2_args *a, int gc, int rw);
    int rwmax[4];
} pz_c8x2_isa;

void pz_conv8x2_drive(const pz_conv16c_desc *d, const pz_c8x2_isa *isa,
                      const float *restrict x, const float *restrict w,
                      const float *restrict b, const float *restrict z, float *restrict y,
                      int ith, int nth);

#endif
