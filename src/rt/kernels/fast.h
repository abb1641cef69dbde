/* fast.h - the runtime's fast float32 kernels: blocked-layout convolution,
 * depthwise 3x3, packed GEMM/GEMV; their layouts, packing and dispatch.
 *
 * Every kernel here is pure: restrict pointers, a descriptor, and (ith, nth),
 * its worker's share of the work. No allocation, no scratch, no globals. Each
 * output element is computed by exactly one worker, in an order that does not
 * depend on nth, so results are bitwise equal whatever the MP. Each kernel has
 * three versions with one signature: __avx512 (ZMM, 16 lanes), __avx2 (YMM
 * with FMA, two halves per 16-channel block) and __scalar (plain C, the twin
 * the others are tested against). All three read the same layouts and the same
 * packed weights, so the runtime packs once, whatever the CPU.
 *
 * Layouts (f32):
 *   NCHW16c   activations [N][ceil(C/16)][H][W][16]; channel c of block cb is
 *             c = cb*16 + lane. Lanes >= C must be zero in every input (a
 *             zero weight times garbage can be NaN) and the kernels write
 *             them as zeros (conv: from the zero weights and bias).
 *   NCHWxc    the same with a block of `cblk` channels: [N][ceil(C/cblk)][H][W][cblk].
 *             cblk = 16 is NCHW16c; cblk = C (C <= 16) is NHWC, which a conv
 *             with few input channels (the stem: C = 3) reads without padding
 *             its channels to 16 (no 5x wasted FLOPs). The conv kernels take
 *             any cblk in 1..16 for their input; pz_conv16c_init picks C
 *             for C <= 4, else 16.
 *   conv W    [ceil(M/16)][ceil(C/cblk)][KH][KW][cblk][16]: for each output
 *             block, input block and tap, cblk rows (input channel) of 16
 *             output channels; zero where c >= C or m >= M.
 *   dw W      [ceil(C/16)][3][3][16].
 *   bias      ceil(M/16)*16 floats, zero padded (pz_pack_bias16).
 *   GEMM B    [ceil(N/32)][K][32]: panels of 32 columns, K rows each, zero
 *             padded; alpha folded in at packing (pz_gemm_pack_b).
 *
 * How the runtime calls them (packing once, at compile; no scratch at run):
 *
 *   Conv (group 1, 2-D; any kernel, stride, dilation, pads):
 *     pz_conv16c_desc d;
 *     if (pz_conv16c_init(&d, params, xd, yd) == 0) {            // else: the ref conv
 *         wp = alloc(pz_conv16c_weights_size(&d) floats);  pz_conv16c_pack_weights(&d, W, wp);
 *         bp = alloc(pz_pack_bias16_size(d.m) floats);     pz_pack_bias16(d.m, B, bp);
 *         k  = pz_fast_kernels_for(pz_cpu_isa());
 *         // at run, on every worker ith of nth:
 *         k->conv2d(&d, x, wp, bp, z, y, ith, nth);
 *     }
 *     x: the input in NCHWxc with block d.cblk (16; or C, i.e. NHWC, for
 *     C <= 4: the network input of a stem, converted from the caller's NCHW
 *     by pz_f32_nchw_to_nchwxc(n, c, h, w, d.cblk, ...)). y: NCHW16c of the
 *     output's shape. z: the residual (NCHW16c like y) or NULL. bp may be
 *     NULL (no bias). y = act(conv(x) + bias + z); lanes of channels >= M are
 *     written as zeros. y must not alias x or z (y holds partial sums).
 *
 *   Depthwise 3x3 (group == C == M, kernel 3x3, dilation 1; any stride, pads):
 *     pz_dwconv16c_init(&d, params, xd, yd) == 0, then wp of
 *     pz_dw16c_weights_size(C) floats from pz_dw16c_pack_weights(C, W, wp),
 *     bp as for conv; k->dwconv3x3(&d, x, wp, bp, z, y, ith, nth) with x, y
 *     (and z) NCHW16c. y must not alias x.
 *
 *   Gemm / MatMul with a constant B: Y = act(alpha A B' + beta C):
 *     bp of pz_gemm_packed_b_size(K, N) floats: pz_gemm_pack_b(K, N, B, trans_b, alpha, bp)
 *     pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N,
 *                       .c = C, .csm = .., .csn = .., .beta = beta, .act = act};
 *     k->gemm(&g, A, bp, Y, ith, nth);   // A row-major M x K; trans_a: not here
 *     C (may be NULL) is read at c[m*csm + n*csn]: a bias is csm = 0, csn = 1.
 *     M == 1 (a FC layer at batch 1) takes the GEMV path, which streams bp
 *     once; k->gemv is that path directly. For MatMul, loop over the batch
 *     (or, when B is not batched, fold the batch into M). A B that is not
 *     constant is read as it is: g.ldb = its row stride (N), bp = B, and no
 *     GEMV path (rt/ops/matmul.c). Y must not alias A or B.
 *     A FC layer after a global average pool can read the NCHW16c pool
 *     output as its A directly when C % 16 == 0 (1x1 blocks are in channel
 *     order).
 *
 *   Layout conversion (pack.c, scalar, split over (n, block, h) rows):
 *     pz_f32_nchw_to_nchwxc / pz_f32_nchwxc_to_nchw, at the edges of a run
 *     of fast layers (graph inputs and outputs, ops without a blocked kernel).
 *     Element-wise layers (unary, same-shaped binary, BatchNorm) and 2-D
 *     pooling have NCHW16c kernels below (eltwise16c.c, pool16c*.c), which
 *     write the padded lanes as zeros. The net plans which tensors are
 *     blocked and where to convert (rt/net.h, "Layouts").
 *
 * Threads: call with the same descriptor and pointers on every worker, ith in
 * [0, nth). Work is split over (image, output-channel group, output row) for
 * conv, (image, channel block, output row) for depthwise, panels (or row
 * tiles) for GEMM, panels for GEMV. Buffers need no alignment (64 bytes is
 * best).
 */
