/* pz_rt.h - the Paleozoic runtime: our operator-level SDK (the papers' CNML).
 *
 * Everything a generated program calls, and what `paleozoic run` and the
 * conformance runner execute in-process. It does not depend on the compiler
 * (no ONNX, no IR): a network is described to it layer by layer.
 *
 * A network (pz_net) is built in three phases, like the paper's Fig. 11/13:
 *
 *   pz_net *net = pz_net_new("resnet18");
 *   // 1. tensors and layers, in topological order
 *   int x = pz_net_input(net, "input", PZ_F32, 4, (int64_t[]){1, 3, 224, 224});
 *   int w = pz_net_const(net, "conv1.weight", PZ_F32, 4, (int64_t[]){64, 3, 7, 7}, wdata);
 *   int y = pz_net_tensor(net, "conv1_out", PZ_F32, 4, (int64_t[]){1, 64, 112, 112});
 *   pz_conv_params cp = {...};
 *   pz_net_layer(net, "conv1", PZ_OP_CONV, &cp, sizeof cp, (int[]){x, w, -1}, 3, &y, 1);
 *   pz_net_output(net, y);
 *   // 2. blocks and knobs (optional: default is one block per layer, MP 1)
 *   pz_net_block(net, 0, 5, 2);        // layers 0..4 fused, 2 cores
 *   // 3. compile (shapes, arena by liveness, kernel choice, weight packing)
 *   if (pz_net_compile(net, 2, NULL, err, sizeof err)) ...   // NULL: default run options
 *   pz_net_run(net, inputs, outputs);  // no allocation in here
 *   pz_net_free(net);
 *
 * Building calls do not fail loudly: the first error (an unknown tensor id,
 * params of the wrong size, a tensor written twice, ...) is kept and
 * pz_net_compile reports it. Messages name the layer and its op kind:
 * `layer "conv1" (CONV): W [64,3,7,7], ...`.
 *
 * Memory: one arena planned at compile, buffers reused by liveness. Graph
 * inputs are read in place from the caller's buffers (not copied); graph
 * outputs are copied out of the arena at the end of pz_net_run.
 *
 * Ownership: constant data passed to pz_net_const is borrowed and must outlive
 * the net (the generated program keeps NAME.weights mapped); everything else
 * is owned by the net. Two nets never share mutable state, so two instances
 * can run at once.
 */
#ifndef PZ_RT_H
#define PZ_RT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pz_dtypes.h"
#include "pz_op_kinds.h"

#define PZ_MAX_RANK 8
#define PZ_MAX_IO 32
#define PZ_MAX_SPATIAL 3

/* Element types: the numbering of onnx.TensorProto.DataType. The small types
 * (17 to 26) are storage types that only CAST and the data-movement layers
 * handle; each is held one element per byte: the 8-bit floats as their codes,
 * float4e2m1 as its 4-bit code, int4/int2 sign-extended to int8, uint4/uint2
 * as uint8 (files pack the 4- and 2-bit types; memory does not). */
#define PZ_DTYPE_ENUM(NAME, value, bytes, name) PZ_##NAME = value,
typedef enum { PZ_DTYPES(PZ_DTYPE_ENUM) } pz_dtype;   /* the list: pz_dtypes.h */
#undef PZ_DTYPE_ENUM

size_t pz_dtype_size(int dt);          /* 0 for a type the runtime does not hold */
const char *pz_dtype_name(int dt);     /* "float32", "int64", ... */

typedef struct {
    int dtype;
    int rank;
    int64_t dims[PZ_MAX_RANK];
    void *data;
} pz_tensor;

int64_t pz_numel(const pz_tensor *t);

/* ---- thread pool: pinned workers, fork-join ----------------------------- */

typedef struct pz_pool pz_pool;
typedef void (*pz_task_fn)(void *ctx, int ith, int nth);

/* nthreads workers in all, the caller counts as worker 0; workers 1.. are
 * threads pinned to the allowed CPUs (worker i to the i-th one after the
 * CPU the caller is on when the pool starts, round robin).
 * Waiting spins for PZ_SPIN_US microseconds (environment, default 200)
 * before sleeping; PZ_PIN=0 turns pinning off. NULL if out of memory. */
pz_pool *pz_pool_new(int nthreads);
void pz_pool_free(pz_pool *p);
int pz_pool_size(const pz_pool *p);
/* Runs fn(ctx, ith, nth) for ith in [0, nth) on nth workers and waits.
 * nth == 1 runs inline on the caller. nth <= pz_pool_size() (larger is
 * clamped). Not reentrant: fn must not call pz_pool_run on the same pool. */
void pz_pool_run(pz_pool *p, int nth, pz_task_fn fn, void *ctx);

/* ---- epilogues fused into a producing kernel ---------------------------- */

