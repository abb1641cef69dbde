/* window.h - the sliding-window attributes shared by Conv, ConvTranspose,
 * MaxPool and AveragePool: kernel_shape, strides, pads, dilations, auto_pad,
 * ceil_mode, and the output size they give; plus the pooling helpers.
 *
 *   op_window w;
 *   if (op_pool_parse(g, n, &w, err)) return err->code;     // in parse
 *   int64_t dims[IR_MAX_RANK];
 *   if (op_pool_out(g, n, &w, dims, err)) return err->code; // in infer
 *   op_set_out(g, n, 0, x->dtype, x->rank, dims);
 */
#ifndef PZ_OPS_WINDOW_H
#define PZ_OPS_WINDOW_H

#include "op.h"

#define OP_MAX_SPATIAL 5

typedef enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID } op_auto_pad;

typedef struct {
    int nsp;                              /* spatial dims */
    int64_t kernel[OP_MAX_SPATIAL];
    int64_t stride[OP_MAX_SPATIAL];
    int64_t dilation[OP_MAX_SPATIAL];
    int64_t pad_begin[OP_MAX_SPATIAL];    /* resolved (auto_pad applied) by op_window_out */
    int64_t pad_end[OP_MAX_SPATIAL];
    op_auto_pad auto_pad;
    int ceil_mode;
    int has_kernel;                       /* kernel_shape attribute given */
} op_window;

/* Reads the attributes for nsp spatial dims. kernel_shape is optional when
 * `kernel_from` (the weight's spatial dims) is given. */
pz_status op_window_parse(const ir_node *n, int nsp, const int64_t *kernel_from, op_window *w,
                          int allow_ceil, pz_err *err);

/* Output spatial size of a convolution/pooling window over in[nsp]; resolves
 * SAME_* padding into w->pad_*. Errors name the node if the result is < 1. */
pz_status op_window_out(const ir_node *n, op_window *w, const int64_t *in, int64_t *out,
                        pz_err *err);

/* Pooling: X [N, C, D1..Dk] (1 <= k <= OP_MAX_SPATIAL) must be present;
 * reads the window attributes (kernel_shape required, ceil_mode allowed;
 * explicit pads must be smaller than the kernel, so that no window lies
 * wholly in the padding). */
pz_status op_pool_parse(const ir_graph *g, const ir_node *n, op_window *w, pz_err *err);

/* dims = [N, C, O1..Ok] for a pooling window over X (input 0); checked. */
pz_status op_pool_out(const ir_graph *g, const ir_node *n, op_window *w, int64_t *dims,
                      pz_err *err);

/* The infer of a pooling op over floating-point X (AveragePool, LpPool):
 * Y has X's type and the shape op_pool_out gives. */
pz_status op_pool_float_infer(ir_graph *g, ir_node *n, op_window *w, pz_err *err);

/* GlobalAveragePool / GlobalMaxPool: X [N, C, D1..Dk] (float) -> [N, C, 1..1]. */
pz_status op_global_pool_infer(ir_graph *g, ir_node *n, pz_err *err);

/* ---- lowering to the runtime -------------------------------------------- */

/* Copies a window resolved by infer (pads final) into the runtime's arrays;
 * fails with PZ_ERR_UNSUPPORTED, naming the node, above PZ_MAX_SPATIAL
 * spatial dims. */
pz_status op_window_conv_params(const ir_node *n, const op_window *w, pz_conv_params *cp,
                                pz_err *err);
pz_status op_window_pool_params(const ir_node *n, const op_window *w, pz_pool_params *pp,
                                pz_err *err);

/* GlobalAveragePool / GlobalMaxPool: a POOL whose kernel is the input's
 * spatial size (stride 1, no pads); a COPY when X has no spatial dims. */
pz_status op_global_pool_lower(const ir_graph *g, const ir_node *n, pz_pool_kind kind,
                               op_lowered *out, pz_err *err);

#endif
