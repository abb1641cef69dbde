/* asinh.c - Asinh: Y = arsinh(X) = ln(X + sqrt(X^2 + 1)), element-wise;
 *   floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status asinh_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_unary_math_set(params, PZ_UN_ASINH, OP_TYPES_FLOAT, 0, 0);
}

const op_def op_asinh = {
    .name = "Asinh",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = asinh_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
