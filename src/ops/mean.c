/* mean.c - Mean: element-wise mean of 1 or more inputs of one float type
 * with multidirectional broadcasting (opset 8+; equal shapes before): their
 * sum left to right, divided by the count. One input is a COPY; more run as
 * one SUM layer with mean set. Not folded (no shape subgraph takes a mean). */
#include "compare.h"

static pz_status mean_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (op_want_types(g, n, OP_TY_FLOAT, err)) return err->code;
    return op_broadcast_infer(g, n, 1, NULL, err);
}

static pz_status mean_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_sum_lower(n, 1, out, err);
}

const op_def op_mean = {
    .name = "Mean",
    .min_in = 1, .max_in = 64, .min_out = 1, .max_out = 1,
    .infer = mean_infer,
    .lower = mean_lower,
};
