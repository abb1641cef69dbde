/* or.c - Or: C = A or B element by element on bool tensors, broadcast
 * (numpy; the legacy broadcast/axis attributes before opset 7). Folds
 * constants. Runs as the runtime's COMPARE layer. */
#include "compare.h"

static double or_f(double a, double b) { return (a != 0) || (b != 0); }
static const op_binary_fn or_fn = {or_f, NULL};   /* bool folds through f */

static pz_status or_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_compare_infer(g, n, OP_TY_BOOL, &or_fn, err);
}

static pz_status or_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_compare_lower(g, n, PZ_CMP_OR, out, err);
}

const op_def op_or = {
    .name = "Or",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = or_infer,
    .lower = or_lower,
};
