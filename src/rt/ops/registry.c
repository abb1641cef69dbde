/* registry.c - the table of layer kinds, indexed by pz_op_kind. */
#include "rt/ops/ops.h"

const pz_rt_op *const pz_rt_ops[] = {
    [PZ_OP_CONV] = &pz_rt_op_conv,
    [PZ_OP_CONV_TRANSPOSE] = &pz_rt_op_conv_transpose,
    [PZ_OP_POOL] = &pz_rt_op_pool,
    [PZ_OP_BATCHNORM] = &pz_rt_op_batchnorm,
    [PZ_OP_UNARY] = &pz_rt_op_unary,
    [PZ_OP_BINARY] = &pz_rt_op_binary,
    [PZ_OP_GEMM] = &pz_rt_op_gemm,
    [PZ_OP_MATMUL] = &pz_rt_op_matmul,
    [PZ_OP_SOFTMAX] = &pz_rt_op_softmax,
    [PZ_OP_LRN] = &pz_rt_op_lrn,
    [PZ_OP_REDUCE_MEAN] = &pz_rt_op_reduce_mean,
    [PZ_OP_COPY] = &pz_rt_op_copy,
    [PZ_OP_TRANSPOSE] = &pz_rt_op_transpose,
    [PZ_OP_CONCAT] = &pz_rt_op_concat,
    [PZ_OP_SPLIT] = &pz_rt_op_split,
    [PZ_OP_SLICE] = &pz_rt_op_slice,
    [PZ_OP_PAD] = &pz_rt_op_pad,
    [PZ_OP_GATHER] = &pz_rt_op_gather,
    [PZ_OP_CAST] = &pz_rt_op_cast,
    [PZ_OP_RESIZE] = &pz_rt_op_resize,
    [PZ_OP_LAYERNORM] = &pz_rt_op_layernorm,
};

/* A new PZ_OP_* without its line here leaves a NULL slot: net.c checks every
 * slot at compile; this catches a table that outgrew the enum. */
_Static_assert(PZ_RT_LEN(pz_rt_ops) == PZ_OP_COUNT_, "pz_rt_ops must cover every pz_op_kind");
