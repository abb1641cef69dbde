/* relu.c - Relu: Y = max(X, 0), element-wise. */
#include "elementwise.h"

static pz_status relu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_unary_lower(n, PZ_UN_RELU, 0, 0, 0, out);
    return PZ_OK;
}

const op_def op_relu = {
    .name = "Relu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
    .lower = relu_lower,
};
