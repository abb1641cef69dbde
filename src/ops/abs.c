/* abs.c - Abs: Y = |X|, element-wise; on signed integers |INT_MIN| wraps to INT_MIN
 *   as in two's complement, unsigned ones are unchanged.
 *   X [any shape; any numeric type] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status abs_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_unary_math_set(params, PZ_UN_ABS, OP_TYPES_NUMERIC, 0, 0);
}

const op_def op_abs = {
    .name = "Abs",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = abs_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
