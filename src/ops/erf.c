/* erf.c - Erf: Y = erf(X), the error function, element-wise (GELU's, as PyTorch
 *   exports it: X/2 (1 + erf(X/sqrt 2))); floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status erf_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_unary_lower(n, PZ_UN_ERF, 0, 0, 0, out);
    return PZ_OK;
}

const op_def op_erf = {
    .name = "Erf",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
    .lower = erf_lower,
};
