/* fold.h - helpers shared by the shape and data-movement ops (Reshape,
 * Transpose, Slice, Gather, Concat, Split, Pad, Squeeze, ...): axis lists,
 * constant float inputs, checked dimension arithmetic, and constant folding.
 *
 * Ops that only move elements fold through one primitive: for every element
 * of the output, a callback gives the flat index of the source element it
 * copies (or -1 for the fill value). The output's dtype and shape are set
 * (op_set_out) before folding.
 *
 *   static int64_t src_of(const int64_t *coord, const void *ctx) { ... }
 *   ...
 *   op_set_out(g, n, 0, x->dtype, rank, dims);
 *   if (op_fold_ready(g, n, 0, x)) op_fold_map(g, n, 0, x, src_of, &ctx, NULL);
 */
#ifndef PZ_OPS_FOLD_H
#define PZ_OPS_FOLD_H

#include "op.h"

/* Outputs up to this many elements are computed at compile time when their
 * inputs are constant (the same bound as the element-wise ops). */
#define OP_FOLD_LIMIT 65536

/* Non-zero when src is constant and output `out` (shape already set) has at
 * most OP_FOLD_LIMIT elements. */
int op_fold_ready(ir_graph *g, const ir_node *n, int out, const ir_tensor *src);

/* Row-major strides of t, in elements: strides[rank-1] = 1,
 * strides[k] = strides[k+1] * dims[k+1]. */
void op_strides(const ir_tensor *t, int64_t *strides);

/* Flat source index of the output element at `coord` (one entry per output
 * dim), or -1 to write the fill value. */
typedef int64_t (*op_src_index_fn)(const int64_t *coord, const void *ctx);

/* Makes output `out` constant: element at coord = src[fn(coord)], or *fill
 * (one element of the output's dtype; NULL: zero) where fn returns -1.
 * src has the output's dtype. */
void op_fold_map(ir_graph *g, const ir_node *n, int out, const ir_tensor *src,
                 op_src_index_fn fn, const void *ctx, const void *fill);

/* Output `out` gets src's elements in the same order (Reshape, Flatten,
 * Squeeze, Unsqueeze): folds when op_fold_ready. */
void op_fold_copy(ir_graph *g, const ir_node *n, int out, const ir_tensor *src);

/* The lower hook of the ops that keep the bytes and change only the shape
 * (Reshape, Flatten, Squeeze, Unsqueeze): a COPY of input 0 to output 0;
 * the other inputs (shape, axes) are constants that infer consumed. */
pz_status op_copy_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

/* Unsqueeze (sign 1) and Squeeze (sign -1) whose axes (input 1, `count`
 * entries) are read at run time: Y's rank is X's plus (minus) count, each
 * dim planned at X's largest, Y in a dynamic region (RESHAPE sets its dims
 * at run time). op_axes_at_run_lower lowers such a node to RESHAPE, any
 * other to op_copy_lower. A Squeeze of an empty axes list squeezes every
 * dim of size 1, known at compile time: it is not run here. */
pz_status op_axes_at_run(ir_graph *g, const ir_node *n, int count, int sign, pz_err *err);
pz_status op_axes_at_run_lower(const ir_graph *g, const ir_node *n, op_lowered *out, int sign,
                               pz_err *err);

/* Normalises a list of axes for a tensor of `rank` dims: each in
 * [-rank, rank), negatives counted from the end, no axis twice. `what`
 * names the attribute or input in errors. */
pz_status op_axes_list(const ir_node *n, const char *what, const int64_t *axes, int count,
                       int rank, int *out, pz_err *err);

/* Reads a constant floating-point tensor (rank <= 1) into out[max]; fails
 * naming node, op and `what` if it is missing, not constant, not float or
 * too long. */
pz_status op_const_floats(const ir_graph *g, const ir_node *n, int i, const char *what,
                          double *out, int max, int *count, pz_err *err);

/* *out = a + b, failing (naming node and `what`) on int64 overflow. */
pz_status op_dim_add(const ir_node *n, const char *what, int64_t a, int64_t b, int64_t *out,
                     pz_err *err);

/* *out = floor(d * scale), the output dim of Resize and Upsample; fails
 * naming `what` when scale is not a positive finite number or the result is
 * too large. */
pz_status op_scale_dim(const ir_node *n, const char *what, int64_t d, double scale, int64_t *out,
                       pz_err *err);

/* The nearest rounding of Upsample and of Resize before opset 11, which
 * have no nearest_mode: the input index is floor(x) when enlarging and
 * ceil(x) when shrinking (ONNX Runtime's rule; the coordinate is x = o /
 * scale). Refuses a mix of enlarged and shrunk dims. */
pz_status op_upsample_nearest(const ir_node *n, int rank, const double *scale,
                              pz_resize_nearest *out, pz_err *err);

#endif