/* GELU is x/2 (1 + erf(x / sqrt 2)), or with lo 1 the tanh form. GELU and
 * the kinds from LEAKY_RELU on (the unary functions of the same names; SWISH
 * x sigmoid(alpha x), HARD_SWISH x min(max(x/6 + 1/2, 0), 1)): CONV, GEMM
 * and MATMUL take them, the other layers refuse all but RELU and CLIP.
 * PRELU (x < 0 ? slope[c] x : x) CONV, GEMM and MATMUL take, c the output
 * channel (CONV) or column, Y's last axis (GEMM, MATMUL): its slopes are
 * the layer's input 4, which prepare points slope at (never set in params:
 * a kernel's copy of the act carries it).
 * SELECT is ONNX's Where(x cmp t, A, B) (the passes fuse it after a CONV,
 * GEMM or MATMUL: piecewise activations as exporters write them): cmp a
 * pz_compare_func from EQ to GE, compared as COMPARE does (NaN false); A is
 * lo * x, or the constant lo where sel bit 0 is set; B is hi * x, or hi
 * where bit 1 is (x itself is 1 * x: the same bits).
 * ELU (alpha = lo), SELU (alpha, gamma = lo, hi), SOFTPLUS, MISH: the unary
 * reference's expressions lane by lane (libm: the unfused layer's bits at
 * every ISA); CONV, GEMM and MATMUL take them. */
typedef enum {
    PZ_ACT_NONE, PZ_ACT_RELU, PZ_ACT_CLIP, PZ_ACT_GELU, PZ_ACT_LEAKY_RELU, PZ_ACT_SIGMOID,
    PZ_ACT_SWISH, PZ_ACT_HARD_SIGMOID, PZ_ACT_HARD_SWISH, PZ_ACT_TANH, PZ_ACT_PRELU,
    PZ_ACT_SELECT, PZ_ACT_ELU, PZ_ACT_SELU, PZ_ACT_SOFTPLUS, PZ_ACT_MISH, PZ_ACT_COUNT_
} pz_act_kind;
typedef struct {
    pz_act_kind kind;
    float lo, hi;   /* CLIP bounds; LEAKY_RELU, SWISH, ELU alpha = lo; GELU lo 1: the tanh form;
                     * HARD_SIGMOID alpha, beta, SELU alpha, gamma = lo, hi */
    const float *slope;   /* PRELU: one per output channel or column (run time only) */
    float t;              /* SELECT: the threshold */
    int cmp, sel;         /* SELECT: the comparison (pz_compare_func); the constant branches */
} pz_act;

/* ---- operators ----------------------------------------------------------
 * The compiler resolves ONNX attributes (auto_pad, negative axes, opset
 * differences, broadcasting shapes) before it calls the runtime, so these
 * params are plain and final. Tensors are NCHW (plain row-major) at the API;
 * a fast kernel may keep its own blocked layout inside a block. */

/* The kinds: the list PZ_OP_KINDS (pz_op_kinds.h). A kind's inputs, outputs
 * and params are in its descriptor, src/rt/ops/<kind>.c. */
typedef enum {
#define PZ_OPK_ENUM(KIND, sym) PZ_OP_##KIND,
    PZ_OP_KINDS(PZ_OPK_ENUM)
#undef PZ_OPK_ENUM
    PZ_OP_COUNT_
} pz_op_kind;

const char *pz_op_name(pz_op_kind kind);   /* "CONV", ... */

/* A conv layer's algorithm (a per-layer knob the optimizer sets; schedule
 * files state it): AUTO lets the runtime choose by its rule (see
 * src/rt/ops/conv.c), DIRECT forces direct convolution, WINOGRAD asks for
 * Winograd F(4x4, 3x3) where the layer and the CPU allow it (3x3, stride 1,
 * dilation 1, group 1, AVX-512), else direct. SPARSE, SPARSE_WINOGRAD: the
 * sparsity knob's block-sparse direct or Winograd kernel (with .sparsity). */
typedef enum {
    PZ_CONV_AUTO, PZ_CONV_DIRECT, PZ_CONV_WINOGRAD, PZ_CONV_SPARSE, PZ_CONV_SPARSE_WINOGRAD
} pz_conv_algo;

typedef struct {
    int nsp;                          /* spatial dims, 1 to 3 */
    int64_t group;
    int64_t kernel[PZ_MAX_SPATIAL];
    int64_t stride[PZ_MAX_SPATIAL];
    int64_t dilation[PZ_MAX_SPATIAL];
    int64_t pad_begin[PZ_MAX_SPATIAL];
    int64_t pad_end[PZ_MAX_SPATIAL];
    pz_act act;                       /* fused epilogue */
    pz_conv_algo algo;                /* the algorithm knob (the optimizer's choice) */
    float sparsity;                   /* the sparsity knob: 0 dense, else the block-sparse
                                       * kernel (the ratio pruned, -1: the own zeros) */
} pz_conv_params;

typedef enum { PZ_POOL_MAX, PZ_POOL_AVG } pz_pool_kind;
typedef struct {
    pz_pool_kind kind;
    int nsp;
    int64_t kernel[PZ_MAX_SPATIAL];   /* global pooling: kernel = input spatial size */
    int64_t stride[PZ_MAX_SPATIAL];
    int64_t dilation[PZ_MAX_SPATIAL];
    int64_t pad_begin[PZ_MAX_SPATIAL];
    int64_t pad_end[PZ_MAX_SPATIAL];
    int count_include_pad;            /* AVG: divide by the full window */
    int storage_order;                /* MAX Indices: 0 row-major, 1 column-major */
} pz_pool_params;

