/* sum.c - Sum: element-wise sum of 1 or more inputs of one float type with
 * multidirectional broadcasting (opset 8+; equal shapes before), added left
 * to right. One input is a COPY; more run as one SUM layer. Folds
 * constants. */
#include "compare.h"

static double sum_f(double a, double b) { return a + b; }
static const op_binary_fn sum_fn = {sum_f, NULL};

static pz_status sum_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (op_want_types(g, n, OP_TY_FLOAT, err)) return err->code;
    return op_broadcast_infer(g, n, 1, &sum_fn, err);
}

static pz_status sum_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_sum_lower(n, 0, out, err);
}

const op_def op_sum = {
    .name = "Sum",
    .min_in = 1, .max_in = 64, .min_out = 1, .max_out = 1,
    .infer = sum_infer,
    .lower = sum_lower,
};
