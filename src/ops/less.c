/* less.c - Less: C (bool) = A < B element by element, A and B of one
 * numeric type, broadcast (numpy; the legacy broadcast/axis
 * attributes before opset 7). Folds constants (shape subgraphs). Runs as the
 * runtime's COMPARE layer. */
#include "compare.h"

static double less_f(double a, double b) { return a < b; }
static int64_t less_i(int64_t a, int64_t b) { return a < b; }
static const op_binary_fn less_fn = {less_f, less_i};

static pz_status less_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_compare_infer(g, n, OP_TY_NUMERIC, &less_fn, err);
}

static pz_status less_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_compare_lower(g, n, PZ_CMP_LT, out, err);
}

const op_def op_less = {
    .name = "Less",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = less_infer,
    .lower = less_lower,
};