typedef struct {
    float epsilon;
    /* training (ONNX training_mode=1): normalise with the batch's own mean
     * and (population) variance, and write running_mean = mean * momentum +
     * batch_mean * (1 - momentum) and running_var likewise as outputs 1, 2. */
    int training;
    float momentum;
    pz_act act;                       /* inference: fused after it (DenseNet's BN -> ReLU) */
} pz_bn_params;

typedef enum {
#define PZ_UN_ENUM(F) PZ_UN_##F,
    PZ_UNARY_FUNCS(PZ_UN_ENUM)
#undef PZ_UN_ENUM
    PZ_UN_COUNT_
} pz_unary_func;
typedef struct {
    pz_unary_func func;
    float alpha, beta, gamma;         /* LeakyRelu/Elu alpha; HardSigmoid alpha, beta; Selu alpha, gamma; CLIP lo=alpha hi=beta; GELU alpha 1: the tanh form; CELU, THRESHOLDED_RELU alpha; SHRINK lambd = alpha, bias = beta */
} pz_unary_params;

typedef enum {
    PZ_BIN_ADD, PZ_BIN_SUB, PZ_BIN_MUL, PZ_BIN_DIV, PZ_BIN_POW, PZ_BIN_MAX, PZ_BIN_MIN,
    PZ_BIN_PRELU,
    /* integers only: bitwise; shifts of unsigned types (by >= the width: 0) */
    PZ_BIN_BITAND, PZ_BIN_BITOR, PZ_BIN_BITXOR, PZ_BIN_SHL, PZ_BIN_SHR,
    /* ONNX Mod: MOD takes the divisor's sign (Python's %), FMOD the
     * dividend's (C's fmod and %); an integer x mod 0 is 0 */
    PZ_BIN_MOD, PZ_BIN_FMOD,
    PZ_BIN_COUNT_
} pz_binary_func;
typedef struct {
    pz_binary_func func;
    pz_act act;                       /* fused epilogue (e.g. residual Add + ReLU) */
} pz_binary_params;

typedef struct {
    int trans_a, trans_b;
    float alpha, beta;
    pz_act act;
    float sparsity;                   /* the sparsity knob (as pz_conv_params'; spgemm.h) */
} pz_gemm_params;

typedef struct {
    pz_act act;                       /* fused epilogue, after the bias C (constant 2-D B only) */
    float sparsity;                   /* the sparsity knob (constant 2-D B; spgemm.h) */
} pz_matmul_params;

typedef struct {
    int axis;                         /* normalised */
    int log;                          /* LogSoftmax */
    int coerce_2d;                    /* opset < 13: flatten to [prod(<axis), prod(>=axis)] */
} pz_softmax_params;

typedef struct {
    int64_t size;
    float alpha, beta, bias;
} pz_lrn_params;

/* The kind REDUCE_MEAN computes every ONNX reduction (the name is its first
 * one's): func 0 is the mean, so programs generated before func keep theirs.
 * Empty sets give what ONNX defines: Sum 0, Prod 1, Max the type's lowest
 * value (-inf), Min its highest, LogSum and LogSumExp -inf, Mean NaN. */
typedef enum {
    PZ_RED_MEAN, PZ_RED_SUM, PZ_RED_MAX, PZ_RED_MIN, PZ_RED_PROD, PZ_RED_L1, PZ_RED_L2,
    PZ_RED_LOG_SUM, PZ_RED_LOG_SUM_EXP, PZ_RED_SUM_SQUARE, PZ_RED_COUNT_
} pz_reduce_func;
typedef struct {
    unsigned axes_mask;               /* bit i: reduce axis i */
    pz_reduce_func func;
} pz_reduce_params;

typedef struct {
    int axis;                         /* normalised: over dims [axis, rank) */
    float epsilon;
} pz_layernorm_params;

typedef struct {
    int perm[PZ_MAX_RANK];
} pz_transpose_params;

typedef struct {
    int axis;                         /* normalised */
} pz_axis_params;

typedef struct {
    int64_t start[PZ_MAX_RANK];       /* per axis, clamped and final */
    int64_t step[PZ_MAX_RANK];        /* per axis (1 for untouched axes) */
    /* per axis as the model gives them (0, INT64_MAX, 1 untouched): a
     * dynamic region clamps them to the run's dims (pz_slice_axis) */
    int64_t given_start[PZ_MAX_RANK], given_end[PZ_MAX_RANK], given_step[PZ_MAX_RANK];
} pz_slice_params;
/* ONNX Slice on an axis of d elements, step s != 0: the first element and
 * the count taken from start b to end e (negatives from the end, clamped). */
void pz_slice_axis(int64_t d, int64_t b, int64_t e, int64_t s, int64_t *start, int64_t *len);

typedef enum { PZ_PAD_CONSTANT, PZ_PAD_REFLECT, PZ_PAD_EDGE, PZ_PAD_WRAP } pz_pad_mode;
typedef struct {
    pz_pad_mode mode;
    int64_t begin[PZ_MAX_RANK];       /* may be negative (crop) */
    double value;
    int n_rt_axes, rt_axes[PZ_MAX_RANK];   /* pads read at run time (input 1): their axes */
} pz_pad_params;