#ifndef PZ_FAST_H
#define PZ_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"

/* ---- descriptors ---------------------------------------------------------- */

/* A fused epilogue activation over npix NCHW16c pixels (act16c.c). */
typedef void (*pz_act16c_fn)(const pz_act *a, float *restrict y, int64_t npix, int64_t c0,
                             int64_t c);

/* A 2-D convolution in blocked layouts. Output sizes are given; pads bottom
 * and right follow from them. */
typedef struct {
    int64_t n, c, h, w;      /* input: batch, channels (real), height, width */
    int64_t m, oh, ow;       /* output: channels (real), height, width */
    int kh, kw;              /* kernel */
    int sh, sw;              /* strides >= 1 */
    int dh, dw;              /* dilations >= 1 */
    int pt, pl;              /* pads top and left, >= 0 */
    int cblk;                /* input channel block: 16, or c when c < 16 */
    pz_act act;              /* fused activation, after bias and residual */
    int64_t r0, r1;          /* conv2d, Winograd: compute output rows [r0, r1) of every image
                              * (r1 == 0: all rows; a fused F-Block, rt/fuse.c). The
                              * other rows of y are not touched. */
    int64_t xb, xr, yb, yr;  /* Winograd row ranges only (r1 > 0): x holds input rows
                              * [xb, xb + xr) of each plane, y (and z) output rows
                              * [yb, yb + yr) (a fused run's row windows); xr 0: all */
    int64_t kc;              /* conv2d only: input blocks per chunk of the k-chunked
                              * order (0: the kernel's choice; see conv16c_plan.c's
                              * plan_chunks; the orders that take the output groups
                              * fastest have no chunks) */
} pz_conv16c_desc;

/* Y[m,n] = act(sum_k A[m,k] Bp[k,n] + beta * C[m*csm + n*csn] + Z[m*ldz + n]);
 * Z (a residual, may be NULL) must not overlap Y: the K slices keep their
 * partial sums in Y. Bp packed by
 * pz_gemm_pack_b (alpha folded in), or, with ldb > 0, B as it is (computed at
 * run time: packing it would cost a pass over B for each product). */
typedef struct {
    int64_t m, n, k;
    int64_t lda;             /* A row stride (A is m x k, row-major, rows lda apart) */
    int64_t ldb;             /* 0: bp is packed; else B row-major k x n, rows ldb apart */
    int64_t ldy;             /* Y row stride */
    const float *c;          /* may be NULL */
    int64_t csm, csn;        /* C strides in elements, 0 where broadcast */
    float beta;
    pz_act act;
    const float *z;          /* residual added after beta C, before act; may be NULL */
    int64_t ldz;             /* Z row stride */
} pz_gemm_desc;

/* ---- kernels: one signature per family, three ISAs -------------------------- */

typedef void (*pz_conv16c_fn)(const pz_conv16c_desc *d, const float *restrict x,
                              const float *restrict w, const float *restrict b,
                              const float *restrict z, float *restrict y, int ith, int nth);
typedef void (*pz_gemm_fn)(const pz_gemm_desc *g, const float *restrict a,
                           const float *restrict bp, float *restrict y, int ith, int nth);

/* Convolution, NCHWxc (d->cblk) in, NCHW16c out. w: packed conv W; b: packed
 * bias or NULL; z: residual NCHW16c like y, or NULL. */
void pz_f32_conv2d_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                   const float *restrict w, const float *restrict b,
                                   const float *restrict z, float *restrict y, int ith, int nth);
void pz_f32_conv2d_nchw16c__avx2(const pz_conv16c_desc *d, const float *restrict x,
                                 const float *restrict w, const float *restrict b,
                                 const float *restrict z, float *restrict y, int ith, int nth);
void pz_f32_conv2d_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                   const float *restrict w, const float *restrict b,
                                   const float *restrict z, float *restrict y, int ith, int nth);

/* Output rows the conv2d kernel of isa computes together for d: 2 where it
 * takes tiles spanning two rows (conv16c_drive.c: outputs at most rw2max wide, on
 * an ISA with such tiles, AVX-512), else 1 (AVX2 and the scalar kernel go
 * row by row). A row window [r0, r1) goes pair by pair from r0, so a fused
 * run (rt/fuse.c) cuts this conv's rows at multiples of it: pairs starting
 * elsewhere would sum some outputs in another order. */
int pz_conv16c_row_step(const pz_conv16c_desc *d, pz_isa isa);

/* Depthwise 3x3, NCHW16c in and out (d->c == d->m, d->cblk == 16). w: packed
 * dw W; b and z as for conv. Each ISA's kernel computes the units (image,
 * channel block, output row) [lo, hi) in that order (a pz_dw3x3_units_fn)
 * and the driver shares them (dwconv16c.c): by rows, each worker the same
 * rows of every block, or with whole_blocks by whole blocks (kernels that
 * compute a small plane at once); one worker takes every unit. */
