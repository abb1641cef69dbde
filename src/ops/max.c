/* max.c - Max: element-wise maximum of 1 or more inputs with multidirectional
 * broadcasting (opset 8+; equal shapes before). Folds constants; NaN wins.
 * More than 2 inputs run as a chain of 2-input layers (op_variadic_expand). */
#include "elementwise.h"

static double max_f(double a, double b) { return a != a || b != b ? a + b : a > b ? a : b; }
static int64_t max_i(int64_t a, int64_t b) { return a > b ? a : b; }
static const op_binary_fn max_fn = {max_f, max_i};

static pz_status max_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    for (int i = 0; i < n->n_in; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (t && t->dtype == IR_BOOL)
            return op_err(err, n, "input %d must be numeric, got bool", i);
    }
    return op_broadcast_infer(g, n, 1, &max_fn, err);
}

static pz_status max_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_variadic_lower(g, n, PZ_BIN_MAX, out, err);
}

const op_def op_max = {
    .name = "Max",
    .min_in = 1, .max_in = 64, .min_out = 1, .max_out = 1,
    .infer = max_infer,
    .lower = max_lower,
    .expand = op_variadic_expand,
};