typedef enum { PZ_RESIZE_NEAREST, PZ_RESIZE_LINEAR, PZ_RESIZE_CUBIC } pz_resize_mode;
typedef enum {
    PZ_CT_HALF_PIXEL, PZ_CT_ASYMMETRIC, PZ_CT_PYTORCH_HALF_PIXEL, PZ_CT_ALIGN_CORNERS,
    PZ_CT_TF_CROP_AND_RESIZE, PZ_CT_HALF_PIXEL_SYMMETRIC
} pz_resize_coord;
typedef enum {
    PZ_NEAREST_ROUND_PREFER_FLOOR, PZ_NEAREST_ROUND_PREFER_CEIL, PZ_NEAREST_FLOOR, PZ_NEAREST_CEIL
} pz_resize_nearest;
typedef struct {
    pz_resize_mode mode;
    pz_resize_coord coord;
    pz_resize_nearest nearest;
    float cubic_coeff_a;
    int exclude_outside;
    float extrapolation_value;
    float scale[PZ_MAX_RANK];         /* output/input per axis, as the op defines it */
    float roi_start[PZ_MAX_RANK], roi_end[PZ_MAX_RANK];   /* tf_crop_and_resize */
    int antialias;                    /* linear/cubic: widen the filter by 1/scale when downsampling */
    /* inputs roi, scales, sizes (1-3) read at run time (rt/ops/resize.c): the
     * axes they cover, sizes' keep_aspect_ratio_policy (0 stretch, 1 not_larger,
     * 2 not_smaller) */
    int n_rt_axes, rt_axes[PZ_MAX_RANK], rt_policy;
} pz_resize_params;

/* CAST to a float8 type: saturate (the default) clamps out-of-range values
 * and infinities to the largest finite value; nosat sends them to inf or NaN.
 * To float8e8m0: how a value between two powers of two rounds. */
typedef enum { PZ_ROUND_UP, PZ_ROUND_DOWN, PZ_ROUND_NEAREST } pz_round_mode;
typedef struct {
    int nosat;                        /* ONNX saturate=0 */
    pz_round_mode round;              /* ONNX round_mode (float8e8m0 only) */
} pz_cast_params;

/* ---- params: comparison, logic, bitwise, Mod, Sum, Mean ---- */

/* COMPARE: Y (bool) = A op B, broadcast (numpy). The comparisons take A and B
 * of one numeric type (EQ also bool) and compare exactly (integers as
 * integers, floats as themselves: NaN compares false, unequal); AND, OR, XOR
 * take bool. */
typedef enum {
    PZ_CMP_EQ, PZ_CMP_LT, PZ_CMP_LE, PZ_CMP_GT, PZ_CMP_GE, PZ_CMP_AND, PZ_CMP_OR, PZ_CMP_XOR,
    PZ_CMP_COUNT_
} pz_compare_func;
typedef struct {
    pz_compare_func func;
} pz_compare_params;

/* LOGIC_UNARY: NOT (bool -> bool), BITNOT (an integer type -> itself, every
 * bit flipped), ISNAN and ISINF (a float type -> bool; ISINF tests +inf when
 * detect_pos, -inf when detect_neg). */
typedef enum {
    PZ_LU_NOT, PZ_LU_BITNOT, PZ_LU_ISNAN, PZ_LU_ISINF, PZ_LU_COUNT_
} pz_logic_unary_func;
typedef struct {
    pz_logic_unary_func func;
    int detect_pos, detect_neg;       /* ISINF */
} pz_logic_unary_params;

/* SUM: Y = X0 + X1 + ... (left to right), each input broadcast (numpy) to
 * Y's shape, all of one float type; mean: then divided by the count. */
typedef struct {
    int mean;
} pz_sum_params;

/* ---- params: element-wise math ---- */

/* ---- params: reductions, ArgMax/ArgMin, Hardmax, CumSum/CumProd ---- */

/* ARG: ArgMax/ArgMin (Y int64: the index along axis, keepdims only in Y's
 * shape; ties: the first index, the last with select_last) and Hardmax (Y
 * of X's type: 1 at the first maximum along axis, 0 elsewhere). coerce_2d
 * (Hardmax before opset 13): X viewed as [prod(dims[:axis]), prod(dims[axis:])]. */
typedef enum { PZ_ARG_MAX, PZ_ARG_MIN, PZ_ARG_HARDMAX, PZ_ARG_COUNT_ } pz_arg_func;
typedef struct {
    pz_arg_func func;
    int axis;                         /* normalised */
    int select_last;
    int coerce_2d;
} pz_arg_params;

/* CUMULATIVE: CumSum, CumProd along axis. The axis is final here, or, when
 * the layer has a second input (a run-time scalar), read from it at run time
 * (an axis out of range there gives zeros: run cannot report). */
