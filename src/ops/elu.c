/* elu.c - Elu: Y = X < 0 ? alpha * (exp(X) - 1) : X, element-wise;
 * floating-point only. alpha defaults to 1.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

typedef struct {
    float alpha;
} elu_params;

static pz_status elu_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    elu_params *p = params;
    return op_attr_finite(n, "alpha", 1.0f, &p->alpha, err);
}

static pz_status elu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const elu_params *p = n->params;
    op_unary_lower(n, PZ_UN_ELU, p->alpha, 0, 0, out);
    return PZ_OK;
}

const op_def op_elu = {
    .name = "Elu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(elu_params),
    .parse = elu_parse,
    .infer = op_unary_float_infer,
    .lower = elu_lower,
};
