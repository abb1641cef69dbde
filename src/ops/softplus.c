/* softplus.c - Softplus: Y = ln(exp(X) + 1), element-wise; floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status softplus_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_unary_lower(n, PZ_UN_SOFTPLUS, 0, 0, 0, out);
    return PZ_OK;
}

const op_def op_softplus = {
    .name = "Softplus",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
    .lower = softplus_lower,
};