typedef enum { PZ_CUM_SUM, PZ_CUM_PROD, PZ_CUM_COUNT_ } pz_cum_func;
typedef struct {
    pz_cum_func func;
    int axis;                         /* normalised (unused with the axis input) */
    int exclusive;                    /* y[k] leaves out x[k] */
    int reverse;                      /* from the end of the axis */
} pz_cum_params;

/* LPNORM: LpNormalization, Y = X / ||X||_p along axis (p 1 or 2). */
typedef struct {
    int axis;                         /* normalised */
    int p;
} pz_lpnorm_params;

/* ---- params: indexing and shaping ---- */

/* VIEW: Y is X read through a strided view that prepare plans from the
 * shapes and these params (rt/ops/view.c). */
typedef enum {
    PZ_VIEW_EXPAND,          /* X broadcast (numpy) to Y's shape */
    PZ_VIEW_TILE,            /* Y = X repeated dims(Y) / dims(X) times per axis */
    PZ_VIEW_DEPTH_TO_SPACE,  /* [N,C,H,W] -> [N,C/b^2,H*b,W*b]; crd: CRD order, else DCR */
    PZ_VIEW_SPACE_TO_DEPTH,  /* [N,C,H,W] -> [N,C*b^2,H/b,W/b] */
    PZ_VIEW_CROP_PAD,        /* Y[c] = X[c + start] where inside X, else 0 */
} pz_view_func;
typedef struct {
    pz_view_func func;
    int blocksize;                    /* DEPTH_TO_SPACE, SPACE_TO_DEPTH */
    int crd;                          /* DEPTH_TO_SPACE: 1 CRD, 0 DCR */
    int64_t start[PZ_MAX_RANK];       /* CROP_PAD: X coordinate of Y's origin, per axis */
    int rt_sizes;                     /* CROP_PAD, sizes read at run time (input 1): then
                                         start[a] is 1 + the entry sizing axis a, 0 none */
    int bounded;                      /* EXPAND of a run-time shape planned at its bound */
} pz_view_params;

/* TRILU: in X, k? (int64 scalar, read at run time; absent: 0). Keeps
 * X[..., i, j] where j - i >= k (upper) or j - i <= k (lower), else 0. */
typedef struct {
    int upper;
} pz_trilu_params;

/* SCATTER: in data, indices, updates; Y = data with updates written (or
 * combined by `reduction`) where indices say. nd 0: ScatterElements along
 * axis (indices and updates one shape); nd 1: ScatterND (the last dim of
 * indices indexes data's leading dims). */
typedef enum {
    PZ_SCATTER_NONE, PZ_SCATTER_ADD, PZ_SCATTER_MUL, PZ_SCATTER_MAX, PZ_SCATTER_MIN
} pz_scatter_reduction;
typedef struct {
    int nd;
    int axis;                         /* nd 0: normalised */
    pz_scatter_reduction reduction;
} pz_scatter_params;

/* GATHER_ND: in data, indices; the last dim of indices indexes data's dims
 * after the first batch_dims, which data and indices share. */
typedef struct {
    int batch_dims;
} pz_gather_nd_params;

/* ---- params: normalization, quantization, losses, signal ---- */

/* LOSS: NegativeLogLikelihoodLoss on X [N, C, d...] (log-probabilities), or
 * SoftmaxCrossEntropyLoss (X scores: LogSoftmax over C first, written to
 * output 1 when wanted). Target [N, d...] int32/int64; targets equal to
 * ignore_index (has_ignore) weigh 0. */
typedef enum { PZ_LOSS_NLL, PZ_LOSS_SCE } pz_loss_func;
typedef enum { PZ_LOSS_NONE, PZ_LOSS_SUM, PZ_LOSS_MEAN } pz_loss_reduction;
typedef struct {
    pz_loss_func func;
    pz_loss_reduction reduction;      /* MEAN: divided by the sum of the weights */
    int has_ignore;
    int64_t ignore_index;
} pz_loss_params;

/* NORM: rows of X normalised, Y = (X - mean) / sqrt(var + epsilon) * scale +
 * bias, the statistics per row:
 *   RMS       rows are dims [0, axis), no mean taken (var = mean of X^2),
 *             scale broadcast over the dims [axis, rank), no bias;
 *   INSTANCE  rows are (n, c) over the spatial dims; scale, bias [C];
 *   GROUP     rows are (n, group) over C/groups channels and the spatial
 *             dims; scale, bias [C] (or [groups], opset 18). */
typedef enum { PZ_NORM_RMS, PZ_NORM_INSTANCE, PZ_NORM_GROUP } pz_norm_func;
typedef struct {
    pz_norm_func func;
    int axis;                         /* RMS, normalised */
    int64_t groups;                   /* GROUP */
    float epsilon;
} pz_norm_params;

/* QUANT: QuantizeLinear (Q), DequantizeLinear (DQ), DynamicQuantizeLinear
 * (DYNAMIC, uint8). The scale is per tensor (one element), per axis (1-D,
 * block_size 0) or blocked (X's rank, block_size elements along the axis
 * share one). saturate: Q to a float8 type clamps to its largest value. */
typedef enum { PZ_QUANT_Q, PZ_QUANT_DQ, PZ_QUANT_DYNAMIC } pz_quant_func;
typedef struct {
    pz_quant_func func;
    int axis;                         /* normalised */
    int64_t block_size;
    int saturate;
} pz_quant_params;

