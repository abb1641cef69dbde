/* thresholded_relu.c - ThresholdedRelu: Y = X > alpha ? X : 0, element-wise;
 *   alpha defaults to 1. Floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status thresholded_relu_parse(const ir_graph *g, const ir_node *n, void *params,
                                        pz_err *err)
{
    float alpha;
    if (op_attr_finite(n, "alpha", 1.0f, &alpha, err)) return err->code;
    return op_unary_math_set(params, PZ_UN_THRESHOLDED_RELU, OP_TYPES_FLOAT, alpha, 0);
}

const op_def op_thresholded_relu = {
    .name = "ThresholdedRelu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = thresholded_relu_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
