/* sqrt.c - Sqrt: Y = sqrt(X), element-wise (NaN for X < 0); floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status sqrt_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_unary_lower(n, PZ_UN_SQRT, 0, 0, 0, out);
    return PZ_OK;
}

const op_def op_sqrt = {
    .name = "Sqrt",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
    .lower = sqrt_lower,
};
