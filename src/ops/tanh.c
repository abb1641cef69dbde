/* tanh.c - Tanh: Y = tanh(X), element-wise; floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status tanh_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_unary_lower(n, PZ_UN_TANH, 0, 0, 0, out);
    return PZ_OK;
}

const op_def op_tanh = {
    .name = "Tanh",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
    .lower = tanh_lower,
};
