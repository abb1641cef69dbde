/* winograd.h - Winograd F(4x4, 3x3) convolution on NCHW16c: 3x3 kernels,
 * stride 1, dilation 1, group 1, any pads; the same descriptor, layouts,
 * bias, residual and activation as the direct conv (fast.h), so a runtime
 * op can take either per layer (a knob).
 *
 * The algorithm (Lavin & Gray 2016). The output is cut into 4x4 tiles; each
 * reads a 6x6 input patch (zeros outside the input). Per tile, per channel:
 *   V = B' d B         input transform: 6x6 patch d -> 36 values
 *   U = G g G'         weight transform of each 3x3 filter g (done once, at
 *                      compile time: pz_winograd_pack_weights)
 *   M[xi] = sum_c U[xi][m][c] V[xi][c]    36 independent GEMMs, one per
 *                      point xi of the 6x6 transform domain
 *   Y = A' M A         output transform: 36 values -> the 4x4 tile
 * 36 multiplies per 16 outputs instead of 9 x 16: 4x fewer FLOPs in the
 * GEMMs (less, in effective terms, where the tiles overhang the output). The
 * matrices are the usual ones with points 0, +-1, +-2 (see winograd.c);
 * float32 results agree with the direct conv to about 1e-6 of the largest
 * output (tests/unit/rt_winograd.c holds them to 1e-4).
 *
 * Work: tiles are taken in panels whose transformed input (36 x C floats a
 * tile) fits in about 1 MiB of L2, cut into register blocks of up to 14
 * tiles (the GEMM micro-kernel: 14 tiles x 32 output channels in 28 ZMM
 * accumulators). A unit of work is (image, panel, group of 2 output
 * blocks); workers take contiguous ranges of units, and a worker transforms
 * a panel's input once for all its consecutive groups (with fewer panels
 * than workers and a small U, the tiles go in nth panels, so that no two
 * workers transform the same input: winograd.c's panels()). Within a unit,
 * each point's slice of U is reused over the panel's register blocks. Each
 * output element is computed by one worker in an order that does not depend
 * on nth: results are bitwise equal whatever the MP. No allocation: each
 * worker uses its own slice of the caller's scratch.
 *
 * The whole-image order: the panel order reads all of U once per panel. Where
 * that traffic outweighs a round trip of the whole image's transformed input
 * V and GEMM results M through L3 (U of many channels over several panels:
 * VGG's 512-channel convs at 28x28, 37.7 MB of U over 4 panels), each worker
 * transforms the whole image and runs the points outermost over its share
 * of the groups: point xi's V (C x tiles floats) stays in L2 while the
 * groups pass over it, U is read once (scratch: V and the worker's M,
 * at most 8 MB; bench/RESULTS.md, 'winograd: whole-image order').
 *
 * When it pays: the GEMMs read all of U (36 x C x M floats, 4x the direct
 * weights), from memory in a net, and with few tiles each U element feeds
 * few FMAs, so a layer with few tiles and many channels (ResNet's 7x7 stage:
 * 4 tiles, 8 x 8 outputs computed for 7 x 7) loses to the direct conv;
 * layers with many tiles (56x56, 28x28, VGG's) win. pz_winograd_pays below
 * is the rule; bench/winograd measures both per layer, and the `best`
 * strategy measures each layer in the net.
 *
 * How the runtime's conv op (rt/ops/conv.c) calls it, beside the direct conv:
 *
 *   pz_conv16c_desc d;
 *   if (pz_conv16c_init(&d, params, xd, yd) == 0 && pz_winograd_ok(&d)
 *       && knob says winograd) {
 *       // at compile (prepare) time:
 *       wp = alloc(pz_winograd_weights_size(&d) floats);
 *       pz_winograd_pack_weights(&d, W, wp);      // W: ONNX [M][C][3][3]
 *       bp = alloc(pz_pack_bias16_size(d.m) floats); pz_pack_bias16(d.m, B, bp);
 *       scratch: pz_winograd_scratch_size(&d, nth) floats in the net's arena
 *                (live only during this layer), 64-byte aligned is best;
 *       fn = pz_winograd_kernel_for(pz_cpu_isa());
 *       // at run, on every worker ith of nth (the same nth as the size):
 *       fn(&d, x, wp, bp, z, y, scratch, ith, nth);
 *   }
 *
 * x: NCHW16c input (d.cblk must be 16: pz_winograd_ok checks it; C <= 4 has
 * cblk = C and goes direct). y: NCHW16c output; z: a residual like y, or
 * NULL; bp: packed bias or NULL. y = act(conv(x) + bias + z); lanes of
 * channels >= M are written as zeros. y must not alias x or z; the scratch
 * must not alias anything. The direct conv's packed weights are not used:
 * a layer keeps one or the other.
 */
