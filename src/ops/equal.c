/* equal.c - Equal: C (bool) = A == B element by element, A and B of one
 * numeric or bool (not string: the loader refuses strings) type, broadcast (numpy; the legacy broadcast/axis
 * attributes before opset 7). Folds constants (shape subgraphs). Runs as the
 * runtime's COMPARE layer. */
#include "compare.h"

static double equal_f(double a, double b) { return a == b; }
static int64_t equal_i(int64_t a, int64_t b) { return a == b; }
static const op_binary_fn equal_fn = {equal_f, equal_i};

static pz_status equal_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_compare_infer(g, n, OP_TY_NUMERIC | OP_TY_BOOL, &equal_fn, err);
}

static pz_status equal_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_compare_lower(g, n, PZ_CMP_EQ, out, err);
}

const op_def op_equal = {
    .name = "Equal",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = equal_infer,
    .lower = equal_lower,
};
