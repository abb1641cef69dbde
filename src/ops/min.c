/* min.c - Min: element-wise minimum of 1 or more inputs with multidirectional
 * broadcasting (opset 8+; equal shapes before). Folds constants; NaN wins.
 * More than 2 inputs run as a chain of 2-input layers (op_variadic_expand). */
#include "elementwise.h"

static double min_f(double a, double b) { return a != a || b != b ? a + b : a < b ? a : b; }
static int64_t min_i(int64_t a, int64_t b) { return a < b ? a : b; }
static const op_binary_fn min_fn = {min_f, min_i};

static pz_status min_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    for (int i = 0; i < n->n_in; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (t && t->dtype == IR_BOOL)
            return op_err(err, n, "input %d must be numeric, got bool", i);
    }
    return op_broadcast_infer(g, n, 1, &min_fn, err);
}

static pz_status min_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_variadic_lower(g, n, PZ_BIN_MIN, out, err);
}

const op_def op_min = {
    .name = "Min",
    .min_in = 1, .max_in = 64, .min_out = 1, .max_out = 1,
    .infer = min_infer,
    .lower = min_lower,
    .expand = op_variadic_expand,
};
