/* selu.c - Selu: Y = gamma * (X <= 0 ? alpha * (exp(X) - 1) : X), element-wise;
 * floating-point only. Defaults: alpha 1.6732632..., gamma 1.0507009...
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

typedef struct {
    float alpha, gamma;
} selu_params;

static pz_status selu_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    selu_params *p = params;
    if (op_attr_finite(n, "alpha", 1.67326319217681884765625f, &p->alpha, err)) return err->code;
    return op_attr_finite(n, "gamma", 1.05070102214813232421875f, &p->gamma, err);
}

static pz_status selu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const selu_params *p = n->params;
    op_unary_lower(n, PZ_UN_SELU, p->alpha, 0, p->gamma, out);
    return PZ_OK;
}

const op_def op_selu = {
    .name = "Selu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(selu_params),
    .parse = selu_parse,
    .infer = op_unary_float_infer,
    .lower = selu_lower,
};
