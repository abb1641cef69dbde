/* leaky_relu.c - LeakyRelu: Y = X < 0 ? alpha * X : X, element-wise;
 * floating-point only. alpha defaults to 0.01.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

typedef struct {
    float alpha;
} leaky_relu_params;

static pz_status leaky_relu_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    leaky_relu_params *p = params;
    return op_attr_finite(n, "alpha", 0.01f, &p->alpha, err);
}

static pz_status leaky_relu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const leaky_relu_params *p = n->params;
    op_unary_lower(n, PZ_UN_LEAKY_RELU, p->alpha, 0, 0, out);
    return PZ_OK;
}

const op_def op_leaky_relu = {
    .name = "LeakyRelu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(leaky_relu_params),
    .parse = leaky_relu_parse,
    .infer = op_unary_float_infer,
    .lower = leaky_relu_lower,
};
