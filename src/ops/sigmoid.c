/* sigmoid.c - Sigmoid: Y = 1 / (1 + exp(-X)), element-wise; floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status sigmoid_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_unary_lower(n, PZ_UN_SIGMOID, 0, 0, 0, out);
    return PZ_OK;
}

const op_def op_sigmoid = {
    .name = "Sigmoid",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
    .lower = sigmoid_lower,
};