/* QMATMUL: MatMulInteger (int32 out) or QLinearMatMul (requantised). */
typedef enum { PZ_QMM_INTEGER, PZ_QMM_QLINEAR } pz_qmatmul_func;
typedef struct {
    pz_qmatmul_func func;
    pz_act act;   /* MatMulInteger with the qdyn pass's float output: none or Relu */
} pz_qmatmul_params;

/* QCONV: ConvInteger (X, W, x_zero_point?, w_zero_point? -> int32 Y) or
 * QLinearConv (X, x_scale, x_zp, W, w_scale, w_zp, y_scale, y_zp, B? -> Y
 * of y_zp's type, requantised). X, W int8/uint8; w's zero point per tensor
 * or per output channel; the sum exact in integers. Geometry as CONV's.
 * act (the qdq pass's fold of a float Relu/Clip before the QuantizeLinear)
 * clamps y to [Q(lo), Q(hi)]: Relu's lo 0 is y_zero_point. A residual (the
 * qdq pass's fold of a QLinearAdd, inputs 9-13: Z, z_scale, z_zp, s_scale,
 * s_zp) makes Y = QADD(y, Z) (its A, or its B when z_b), act Relu its act. */
typedef enum { PZ_QCONV_INTEGER, PZ_QCONV_QLINEAR } pz_qconv_func;
typedef struct {
    pz_qconv_func func;
    int nsp;                          /* spatial dims, 1 to 3 */
    int64_t group;
    int64_t kernel[PZ_MAX_SPATIAL];
    int64_t stride[PZ_MAX_SPATIAL];
    int64_t dilation[PZ_MAX_SPATIAL];
    int64_t pad_begin[PZ_MAX_SPATIAL];
    int64_t pad_end[PZ_MAX_SPATIAL];
    pz_act act;                       /* QLinearConv: Relu/Clip, applied as a clamp of y */
    int z_b;                          /* with a residual: y is the QADD's B */
} pz_qconv_params;

/* DFT (ONNX DFT, opsets 17 and 20): X [..., M, ..., 1 or 2] (real or
 * complex; the DFT along axis) -> Y [..., K, ..., 2]. X's axis is cut or
 * zero-padded to length; K = length, or length / 2 + 1 when onesided.
 * inverse scales by 1 / length; inverse and onesided together take the
 * first length / 2 + 1 bins of a Hermitian spectrum to a real Y
 * [..., length, ..., 1] (irfft). */
typedef struct {
    int axis;                         /* normalised, below the last dim */
    int inverse, onesided;
    int64_t length;                   /* dft_length, resolved */
} pz_dft_params;

/* STFT (ONNX STFT, opset 17): signal [B, L, 1 or 2], window? [frame_length]
 * -> Y [B, frames, K, 2], frame f the DFT of signal[f * frame_step + j] *
 * window[j], j < frame_length; frames = (L - frame_length) / frame_step + 1,
 * K = frame_length, or frame_length / 2 + 1 when onesided. */
typedef struct {
    int64_t frame_step, frame_length;
    int onesided;
} pz_stft_params;

/* The params of the vision and attention kinds, TOPK, LP_POOL, EINSUM,
 * ONEHOT, REVERSE_SEQUENCE, TENSOR_SCATTER, MVN, ... (after the limits above,
 * which they use). */
#include "pz_op_params.h"

/* CAUSAL_CONV (ONNX CausalConvWithState, opset 27): X [B, C, L], W [C, 1, K],
 * B [C]?, past_state [B, C, K-1]? (absent: zeros). P = past_state ++ X along
 * time; Y[b, c, t] = act(B[c] + sum_j W[c, 0, j] * P[b, c, t + j]), act SiLU
 * (x * sigmoid(x)) or none; present_state = P's last K-1 columns. */
typedef struct {
    int silu;
} pz_causal_conv_params;

/* LINEAR_ATTENTION (ONNX LinearAttention, opset 27): Q [B, T, Hq*Dk], K [B, T,
 * Hkv*Dk], V [B, T, Hkv*Dv], past_state [B, Hkv, Dk, Dv]?, decay [B, T, Hkv*Dk
 * or Hkv]?, beta [B, T, Hkv or 1]? -> Y [B, T, Hq*Dv], present_state. Per kv
 * head a state S [Dk, Dv]; each step: gated rules S *= exp(decay); delta
 * rules v = beta * (v - S^T k); then S += k v^T and query head h reads
 * y = scale * S^T q of kv head h / (Hq / Hkv). */
typedef enum {
    PZ_LA_LINEAR, PZ_LA_GATED, PZ_LA_DELTA, PZ_LA_GATED_DELTA, PZ_LA_COUNT_
} pz_la_rule;
typedef struct {
    int q_num_heads, kv_num_heads;
    pz_la_rule rule;
    float scale;                      /* final (the compiler resolves 1/sqrt(Dk)) */
} pz_linear_attention_params;

/* ---- the network: the middle-layer API ----------------------------------- */

typedef enum { PZ_OK_ = 0, PZ_ERR_ = 1 } pz_rt_status;