typedef void (*pz_dw3x3_units_fn)(const pz_conv16c_desc *d, const float *x, const float *w,
                                  const float *b, const float *z, float *y, int64_t lo,
                                  int64_t hi);
void pz_dwconv3x3_drive(const pz_conv16c_desc *d, pz_dw3x3_units_fn units, pz_act16c_fn act16c,
                        int whole_blocks, const float *x, const float *w, const float *b,
                        const float *z, float *y, int ith, int nth);
void pz_f32_dwconv3x3_nchw16c__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                      const float *restrict w, const float *restrict b,
                                      const float *restrict z, float *restrict y, int ith,
                                      int nth);
void pz_f32_dwconv3x3_nchw16c__avx2(const pz_conv16c_desc *d, const float *restrict x,
                                    const float *restrict w, const float *restrict b,
                                    const float *restrict z, float *restrict y, int ith,
                                    int nth);
void pz_f32_dwconv3x3_nchw16c__avx512(const pz_conv16c_desc *d, const float *restrict x,
                                      const float *restrict w, const float *restrict b,
                                      const float *restrict z, float *restrict y, int ith,
                                      int nth);

/* GEMM with packed B: any m (m == 1 takes the GEMV path). Split over the
 * 32-column panels (over row tiles when there are fewer panels than workers).
 * With g->ldb > 0, bp is B unpacked (a run-time B, read in place by 32-column
 * panels); m == 1 then takes the tile path too. */
void pz_f32_gemm_packed__scalar(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth);
void pz_f32_gemm_packed__avx2(const pz_gemm_desc *g, const float *restrict a,
                              const float *restrict bp, float *restrict y, int ith, int nth);
void pz_f32_gemm_packed__avx512(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth);

/* The batched MatMul (numpy broadcasting, s) with B computed at run time:
 * one GEMM of fn per batch, B read in place (gemm/matmul.c). Split over
 * whole batches when nth divides them, else over parts of each, as many
 * for every worker. */
void pz_f32_matmul_gemm(const pz_matmul_shape *s, pz_gemm_fn fn, const float *restrict a,
                        const float *restrict b, float *restrict y, int ith, int nth);

/* GEMV: the m == 1 case (a FC layer at batch 1): y[n] = act(sum_k a[k] Bp[k,n]
 * + beta C[n*csn]); streams Bp once. Split over 32-column panels. */
void pz_f32_gemv_packed__scalar(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth);
void pz_f32_gemv_packed__avx2(const pz_gemm_desc *g, const float *restrict a,
                              const float *restrict bp, float *restrict y, int ith, int nth);
void pz_f32_gemv_packed__avx512(const pz_gemm_desc *g, const float *restrict a,
                                const float *restrict bp, float *restrict y, int ith, int nth);

/* Element-wise layers on NCHW16c (eltwise16c.c): N images of C channels and
 * hw pixels; split over 16-float vectors (BatchNorm: over (image, block)
 * planes). Each element is computed as the reference computes it; the lanes
 * of channels >= C are written as zeros. Binary: A, B and Y of one shape. */
void pz_f32_unary_nchw16c__scalar(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                                  const float *restrict x, float *restrict y, int ith, int nth);
/* AVX-512 (eltwise16c_avx512.c): Sigmoid, Swish, HardSigmoid, HardSwish,
 * GELU, Erf, Tanh, Exp, Log, Elu, Selu, Softplus, Mish in ZMM registers (within a
 * few ulps of the reference, not bitwise); AVX2 (eltwise16c_avx2.c): Tanh,
 * Exp, Log, Elu, Selu, Softplus, Mish, GELU, Erf, LeakyRelu, Sigmoid, Swish,
 * HardSigmoid and HardSwish in YMM registers; every other function through
 * the scalar twin. Each vector form is its ISA's fused epilogue's (act16c). */
void pz_f32_unary_nchw16c__avx512(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                                  const float *restrict x, float *restrict y, int ith, int nth);
void pz_f32_unary_nchw16c__avx2(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                                const float *restrict x, float *restrict y, int ith, int nth);
/* A fused epilogue activation over npix NCHW16c pixels of one block (first
 * channel c0; lanes of channels >= c written as zeros), in place: the conv
 * drivers' epilogue for the kinds that are not a clamp (act16c.c). */
void pz_f32_act16c__scalar(const pz_act *a, float *restrict y, int64_t npix, int64_t c0, int64_t c);
void pz_f32_act16c__avx2(const pz_act *a, float *restrict y, int64_t npix, int64_t c0, int64_t c);
void pz_f32_act16c__avx512(const pz_act *a, float *restrict y, int64_t npix, int64_t c0, int64_t c);
/* Binary on NCHW16c: A and B each either of Y's shape (bc 0) or one
 * vector per channel, [N, C, 1, 1] (bc 1) or [1, C, 1, 1] (bc 2), blocked
 * (a squeeze-excite scale), or one value, plain (bc 3: a scalar constant,
 * PaddleOCR's learnable scale and HardSwish's + 3, / 6). The AVX-512 kernel
 * (binary_avx512.c; takes: the function one it does) does Add, Sub, Mul,
 * Div, Max, Min, PRelu, Mod and Fmod with the scalar twin's bits, Pow within
 * 1 ulp of it (the plain kernel's forms, pz_f32_binary__avx512), the
 * integer-only functions through the twin; the AVX2 one (binary_avx2.c)
 * the same functions by the same forms in two 8-lane halves. takes: the
 * function one they do (binary_fast.c). */