#ifndef PZ_WINOGRAD_H
#define PZ_WINOGRAD_H

#include <stdint.h>

#include "rt/kernels/fast.h"

#define PZ_WINO_TILE 4        /* output tile edge: F(4x4, 3x3) */
#define PZ_WINO_ALPHA 6       /* input tile edge: TILE + 3 - 1 */
#define PZ_WINO_NPT 36        /* points of the transform domain: ALPHA^2 */
#define PZ_WINO_TB 14         /* tiles per block (the GEMM register tile) */
#define PZ_WINO_RM 2          /* output blocks of 16 per unit of work */

/* 1 when d is a conv this kernel takes: 3x3, stride 1, dilation 1, input
 * block 16 (group 1 is implied by the descriptor), else 0. */
int pz_winograd_ok(const pz_conv16c_desc *d);

/* 1 when Winograd should beat the direct conv in a net for a conv of C
 * input and M output channels and an OH x OW output (pz_winograd_ok holding):
 * the runtime's AUTO rule and the optimizer's. A cost model (winograd.c):
 * the GEMMs' FLOPs plus the transformed weights U streamed from memory once
 * (and from L3 for each further panel, or the image's V and M through L3 in
 * the whole-image order), against the direct conv's FLOPs. In the nets at
 * 1 thread (paleozoic run --profile, ms, direct against Winograd):
 *   VGG-16 conv4_1 256->512 @28   9.3-9.4 / 4.0-4.1    the rule: Winograd
 *   VGG-16 conv4_2 512->512 @28   18.4-18.9 / 7.7-8.0            Winograd
 *   VGG-16 conv5 512->512 @14     4.5-4.6 / 4.3-4.4              Winograd
 *   ResNet-18 layer3 256->256 @14 1.08-1.11 / 0.92-1.03          Winograd
 *   AlexNet 384->256 @13          1.37 / 1.97 (panels)           direct
 *   AlexNet 256->256 @13          0.95-1.01 / 1.20               direct
 *   AlexNet 192->384 @13          1.04 / 1.05-1.10               direct
 *   ResNet-18 layer4 512->512 @7  (4 tiles: U read for 4 tiles)  direct
 * The earlier rule (at least 16 tiles and C * M <= 256 * 256) ran VGG's
 * 512-channel convs direct and AlexNet's 256->256 on Winograd. */
int pz_winograd_pays(int64_t c, int64_t m, int64_t oh, int64_t ow);

/* Transformed weights, zero where c >= C or m >= M; W is ONNX [M][C][3][3].
 * Output blocks go in groups of RM = 2 (the last group may have 1), and each
 * group's weights are contiguous, in the order the GEMMs read them (one
 * sequential stream per unit of work):
 *   U [group][36][ceil(C/16)][16 c][rm][16 m]. */
int64_t pz_winograd_weights_size(const pz_conv16c_desc *d);
void pz_winograd_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                              float *restrict u);

/* Floats of scratch for nth workers (each worker uses its own slice). */
int64_t pz_winograd_scratch_size(const pz_conv16c_desc *d, int nth);

