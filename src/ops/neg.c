/* neg.c - Neg: Y = -X, element-wise; signed integers wrap (-INT_MIN is INT_MIN).
 *   X [any shape; float or signed integer] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status neg_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_unary_math_set(params, PZ_UN_NEG, OP_TYPES_SIGNED, 0, 0);
}

const op_def op_neg = {
    .name = "Neg",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = neg_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
