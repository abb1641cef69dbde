/* xor.c - Xor: C = A xor B element by element on bool tensors, broadcast
 * (numpy; the legacy broadcast/axis attributes before opset 7). Folds
 * constants. Runs as the runtime's COMPARE layer. */
#include "compare.h"

static double xor_f(double a, double b) { return (a != 0) != (b != 0); }
static const op_binary_fn xor_fn = {xor_f, NULL};   /* bool folds through f */

static pz_status xor_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_compare_infer(g, n, OP_TY_BOOL, &xor_fn, err);
}

static pz_status xor_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_compare_lower(g, n, PZ_CMP_XOR, out, err);
}

const op_def op_xor = {
    .name = "Xor",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = xor_infer,
    .lower = xor_lower,
};
