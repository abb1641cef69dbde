/* gelu.c - Gelu (opset 20): Y = X/2 (1 + erf(X / sqrt 2)), element-wise;
 * approximate = "tanh": X/2 (1 + tanh(sqrt(2/pi) (X + 0.044715 X^3))).
 * Floating-point only. The graph passes also make one from the five nodes
 * PyTorch exports GELU to at lower opsets (gate.c).
 *   X [any shape] -> Y [same shape, same type] */
#include <string.h>

#include "elementwise.h"

typedef struct {
    int tanh_form;
} gelu_params;

static pz_status gelu_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    gelu_params *p = params;
    const char *a;
    if (op_attr_string(n, "approximate", "none", &a, err)) return err->code;
    if (!strcmp(a, "none")) p->tanh_form = 0;
    else if (!strcmp(a, "tanh")) p->tanh_form = 1;
    else return op_err_attr(err, n, "approximate", "is \"%s\", expected none or tanh", a);
    return PZ_OK;
}

static pz_status gelu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const gelu_params *p = n->params;
    op_unary_lower(n, PZ_UN_GELU, p->tanh_form ? 1.0f : 0.0f, 0, 0, out);
    return PZ_OK;
}

const op_def op_gelu = {
    .name = "Gelu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(gelu_params),
    .parse = gelu_parse,
    .infer = op_unary_float_infer,
    .lower = gelu_lower,
};