void pz_f32_binary16c__scalar(const pz_binary_params *p, int64_t n, int64_t c, int64_t hw,
                              const float *restrict a, int abc, const float *restrict b, int bbc,
                              float *restrict y, int ith, int nth);
void pz_f32_binary16c__avx512(const pz_binary_params *p, int64_t n, int64_t c, int64_t hw,
                              const float *restrict a, int abc, const float *restrict b, int bbc,
                              float *restrict y, int ith, int nth);
void pz_f32_binary16c__avx2(const pz_binary_params *p, int64_t n, int64_t c, int64_t hw,
                            const float *restrict a, int abc, const float *restrict b, int bbc,
                            float *restrict y, int ith, int nth);
bool pz_f32_binary16c_vec_takes(pz_binary_func f);
/* CALL(F) with F the constant of each float function f may be (the
 * vector kernels' inlined plane or row, F decided outside its loop). */
#define PZ_BIN16C_SWITCH(f, CALL)                                                        \
    switch (f) {                                                                         \
    case PZ_BIN_ADD: CALL(PZ_BIN_ADD); break;                                            \
    case PZ_BIN_SUB: CALL(PZ_BIN_SUB); break;                                            \
    case PZ_BIN_MUL: CALL(PZ_BIN_MUL); break;                                            \
    case PZ_BIN_DIV: CALL(PZ_BIN_DIV); break;                                            \
    case PZ_BIN_POW: CALL(PZ_BIN_POW); break;                                            \
    case PZ_BIN_MAX: CALL(PZ_BIN_MAX); break;                                            \
    case PZ_BIN_MIN: CALL(PZ_BIN_MIN); break;                                            \
    case PZ_BIN_PRELU: CALL(PZ_BIN_PRELU); break;                                        \
    case PZ_BIN_FMOD: CALL(PZ_BIN_FMOD); break;                                          \
    default: CALL(PZ_BIN_MOD); break;                                                    \
    }
typedef void (*pz_binary16c_fn)(const pz_binary_params *p, int64_t n, int64_t c, int64_t hw,
                                const float *restrict a, int abc, const float *restrict b,
                                int bbc, float *restrict y, int ith, int nth);

/* Operand vector v (image img, block blk of cb) of a binary16c operand
 * (bc 3: its one value, which every lane reads). */
static inline const float *pz_bin16c_operand(const float *t, int bc, int64_t v, int64_t img,
                                             int64_t blk, int64_t cb)
{
    return bc == 3 ? t : bc == 0 ? t + v * 16 : t + ((bc == 1 ? img * cb : 0) + blk) * 16;
}
void pz_f32_batchnorm_nchw16c__scalar(const pz_bn_params *p, int64_t n, int64_t c, int64_t hw,
                                      const float *restrict x, const float *restrict scale,
                                      const float *restrict bias, const float *restrict mean,
                                      const float *restrict var, float *restrict y, int ith,
                                      int nth);
/* AVX-512: the same factors, x * a + b as one fused multiply-add (within a
 * rounding of the twin), then the activation. */
void pz_f32_batchnorm_nchw16c__avx512(const pz_bn_params *p, int64_t n, int64_t c, int64_t hw,
                                      const float *restrict x, const float *restrict scale,
                                      const float *restrict bias, const float *restrict mean,
                                      const float *restrict var, float *restrict y, int ith,
                                      int nth);
typedef void (*pz_batchnorm16c_fn)(const pz_bn_params *p, int64_t n, int64_t c, int64_t hw,
                                   const float *restrict x, const float *restrict scale,
                                   const float *restrict bias, const float *restrict mean,
                                   const float *restrict var, float *restrict y, int ith,
                                   int nth);

/* 2-D max or average pooling on NCHW16c (pool16c*.c): windows clipped to the
 * input, pads on all four sides, strides, dilations; global pooling is the
 * window of the whole input. Output sizes are given (floor or ceil mode).
 * Max: the largest tap (-inf for a window with none); average: the float sum
 * of the taps in row-major order divided by the count (of taps inside the
 * input, or with count_include_pad inside the padded input). The three ISAs
 * give the same bits. Lanes of channels >= C are written as zeros. Split
 * over output rows (image, block, oh). */
typedef struct {
    int64_t n, c, h, w;      /* input (channels real) */
    int64_t oh, ow;          /* output */
    int64_t kh, kw, sh, sw, dh, dw;
    int64_t pt, pl, pb, pr;  /* pads: top, left, bottom, right */
    int max;                 /* 1: max, 0: average */
    int count_include_pad;
} pz_pool16c_desc;
typedef void (*pz_pool16c_fn)(const pz_pool16c_desc *d, const float *restrict x,
                              float *restrict y, int ith, int nth);
/* 0, or -1 when it is not a 2-D pooling of rank-4 tensors. */
int pz_pool16c_init(pz_pool16c_desc *d, const pz_pool_params *p, const int64_t *xd,
                    const int64_t *yd);
void pz_f32_pool2d_nchw16c__scalar(const pz_pool16c_desc *d, const float *restrict x,
                                   float *restrict y, int ith, int nth);
void pz_f32_pool2d_nchw16c__avx2(const pz_pool16c_desc *d, const float *restrict x,
                                 float *restrict y, int ith, int nth);
void pz_f32_pool2d_nchw16c__avx512(const pz_pool16c_desc *d, const float *restrict x,
                                   float *restrict y, int ith, int nth);
