/* round.c - Round: Y = X rounded to the nearest whole number, halves to the even one
 *   (numpy's rule: 2.5 -> 2, -1.5 -> -2), element-wise; floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status round_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_unary_math_set(params, PZ_UN_ROUND, OP_TYPES_FLOAT, 0, 0);
}

const op_def op_round = {
    .name = "Round",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = round_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
