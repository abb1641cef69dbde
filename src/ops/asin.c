/* asin.c - Asin: Y = arcsin(X) in [-pi/2, pi/2], element-wise (NaN outside [-1, 1]);
 *   floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status asin_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_unary_math_set(params, PZ_UN_ASIN, OP_TYPES_FLOAT, 0, 0);
}

const op_def op_asin = {
    .name = "Asin",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = asin_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