/* Max pooling of uint8 (sgn 0) or int8 bytes on NCHW16c (maxpool16c_u8.c),
 * the same desc (d->max set); lanes >= C of any value. */
void pz_8_maxpool2d_nchw16c(const pz_pool16c_desc *d, int sgn, const void *x, void *y, int ith,
                            int nth);

/* A plain NCHW image of nc <= 4 channels into NHWC (the NCHWxc of cblk = nc
 * = C that the fast conv reads for an RGB input): np pixels from x (pixel p
 * of channel l at x[l*plane + p]) to y[p*nc + l]. pz_layout_convert runs it
 * for a net's input. Whole vectors permuted (the AVX-512 twin), or pixel
 * by pixel (the scalar one), not one lane at a time with stride nc as the
 * generic pz_f32_nchw_to_nchwxc goes, which costs a large share of a stem
 * conv's time (bench/RESULTS.md, 'layout: RGB interleave'). */
typedef void (*pz_interleave_fn)(const float *restrict x, int64_t plane, int nc, int64_t np,
                                 float *restrict y);
void pz_f32_interleave__scalar(const float *restrict x, int64_t plane, int nc, int64_t np,
                               float *restrict y);
void pz_f32_interleave__avx512(const float *restrict x, int64_t plane, int nc, int64_t np,
                               float *restrict y);

/* A block of channel rows to and from k lanes (layout/block_rows.h). */
typedef void (*pz_rows_to_block_fn)(const float *restrict src, int64_t cstride, int64_t nch,
                                    int64_t np, int k, float *restrict dst);
typedef void (*pz_block_to_rows_fn)(const float *restrict src, int k, int64_t nch, int64_t np,
                                    float *restrict dst, int64_t cstride);

/* Channel gather on NCHW16c (chgather16c.c): Y's channel c is channel
 * src_ch[c] of input src_in[c]. Concat, Slice and Gather along channels
 * whose parts do not fall on whole 16-channel blocks (ShuffleNetV2's channel
 * split, shuffle and concat: 58, 116, 232 channels) stay blocked with it.
 * Planned at compile time (pz_chgather_plan): each output block has a list
 * of sources, one per (input, input block) it draws from, with the lanes it
 * fills and the input lane of each. A run, for each output block and pixel:
 * each source's input vector permuted to the output's lanes and blended in;
 * lanes with no source (channels >= C) are zeros. Pure data movement: every
 * ISA gives the same bits. Split over (image, output block). */
typedef struct {
    int in;                  /* which input */
    int64_t blk;             /* its block (within one image) */
    uint32_t mask;           /* the output lanes it fills */
    int32_t idx[16];         /* for each of them, the input lane (others 0) */
} pz_chg_src;
typedef struct {
    int64_t n, hw, ob;       /* images, pixels per plane, output blocks */
    int nin;
    int64_t *in_cb;          /* blocks per image of each input */
    pz_chg_src *src;         /* sources of output block b: src[first[b] .. first[b + 1]) */
    int64_t *first;
} pz_chgather_desc;
/* Plans Y of c_out channels from nin inputs of c_in[i] channels (n images of
 * hw pixels): 0, or -1 out of memory or for a bad map. Free with
 * pz_chgather_free. */
int pz_chgather_plan(pz_chgather_desc *d, int64_t n, int64_t hw, int64_t c_out, int nin,
                     const int64_t *c_in, const int *src_in, const int64_t *src_ch);
void pz_chgather_free(pz_chgather_desc *d);
typedef void (*pz_chgather_fn)(const pz_chgather_desc *d, const float *const *x,
                               float *restrict y, int ith, int nth);
void pz_f32_chgather16c__scalar(const pz_chgather_desc *d, const float *const *x,
                                float *restrict y, int ith, int nth);
void pz_f32_chgather16c__avx512(const pz_chgather_desc *d, const float *const *x,
                                float *restrict y, int ith, int nth);

/* ---- dispatch (cpu.c) ---------------------------------------------------- */

typedef void (*pz_winograd_fn)(const pz_conv16c_desc *d, const float *restrict x,
                               const float *restrict u, const float *restrict b,
                               const float *restrict z, float *restrict y,
                               float *restrict scratch, int ith, int nth);

/* The block-sparse conv's row kernel (conv/spconv16c.h): y[j] = bias +
 * sum over blocks b of x[b][j*ps + ic] * w[b][ic][lane], j < npix. */
struct pz_sprow_args;
typedef void (*pz_sprow_fn)(const struct pz_sprow_args *a);

/* An f32 LayerNorm over rows of nn (kernels.h, pz_f32_layernorm__ref). */
typedef void (*pz_layernorm_fn)(int64_t outer, int64_t nn, const float *x, const float *scale,
                                int64_t ns, const float *b, int64_t nb, float eps, float *y,
                                float *mean, float *inv, int ith, int nth);

/* Float32 attention (attention/attention_f32*.c): Y = softmax(Q K^T * scale
 * + mask) V for a desc the ATTENTION layer fills, when the mask (if any) is
 * float32 with a contiguous last dim of T, and there is no past, softcap,
 * causal or padding cut-off, or extra output. scratch holds
 * pz_attn_scratch_floats(d) floats per worker (attention_f32.h). */
typedef void (*pz_attention_fn)(const pz_attention_desc *d, const float *q, const float *k,
                                const float *v, const float *mask, float *y, float *scratch,
                                int ith, int nth);
