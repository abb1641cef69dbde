/* hard_swish.c - HardSwish (opset 14): Y = X * max(0, min(1, X / 6 + 1/2)),
 * element-wise; floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status hard_swish_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_unary_lower(n, PZ_UN_HARD_SWISH, 0, 0, 0, out);
    return PZ_OK;
}

const op_def op_hard_swish = {
    .name = "HardSwish",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
    .lower = hard_swish_lower,
};
