/* qconv.h - what ConvInteger and QLinearConv share: Conv's attributes
 * (kernel_shape, strides, pads, dilations, auto_pad, group), the checks of
 * the integer inputs, zero points and scales, the QCONV layer
 * (rt/ops/qconv.c). */
#ifndef PZ_OPS_QCONV_H
#define PZ_OPS_QCONV_H

#include "window.h"

typedef struct {
    op_window w;
    int64_t group;
    pz_qconv_func func;
    int z_b;                 /* QLinearConv with a residual: y is the add's B */
} op_qconv_params;

pz_status op_qconv_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
/* X, W int8/uint8, the zero points and scales; Y [N, M, O...] of type ty. */
pz_status op_qconv_infer(ir_graph *g, ir_node *n, pz_err *err);
/* The float32 output stage the qdyn pass gives a ConvInteger or a
 * MatMulInteger (passes/qdyn.c): inputs first, first + 1, first + 2 are x's
 * scale (a float32 scalar), w's scale and the bias? (float32, one element
 * or m). */
pz_status op_qdyn_out_check(const ir_graph *g, const ir_node *n, int first, int64_t m,
                            pz_err *err);
pz_status op_qconv_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);
void op_qconv_cost(const ir_graph *g, const ir_node *n, ir_cost *c);

#endif