void pz_f32_attention__scalar(const pz_attention_desc *d, const float *q, const float *k,
                              const float *v, const float *mask, float *y, float *scratch,
                              int ith, int nth);
void pz_f32_attention__avx512(const pz_attention_desc *d, const float *q, const float *k,
                              const float *v, const float *mask, float *y, float *scratch,
                              int ith, int nth);

/* Softmax (log: LogSoftmax) of each of `rows` contiguous rows of n floats
 * (reduce/softmax_rows*.c), split over rows. */
typedef void (*pz_softmax_rows_fn)(int is_log, int64_t rows, int64_t n, const float *x,
                                   float *y, int ith, int nth);
void pz_f32_softmax_rows__scalar(int is_log, int64_t rows, int64_t n, const float *x, float *y,
                                 int ith, int nth);
void pz_f32_softmax_rows__avx512(int is_log, int64_t rows, int64_t n, const float *x, float *y,
                                 int ith, int nth);

/* COMPARE (Equal, Less, LessOrEqual, Greater, GreaterOrEqual) on float32,
 * int32 or int64, and any function on bool (And, Or, Xor, Equal), A and B
 * of one type, read through bc (pz_any_compare__ref's
 * arguments and bits): the plain-C twin (compare_fast.c), the AVX-512
 * one (compare_avx512.c) and the AVX2 one (compare_avx2.c); takes: whether
 * f and dtype are such. row: one segment, strides sa and sb (the vector
 * kernels' other strides). */
typedef void (*pz_compare_fn)(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                              const void *b, uint8_t *y, int ith, int nth);
bool pz_num_compare_fast_takes(pz_compare_func f, int dtype);
void pz_num_compare__fast(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                          const void *b, uint8_t *y, int ith, int nth);
void pz_num_compare__avx512(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                            const void *b, uint8_t *y, int ith, int nth);
void pz_num_compare__avx2(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                          const void *b, uint8_t *y, int ith, int nth);
typedef void (*pz_compare_row_fn)(pz_compare_func f, int dtype, const void *a, int64_t sa,
                                  const void *b, int64_t sb, uint8_t *y, int64_t n);
void pz_num_compare_row__fast(pz_compare_func f, int dtype, const void *a, int64_t sa,
                              const void *b, int64_t sb, uint8_t *y, int64_t n);
/* CALL(F) with F the constant of each ordering function f may be (the
 * vector kernels' inlined segment, F decided outside its loop). */
#define PZ_CMP_SWITCH(f, CALL)                                                           \
    switch (f) {                                                                         \
    case PZ_CMP_EQ: CALL(PZ_CMP_EQ); break;                                              \
    case PZ_CMP_LT: CALL(PZ_CMP_LT); break;                                              \
    case PZ_CMP_LE: CALL(PZ_CMP_LE); break;                                              \
    case PZ_CMP_GT: CALL(PZ_CMP_GT); break;                                              \
    default: CALL(PZ_CMP_GE); break;                                                     \
    }
/* The broadcast walk (pz_bcast_walk) with row for each segment. */
void pz_num_compare_walk(pz_compare_row_fn row, pz_compare_func f, int dtype, const pz_bcast *bc,
                         const void *a, const void *b, uint8_t *y, int ith, int nth);

/* The integer BINARY (int32, int64: Add, Sub, Mul, Div, Max, Min, Mod with
 * fmod 0 or 1, Pow; BitwiseAnd/Or/Xor on the 8- to 64-bit integer types,
 * Shl/Shr on the unsigned ones; no epilogue), pz_int_binary__ref's
 * arguments and bits: the
 * plain-C twin (int_binary_fast.c) and the AVX-512 one (int_binary_avx512.c).
 * row: one segment, strides sa and sb. */
typedef void (*pz_int_binary_fn)(const pz_binary_params *p, int dtype, const pz_bcast *bc,
                                 const void *a, const void *b, void *y, int ith, int nth);
bool pz_int_binary_fast_takes(const pz_binary_params *p, int dtype);
void pz_int_binary__fast(const pz_binary_params *p, int dtype, const pz_bcast *bc,
                         const void *a, const void *b, void *y, int ith, int nth);
void pz_int_binary__avx512(const pz_binary_params *p, int dtype, const pz_bcast *bc,
                           const void *a, const void *b, void *y, int ith, int nth);
typedef void (*pz_int_binary_row_fn)(pz_binary_func f, int dtype, const void *a, int64_t sa,
                                     const void *b, int64_t sb, void *y, int64_t n);
void pz_int_binary_row__fast(pz_binary_func f, int dtype, const void *a, int64_t sa,
                             const void *b, int64_t sb, void *y, int64_t n);
/* The broadcast walk (pz_bcast_walk) with row for each segment. */
void pz_int_binary_walk(pz_int_binary_row_fn row, const pz_binary_params *p, int dtype,
                        const pz_bcast *bc, const void *a, const void *b, void *y, int ith,
                        int nth);

/* The float32 BINARY's Pow, Max, Min, PRelu, Mod, Fmod in ZMM registers
 * (binary_avx512.c: its bits and Pow's bound) or YMM registers (binary_avx2.c,
 * the same forms and bits), pz_f32_binary__ref's arguments; takes
 * (binary_fast.c): the function one of these, each operand contiguous or
 * one value along Y's last axis (a dynamic region asks at each run). */