typedef struct pz_net pz_net;

pz_net *pz_net_new(const char *name);
void pz_net_free(pz_net *net);

/* Tensors. Returned ids index the net's tensors. */
int pz_net_input(pz_net *net, const char *name, int dtype, int rank, const int64_t *dims);
int pz_net_const(pz_net *net, const char *name, int dtype, int rank, const int64_t *dims,
                 const void *data);
/* An intermediate or output tensor with a known type and shape. */
int pz_net_tensor(pz_net *net, const char *name, int dtype, int rank, const int64_t *dims);
/* A view: the bytes of tensor src (a tensor a layer writes, a graph input,
 * or a view of one) under another shape with as many elements, of src's type (Reshape,
 * Flatten, Squeeze, Unsqueeze, Identity). No layer writes it and nothing is
 * copied: compile keeps src alive while the view is read. Where src is held
 * blocked (net.h) and the view's shape breaks the blocks, each reader
 * converts src into its scratch instead. Of a graph input, it reads the
 * buffer each run gives. Not of a constant: that takes a COPY layer. */
int pz_net_view(pz_net *net, const char *name, int src, int rank, const int64_t *dims);
void pz_net_output(pz_net *net, int tensor);

/* Appends a layer (params are copied). in/out hold tensor ids, -1 for an
 * omitted optional input/output. Returns the layer index. */
int pz_net_layer(pz_net *net, const char *name, pz_op_kind kind, const void *params,
                 size_t params_size, const int *in, int n_in, const int *out, int n_out);

/* Knobs: layers [first, first+count) form one F-Block run on mp cores.
 * Layers not put in a block run alone with MP 1. */
/* The constants' data is a read-only private file mapping (libpzio's
 * pz_weights_declare says so): compile may then drop the mapped pages of
 * weights it packed (MADV_DONTNEED), lowering the peak memory. */
void pz_net_consts_mapped(pz_net *net, int on);
void pz_net_block(pz_net *net, int first, int count, int mp);

/* Load balance of a block (DLFusion's split of its work over its MP cores):
 * PZ_SPLIT_AUTO lets the runtime choose; PZ_SPLIT_BANDS gives each core a
 * spatial band of the block's last layer (halo recomputed); PZ_SPLIT_CHANNELS
 * splits each layer's work by channels (no recomputation). strip: rows of
 * the block's last layer per tile of depth-first execution, 0 = auto. The
 * block is the one pz_net_block made starting at layer `first`. */
typedef enum { PZ_SPLIT_AUTO, PZ_SPLIT_BANDS, PZ_SPLIT_CHANNELS } pz_split_mode;
void pz_net_block_knobs(pz_net *net, int first, pz_split_mode split, int strip);
/* The block's precision: its MatMul and Gemm layers with a constant B run bf16
 * products, or fp32 ones on fp16 weights (pz_op_params.h); the rest stay fp32. */
void pz_net_block_precision(pz_net *net, int first, pz_precision prec);
/* One layer's precision, over its block's (a mixed-precision block). */
void pz_net_layer_precision(pz_net *net, int layer, pz_precision prec);

/* ---- run options ----------------------------------------------------------
 * How a net runs, apart from its graph and schedule: the kernels' instruction
 * set, memory and worker settings, and A/B switches for measurements. The
 * runtime reads no environment: a program fills this struct once (libpzio's
 * pz_io_run_options_env reads the PZ_* variables named below) and hands it to
 * pz_net_compile. PZ_RUN_OPTIONS_DEFAULT, or a NULL pointer, is what an unset
 * environment gives.
 *
 *   pz_run_options o = PZ_RUN_OPTIONS_DEFAULT;
 *   o.isa = PZ_RUN_ISA_SCALAR;           // as PZ_ISA=scalar
 *   pz_net_compile(net, 2, &o, err, sizeof err);
 */
/* Caps on the kernels' instruction set (PZ_ISA=ref|scalar|avx2|avx512, and
 * avx2-novnni or avx512-novnni for the int8 kernels without VNNI): a
 * cap at or above what the CPU offers changes nothing. REF to AVX512 have
 * the values of the runtime's pz_isa. */
typedef enum {
    PZ_RUN_ISA_REF = 0, PZ_RUN_ISA_SCALAR = 1, PZ_RUN_ISA_AVX2 = 2, PZ_RUN_ISA_AVX512 = 3,
    PZ_RUN_ISA_BEST = 4,   /* no cap: the best the CPU offers */
} pz_run_isa;