/* Row ranges (a fused F-Block, rt/fuse.c): with d->r1 > 0 the kernel
 * computes output rows [r0, r1) only, r0 a multiple of PZ_WINO_TILE and r1
 * one or the last row: whole tile rows of the layer's own tiling, so every
 * output has the bits of a whole-layer call. With d->xr > 0, x holds input
 * rows [xb, xb + xr) of each plane (all the rows those tiles read that the
 * input has) and y and z output rows [yb, yb + yr) (fast.h). The panel
 * order, or the whole-image order where it pays for the range's tiles; the
 * scratch is then this size (nth slices of one size: a caller may hand
 * worker w slice w as worker 0 of 1). */
int64_t pz_winograd_rows_scratch_size(const pz_conv16c_desc *d, int nth);
/* Floats of that scratch one output row's tiles fill (their transformed
 * input and one group's GEMM results): what a strip of rows keeps in cache
 * besides its tensors' rows (rt/fuse.c sizes strips by it). */
int64_t pz_winograd_rows_scratch_per_row(const pz_conv16c_desc *d);

/* pz_winograd_fn: fast.h (the per-ISA table holds one). */

void pz_f32_conv3x3_winograd_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                             const float *restrict u, const float *restrict b,
                                             const float *restrict z, float *restrict y,
                                             float *restrict scratch, int ith, int nth);
void pz_f32_conv3x3_winograd_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                             const float *restrict u, const float *restrict b,
                                             const float *restrict z, float *restrict y,
                                             float *restrict scratch, int ith, int nth);

/* The kernel for an ISA: AVX-512 for PZ_ISA_AVX512 (not in a PZ_SCALAR=1
 * build), else the scalar twin. */
pz_winograd_fn pz_winograd_kernel_for(pz_isa isa);

/* ---- internal: the ISA pieces the driver (winograd.c) walks ------------------ */

/* One ISA's three steps over 16-lane vectors:
 *   in(x, rs, v, vs): the 6x6 patch at x (rows rs floats apart, pixels 16
 *       apart) -> v[xi * vs + lane], xi = 0..35;
 *   gemm(a): see pz_wino_gemm_args;
 *   out(m, ms, b, z, y, ys, nh, nw, act, tail): the 36 vectors m[xi * ms] ->
 *       the top-left nh x nw of the 4x4 tile at y (rows ys apart), plus the
 *       bias vector b (or none), plus z (at the same offsets as y, or NULL),
 *       activation, and lanes >= tail zeroed (tail 16: none). */
typedef struct {
    const float *u;          /* U of the group at point xi, input block 0 */
    const float *v;          /* V at point xi, input block 0, tile 0 */
    float *m;                /* M at point xi, block 0 (of rm), tile 0 */
    int64_t us_q, us_cb;     /* U strides between input channels (rm * 16) and blocks */
    int64_t vs_cb;           /* V stride between input blocks: nt * 16 */
    int64_t ms_mb;           /* M stride between output blocks: nt * 16 */
    int ncb, nt, rm;         /* input blocks, tiles (1..14), output blocks (1..2) */
    /* sparse (pz_spwino_plan; NULL: dense): the slice holds only the nent
     * input blocks ent lists, ent[k] = cb * 4 + mask (bit r: output block r
     * of the group has a weight there), each [16 q][popcount(mask)][16]; the
     * accumulators of an output block take the same FMAs in the same order
     * as dense, less those of its zero blocks */
    const int32_t *ent;
    int nent;
    const float *pf;         /* lines to prefetch into L2 (a share of the slice of U
                              * the driver runs next): pf_q lines a q step from pf
                              * on, pf_n in all (0: none); a hint */
    int64_t pf_n;
    int pf_q;
} pz_wino_gemm_args;

typedef struct {
    void (*in)(const float *x, int64_t rs, float *v, int64_t vs);
    void (*gemm)(const pz_wino_gemm_args *a);
    void (*out)(const float *m, int64_t ms, const float *b, const float *z, float *y,
                int64_t ys, int nh, int nw, const pz_act *act, int tail);
} pz_wino_isa;

/* The fp32 steps of the ISAs (winograd_scalar.c, winograd_avx512.c; the
 * latter not in a PZ_SCALAR=1 build): the bf16 Winograd reuses their
 * transforms. */
