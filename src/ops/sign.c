/* sign.c - Sign: Y = 1, 0 or -1 as X > 0, X = 0 or X < 0, element-wise (NaN stays
 *   NaN, -0 stays -0); any numeric type.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status sign_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_unary_math_set(params, PZ_UN_SIGN, OP_TYPES_NUMERIC, 0, 0);
}

const op_def op_sign = {
    .name = "Sign",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = sign_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
