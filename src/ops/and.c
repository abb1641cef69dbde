/* and.c - And: C = A and B element by element on bool tensors, broadcast
 * (numpy; the legacy broadcast/axis attributes before opset 7). Folds
 * constants. Runs as the runtime's COMPARE layer. */
#include "compare.h"

static double and_f(double a, double b) { return (a != 0) && (b != 0); }
static const op_binary_fn and_fn = {and_f, NULL};   /* bool folds through f */

static pz_status and_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_compare_infer(g, n, OP_TY_BOOL, &and_fn, err);
}

static pz_status and_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_compare_lower(g, n, PZ_CMP_AND, out, err);
}

const op_def op_and = {
    .name = "And",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = and_infer,
    .lower = and_lower,
};
