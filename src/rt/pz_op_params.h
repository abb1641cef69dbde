/* pz_op_params.h - the params of the layer kinds TOPK, LP_POOL, EINSUM,
 * ONEHOT, REVERSE_SEQUENCE, TENSOR_SCATTER and MVN (one struct each, as in
 * pz_rt.h, which includes this after PZ_MAX_RANK and PZ_MAX_SPATIAL; a
 * part of the SDK beside it). */
#ifndef PZ_OP_PARAMS_H
#define PZ_OP_PARAMS_H

#include <stdint.h>

/* TOPK (ONNX TopK): X -> Values (X's type) and Indices (int64), X's shape
 * but k along axis; ties go to the lower index. */
typedef struct {
    int axis;
    int64_t k;
    int largest;                      /* 0: the k smallest */
    int sorted;                       /* 0: any order; the kernel sorts anyway */
} pz_topk_params;

/* LP_POOL (ONNX LpPool): X [N, C, D1..Dk] -> Y [N, C, O1..Ok], the p-norm
 * of each window; padding adds nothing. */
typedef struct {
    int nsp;
    int64_t kernel[PZ_MAX_SPATIAL], stride[PZ_MAX_SPATIAL], dilation[PZ_MAX_SPATIAL];
    int64_t pad_begin[PZ_MAX_SPATIAL], pad_end[PZ_MAX_SPATIAL];
    int64_t p;
} pz_lp_pool_params;

/* EINSUM (ONNX Einsum): label l of axis a of input i is in_label[i *
 * PZ_MAX_RANK + a]; labels 0..out_rank-1 are the output's axes in order,
 * the others are summed over. The compiler expanded any ellipsis. */
#define PZ_EINSUM_MAX_IN 4
#define PZ_EINSUM_MAX_LABELS 16
typedef struct {
    int n_in, n_labels, out_rank;
    int in_rank[PZ_EINSUM_MAX_IN];
    int in_label[PZ_EINSUM_MAX_IN * PZ_MAX_RANK];
} pz_einsum_params;

/* ONEHOT (ONNX OneHot): indices [d...] -> Y [d... with depth inserted at
 * axis], values [off, on]; an index in [-depth, depth) is on. */
typedef struct {
    int axis;
    int64_t depth;
} pz_onehot_params;

/* REVERSE_SEQUENCE (ONNX ReverseSequence): the first sequence_lens[b]
 * elements along time_axis of batch b reversed. */
typedef struct {
    int batch_axis, time_axis;
} pz_reverse_sequence_params;

/* TENSOR_SCATTER (ONNX TensorScatter): update written into a copy of
 * past_cache along axis from write_indices[b]; circular: modulo the axis. */
typedef struct {
    int axis;
    int circular;
} pz_tensor_scatter_params;

/* MVN (ONNX MeanVarianceNormalization): (X - mean) / (std + 1e-9) over the
 * axes of axes_mask (bit a: axis a). */
typedef struct {
    int axes_mask;
} pz_mvn_params;

#endif