typedef struct {
    int isa;            /* PZ_ISA: a pz_run_isa */
    int novnni;         /* PZ_ISA=<isa>-novnni: 1 the int8 kernels without vpdpbusd */
    int hugepages;      /* PZ_HUGEPAGES: 1 advise huge pages for buffers of 2 MiB on, 0 not */
    long long spin_us;  /* PZ_SPIN_US: microseconds an idle worker spins before it sleeps */
    int pin;            /* PZ_PIN: 1 pin each worker to a CPU, 0 leave them free */
    int winograd;       /* PZ_WINOGRAD: -1 each layer's algo, 0 direct everywhere,
                         * 1 Winograd wherever it applies */
    int conv8x2;        /* PZ_CONV8X2: 1 the 8x2-tile 1x1 conv where it applies, 0 never */
    int subsample;      /* PZ_SUBSAMPLE: 1 strided 1x1 convs as subsample + flat conv, 0 never */
    int gather_conv;    /* PZ_GATHER_CONV: 1 a conv gathers its input's channels itself
                         * (rt/inplace.c), 0 the GATHER layer runs */
    int fuse_windows;   /* PZ_FUSE_WINDOWS: 1 row windows inside fused runs, 0 full buffers */
    int fuse_cut;       /* PZ_FUSE_CUT: 1 fused runs cut where a halo would cost, 0 never */
} pz_run_options;

#define PZ_RUN_OPTIONS_DEFAULT                                                     \
    { .isa = PZ_RUN_ISA_BEST, .hugepages = 1, .spin_us = 200, .pin = 1, .winograd = -1, \
      .conv8x2 = 1, .subsample = 1, .gather_conv = 1, .fuse_windows = 1, .fuse_cut = 1 }

/* Plans memory (one arena, buffers reused by liveness), chooses kernels,
 * packs weights, starts `threads` workers, all as opts says (NULL: the
 * defaults; copied, so opts may go away after the call). Returns 0, or
 * non-zero with a message in errbuf. threads <= 0: one per online CPU. A
 * block's MP above `threads` is clamped to it; the net starts as many
 * workers as its largest MP needs (none when every MP is 1). */
int pz_net_compile(pz_net *net, int threads, const pz_run_options *opts, char *errbuf,
                   size_t errsize);
/* The online CPUs (sysconf): the worker threads a program and `paleozoic`
 * use when no --threads says otherwise. */
int pz_cpu_count(void);
/* Bytes of the arena planned by compile (intermediates and scratch). */
size_t pz_net_arena_bytes(const pz_net *net);

/* Runs the net. inputs[i] / outputs[i] follow the order of pz_net_input /
 * pz_net_output calls; the caller owns those buffers (plain NCHW). Does not
 * allocate. */
void pz_net_run(pz_net *net, const void *const *inputs, void *const *outputs);
/* Output i's shape after the last run into dims; returns its rank (-1: bad i).
 * A run-time-shaped output (NonZero, Unique, ...) has its buffer at the bound. */
int pz_net_output_shape(const pz_net *net, int i, int64_t *dims);
/* An output with no compile-time bound (Expand of a shape read at run time,
 * Range, ...: the net allocates it when it runs) is not copied into
 * outputs[i]: its data after the last run, valid to the next; NULL for any
 * other output. */
const void *pz_net_output_data(const pz_net *net, int i);
/* The first failed layer's error of the last run, NULL when none failed: an
 * op that can fail on its input's values (ImageDecoder on bytes that are not
 * an image) says which node and why, and leaves its outputs empty. */
const char *pz_net_run_error(const pz_net *net);

/* Per-layer and per-block timing (--profile). Enabling it (again) clears the
 * kept runs; pz_net_print_profile prints the medians over the last 512 profiled
 * runs (up to 512 rows of samples are allocated here, not in pz_net_run). */
void pz_net_profile(pz_net *net, int enable);
void pz_net_print_profile(const pz_net *net, FILE *f);
/* Nanoseconds layer `layer` took in the last profiled run (0 otherwise). */
uint64_t pz_net_layer_ns(const pz_net *net, int layer);

/* What compile made, for profiles, traces and tools (valid after compile). */
int pz_net_n_layers(const pz_net *net);
const char *pz_net_layer_name(const pz_net *net, int layer);
pz_op_kind pz_net_layer_kind(const pz_net *net, int layer);
int pz_net_layer_block(const pz_net *net, int layer);
/* Whether layer `layer` runs: 0 it does; PZ_LAYER_IN_PLACE a Concat (Split)
 * whose parts are slices of its output (input), PZ_LAYER_READ_THROUGH a Concat
 * or Gather read through (inplace.c); PZ_LAYER_IN_BRANCH only when the If
 * branch it serves is taken (guard.c). */
enum { PZ_LAYER_RUNS, PZ_LAYER_IN_PLACE, PZ_LAYER_READ_THROUGH, PZ_LAYER_IN_BRANCH };
int pz_net_layer_skipped(const pz_net *net, int layer);
int pz_net_n_blocks(const pz_net *net);
/* Block b: its layers [*first, *first + *count), its MP; returns the ns of its
 * last profiled run. Any pointer may be NULL. */
uint64_t pz_net_block_info(const pz_net *net, int b, int *first, int *count, int *mp);
/* ns of the whole last profiled run. */
uint64_t pz_net_run_ns(const pz_net *net);

/* ---- traces (trace.c) ----------------------------------------------------
 * Writes the last profiled run (pz_net_profile) as a Chrome trace JSON file
 * (chrome://tracing, Perfetto): F-Blocks and layers as complete events laid
 * end to end. Written to a temporary name and renamed. 0 on success. */
int pz_net_write_trace(const pz_net *net, const char *path, char *err, size_t errsize);

#endif
