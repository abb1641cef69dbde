/* window.h - the sliding-window attributes shared by Conv, ConvTranspose,
 * MaxPool and AveragePool: kernel_shape, strides, pads, dilations, auto_pad,
 * ceil_mode, and the output size they give. */
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

#endif
