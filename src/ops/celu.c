/* celu.c - Celu: Y = max(0, X) + min(0, alpha (e^(X / alpha) - 1)), element-wise
 *   (Elu made continuously differentiable); alpha defaults to 1 and must not
 *   be 0. Floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status celu_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    float alpha;
    if (op_attr_finite(n, "alpha", 1.0f, &alpha, err)) return err->code;
    if (alpha == 0) return op_err_attr(err, n, "alpha", "must not be 0 (X / alpha)");
    return op_unary_math_set(params, PZ_UN_CELU, OP_TYPES_FLOAT, alpha, 0);
}

const op_def op_celu = {
    .name = "Celu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = celu_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