extern const pz_wino_isa pz_wino_isa__scalar;
extern const pz_wino_isa pz_wino_isa__avx512;

/* 1 when pz_winograd_drive runs d on nth workers in the whole-image order
 * (see winograd.c), else in panels (for the tests). */
int pz_winograd_whole_image(const pz_conv16c_desc *d, int nth);

void pz_winograd_drive(const pz_conv16c_desc *d, const pz_wino_isa *isa,
                       const float *restrict x, const float *restrict u,
                       const float *restrict b, const float *restrict z, float *restrict y,
                       float *restrict scratch, int ith, int nth);

/* ---- the block-sparse Winograd (the sparsity knob on a Winograd layer) ----
 *
 * A block is 16 output x 16 input channels x all 9 taps: all zero in W, its
 * U is zero at all 36 points, so each point's GEMM skips it (the weights
 * are pruned so, src/opt/sparsity.c). The transforms stay dense. Packed at
 * prepare: per group of RM output blocks the input blocks where either has
 * a weight (pz_wino_gemm_args.ent), their U slices only:
 *   U [group][36][entry][16 q][popcount(mask)][16 m].
 * The driver, order, panels, scratch and results are the dense kernel's:
 * bitwise the dense Winograd conv of the same weights (a skipped block's
 * FMAs add v * 0 = 0 to the sums; inputs finite). */
typedef struct pz_spwino_plan {
    pz_conv16c_desc d;
    const pz_wino_isa *isa;
    int64_t ngrp;            /* groups of RM output blocks */
    int64_t *e0;             /* [ngrp + 1]: group g's entries [e0[g], e0[g + 1]) */
    int32_t *ent;            /* cb * 4 + mask */
    int64_t *uoff;           /* [ngrp + 1]: group g's U from u + uoff[g], 36 equal slices */
    float *u;                /* 64-byte aligned */
    unsigned char *cb_used;  /* [ceil(C / 16)]: 0 where no output block has a
                              * weight: that input block is not transformed */
    int64_t nblocks, nnz;    /* 16 x 16 blocks in all, and with a weight */
} pz_spwino_plan;

/* Packs W (ONNX [M][C][3][3]) for d (pz_winograd_ok) on isa's steps
 * (AVX-512 where built, else the scalar twin); -1 when out of memory. */
int pz_spwino_plan_make(pz_spwino_plan *p, const pz_conv16c_desc *d, const float *w,
                        pz_isa isa);
void pz_spwino_plan_free(pz_spwino_plan *p);
/* y = act(conv(x) + b + z) as pz_winograd_fn over the first n images (at
 * most the plan's d.n: a dynamic region's run), scratch
 * pz_winograd_scratch_size (not a function of n). */
void pz_spwino_run(const pz_spwino_plan *p, int64_t n, const float *restrict x,
                   const float *restrict b, const float *restrict z, float *restrict y,
                   float *restrict scratch, int ith, int nth);

/* 1 when the sparse Winograd should beat the sparse direct conv (spconv16c.h)
 * on a conv of C -> M channels, OH x OW output, whose 16 x 16 x one-tap
 * blocks have a weight in a fraction tap_nz and whose 16 x 16 x 9 blocks in
 * blk_nz: the runtime's and the optimizer's rule. A model in vector
 * instructions of the two kernels' inner loops (spwinograd.c), the weights'
 * traffic as pz_winograd_pays counts it. */
int pz_spwino_pays(int64_t c, int64_t m, int64_t oh, int64_t ow, double tap_nz, double blk_nz);
/* The modelled fraction of the sparse Winograd's time in its (dense)
 * transforms, for a density blk_nz (inspect, bench). */
double pz_spwino_transform_share(int64_t c, int64_t m, int64_t oh, int64_t ow, double blk_nz);

void pz_winograd_drive_sparse(const pz_spwino_plan *sp, int64_t n, const float *restrict x,
                              const float *restrict b, const float *restrict z,
                              float *restrict y, float *restrict scratch, int ith, int nth);

#endif
