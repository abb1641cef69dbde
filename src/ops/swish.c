/* swish.c - Swish (opset 24): Y = X * Sigmoid(alpha * X), element-wise;
 * floating-point only. alpha defaults to 1 (SiLU). The passes also make one
 * out of Mul(X, Sigmoid(X)), as PyTorch exports SiLU (src/passes/gate.c).
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

typedef struct {
    float alpha;
} swish_params;

static pz_status swish_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    swish_params *p = params;
    return op_attr_finite(n, "alpha", 1.0f, &p->alpha, err);
}

static pz_status swish_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const swish_params *p = n->params;
    op_unary_lower(n, PZ_UN_SWISH, p->alpha, 0, 0, out);
    return PZ_OK;
}

const op_def op_swish = {
    .name = "Swish",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(swish_params),
    .parse = swish_parse,
    .infer = op_unary_float_infer,
    .lower = swish_lower,
};