typedef void (*pz_f32_binary_fn)(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                                 const float *b, float *y, int ith, int nth);
bool pz_f32_binary_vec_takes(const pz_binary_params *p, const pz_bcast *bc);
void pz_f32_binary__avx512(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                           const float *b, float *y, int ith, int nth);
void pz_f32_binary__avx2(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                         const float *b, float *y, int ith, int nth);

/* BitwiseNot (LOGIC_UNARY's PZ_LU_BITNOT) over worker ith's share of n
 * elements of an 8- to 64-bit integer type tx (takes: whether it is one):
 * the plain-C twin (logic_unary_fast.c) of pz_any_logic_unary__ref. */
bool pz_bitnot_fast_takes(int tx);
void pz_bitnot__fast(int tx, const void *x, void *y, int64_t n, int ith, int nth);

/* One time step of one direction of a recurrent layer (rnn/rnn_*.c) for
 * the hidden units of 16-unit blocks [blk0, blk1), every batch row: the
 * recurrent product h R^T (R packed by pz_rnn_pack_r) added to the input
 * projection xw[b] (X W^T + biases, that row's gates in ONNX order, H
 * apart), then the gates in the same pass. h, c, hn, cn, zt, rh are
 * [batch][hpad]. GRU with linear_before_reset 0 takes two phases: 0 writes
 * z to zt and r*h to rh, 1 (after all units of rh are written) the rest.
 * Lanes of units >= H hold no meaning. */
typedef struct {
    int cell;                 /* pz_rnn_cell */
    int phase;                /* GRU linear_before_reset 0: 0 or 1; else 0 */
    int lbr;                  /* GRU linear_before_reset */
    int64_t hidden, batch, hpad;
    const float *rp;          /* R packed: pz_rnn_pack_r (rnn/rnn.h: pz_rnn_panel) */
    const float *rbh;         /* GRU linear_before_reset 1: Rbh [hpad], else NULL */
    const float *pp;          /* LSTM peepholes [3][hpad] (i, o, f), or NULL */
    int fn[3];                /* this direction's activations (pz_rnn_act_func) */
    float alpha[3], beta[3];
    float clip;               /* < 0: none */
    int input_forget;
    int plain;                /* default activations and no clip: the vector gates */
} pz_rnn_step_desc;
typedef void (*pz_rnn_step_fn)(const pz_rnn_step_desc *d, const float *const *xw,
                               const float *h, const float *c, float *hn, float *cn, float *zt,
                               float *rh, int64_t blk0, int64_t blk1);
void pz_f32_rnn_step__scalar(const pz_rnn_step_desc *d, const float *const *xw, const float *h,
                             const float *c, float *hn, float *cn, float *zt, float *rh,
                             int64_t blk0, int64_t blk1);
void pz_f32_rnn_step__avx2(const pz_rnn_step_desc *d, const float *const *xw, const float *h,
                           const float *c, float *hn, float *cn, float *zt, float *rh,
                           int64_t blk0, int64_t blk1);
void pz_f32_rnn_step__avx512(const pz_rnn_step_desc *d, const float *const *xw, const float *h,
                             const float *c, float *hn, float *cn, float *zt, float *rh,
                             int64_t blk0, int64_t blk1);
/* One direction's R [gates*H][H] -> 16-unit panels in pairs of blocks
 * (rnn/rnn.h: pz_rnn_panel), zero padded. */
int64_t pz_rnn_packed_r_size(int64_t hidden, int gates);
void pz_rnn_pack_r(int64_t hidden, int gates, const float *restrict r, float *restrict rp);

struct pz_conv16c_ukset;   /* the direct conv's micro-kernels (conv/conv16c.h) */

/* One ISA's kernels, a table per ISA (cpu.c): the one place that says which
 * kernel each family runs on each ISA. An op's prepare takes its kernel from
 * the table of its layer's ISA; nothing else switches on the ISA. */
typedef struct {
    pz_isa isa;              /* what these kernels use */
    const char *name;        /* "avx512", "avx2", "scalar" */
    pz_conv16c_fn conv2d;
    pz_conv16c_fn dwconv3x3;
    pz_gemm_fn gemm;
    pz_gemm_fn gemv;
    pz_pool16c_fn pool2d;
    pz_interleave_fn interleave;   /* AVX2 has none of its own: the scalar one */
    pz_rows_to_block_fn rows_to_block;   /* AVX2: the scalar one */
    pz_block_to_rows_fn block_to_rows;
    /* element-wise functions on NCHW16c (AVX2: unary16c alone, the others scalar) */
    void (*unary16c)(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                     const float *restrict x, float *restrict y, int ith, int nth);
    pz_binary16c_fn binary16c;
    pz_batchnorm16c_fn batchnorm16c;
    pz_chgather_fn chgather16c;    /* AVX2 has none of its own */
    /* the direct conv's micro-kernels, driven by conv16c_drive.c (NULL: the scalar
     * twin, which conv2d is) */
    const struct pz_conv16c_ukset *conv16c;
    pz_winograd_fn winograd;       /* AVX2 has none of its own */
    pz_conv16c_fn conv1x1_8x2;     /* AVX-512 only (conv8x2.h), else NULL */
    pz_conv16c_fn dwconvk;         /* any-size depthwise (dwconvk16c.h) */
    pz_layernorm_fn layernorm;
    pz_compare_fn compare;         /* float32, int32, int64 comparisons */
    pz_int_binary_fn int_binary;   /* integer arithmetic, bitwise, shifts */
    pz_f32_binary_fn f32_binary;   /* Pow, Max, Min, PRelu, Mod, Fmod (AVX2, AVX-512; else NULL) */
    pz_rnn_step_fn rnn_step;       /* one step of a recurrent layer */
    pz_attention_fn attention;     /* float32 attention (AVX2: the scalar twin) */
    pz_softmax_rows_fn softmax_rows;   /* softmax over contiguous rows */
    pz_sprow_fn sprow;             /* block-sparse conv rows (AVX2: the scalar twin) */
    pz_act16c_fn act16c;           /* an epilogue activation, not a clamp (act16c.c) */
} pz_fast_kernels;

