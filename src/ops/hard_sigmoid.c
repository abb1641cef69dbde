/* hard_sigmoid.c - HardSigmoid: Y = max(0, min(1, alpha * X + beta)),
 * element-wise; floating-point only. Defaults: alpha 0.2, beta 0.5.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

typedef struct {
    float alpha, beta;
} hard_sigmoid_params;

static pz_status hard_sigmoid_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    hard_sigmoid_params *p = params;
    if (op_attr_finite(n, "alpha", 0.2f, &p->alpha, err)) return err->code;
    return op_attr_finite(n, "beta", 0.5f, &p->beta, err);
}

static pz_status hard_sigmoid_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                    pz_err *err)
{
    const hard_sigmoid_params *p = n->params;
    op_unary_lower(n, PZ_UN_HARD_SIGMOID, p->alpha, p->beta, 0, out);
    return PZ_OK;
}

const op_def op_hard_sigmoid = {
    .name = "HardSigmoid",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(hard_sigmoid_params),
    .parse = hard_sigmoid_parse,
    .infer = op_unary_float_infer,
    .lower = hard_sigmoid_lower,
};