/* The kernels for an ISA (as pz_cpu_isa() says; PZ_ISA_REF and
 * PZ_ISA_SCALAR give the scalar twins). A PZ_SCALAR=1 build has only the scalar ones and returns them for
 * any isa. Never NULL; the table is constant. */
const pz_fast_kernels *pz_fast_kernels_for(pz_isa isa);

/* ---- descriptors from the runtime's params, layouts, packing (pack.c) ------ */

/* Fills d for a CONV with params p, X dims xd and Y dims yd (rank 4). Returns
 * 0, or -1 when the fast conv does not take it (not 2-D, group != 1). cblk is
 * c for c <= 4 (NHWC input), else 16. */
int pz_conv16c_init(pz_conv16c_desc *d, const pz_conv_params *p, const int64_t *xd,
                    const int64_t *yd);
/* The same for a depthwise 3x3 (group == C == M, dilation 1, any stride and
 * pads); -1 when it is not one. */
int pz_dwconv16c_init(pz_conv16c_desc *d, const pz_conv_params *p, const int64_t *xd,
                      const int64_t *yd);

/* A 1x1 conv with a stride as a subsample and a flat 1x1 conv
 * (subsample16c.c): 1 when the rule takes d, with *flat the stride-1 conv
 * over the subsampled input (the same packed weights); 0 for the strided
 * kernel. The A/B switch (run options' subsample, PZ_SUBSAMPLE) is the conv
 * op's: it asks only when on. */
int pz_conv16c_subsample_plan(const pz_conv16c_desc *d, pz_conv16c_desc *flat);
/* Floats of the subsampled input, and the copy: xs[n][cb][oh][ow][16] =
 * x[n][cb][oh*sh][ow*sw][16] (NCHW16c both). */
int64_t pz_subsample16c_size(const pz_conv16c_desc *d);
void pz_subsample16c(const pz_conv16c_desc *d, const float *restrict x, float *restrict xs);

/* Elements (floats) of a tensor in NCHWxc. */
int64_t pz_nchwxc_size(int64_t n, int64_t c, int64_t h, int64_t w, int cblk);

/* Plain NCHW <-> NCHWxc (block cblk, padding channels written as zeros).
 * Split over (n, channel block, h) rows. */
void pz_f32_nchw_to_nchwxc(int64_t n, int64_t c, int64_t h, int64_t w, int cblk,
                           const float *restrict x, float *restrict y, int ith, int nth);
void pz_f32_nchwxc_to_nchw(int64_t n, int64_t c, int64_t h, int64_t w, int cblk,
                           const float *restrict x, float *restrict y, int ith, int nth);

/* Conv weights W [M][C][KH][KW] (plain ONNX) -> packed (see the layout above). */
int64_t pz_conv16c_weights_size(const pz_conv16c_desc *d);
void pz_conv16c_pack_weights(const pz_conv16c_desc *d, const float *restrict w,
                             float *restrict wp);

/* Depthwise weights W [C][1][3][3] -> [ceil(C/16)][3][3][16]. */
int64_t pz_dw16c_weights_size(int64_t c);
void pz_dw16c_pack_weights(int64_t c, const float *restrict w, float *restrict wp);

/* Bias of m channels (b may be NULL: zeros) -> ceil(m/16)*16 floats. */
int64_t pz_pack_bias16_size(int64_t m);
void pz_pack_bias16(int64_t m, const float *restrict b, float *restrict bp);

/* B' (K x N; B is K x N, or N x K when trans_b) times alpha -> [ceil(N/32)][K][32]. */
int64_t pz_gemm_packed_b_size(int64_t k, int64_t n);
void pz_gemm_pack_b(int64_t k, int64_t n, const float *restrict b, int trans_b, float alpha,
                    float *restrict bp);

/* ---- shared by the kernel files --------------------------------------------- */

#define PZ_GEMM_NR 32   /* columns per packed panel */

/* acc[0..16) + z, activation, lanes of channels >= m set to zero; to y. */
static inline void pz_f32_finish16(const pz_act *act, int64_t c0, int64_t m, float *acc,
                                   const float *z, float *y)
{
    for (int l = 0; l < 16; l++) {
        float v = acc[l] + (z ? z[l] : 0.0f);
        y[l] = c0 + l < m ? pz_act_c_f32(act, v, c0 + l) : 0.0f;
    }
}

/* The valid range [*lo, *hi) of output positions o whose input o*s - p + k*d
 * lies in [0, in), clamped to [0, out). */
static inline void pz_conv_valid_range(int64_t in, int64_t out, int64_t s, int64_t p,
                                       int64_t kd, int64_t *lo, int64_t *hi)
{
    int64_t a = pz_ceil_div(p - kd, s), b = pz_ceil_div(in + p - kd, s);
    *lo = a < 0 ? 0 : a > out ? out : a;
    *hi = b > out ? out : b < *lo ? *lo : b;
}

#endif
