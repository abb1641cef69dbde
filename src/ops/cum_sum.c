/* cum_sum.c - CumSum: the running sum along one axis.
 *   x [any shape, rank >= 1], axis (int32/int64 scalar) -> y [same shape,
 *   same type]. exclusive=1: y[k] leaves out x[k]; reverse=1: from the end.
 * Runs as the runtime's CUMULATIVE layer (rt/ops/cumulative.c), which reads
 * the axis at run time when it is not constant; folds when constant. */
#include "reduce.h"

static pz_status cum_sum_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_cum_infer(g, n, PZ_CUM_SUM, err);
}

static pz_status cum_sum_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_cum_lower(g, n, PZ_CUM_SUM, out, err);
}

const op_def op_cum_sum = {
    .name = "CumSum",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_cum_params),
    .parse = op_cum_parse,
    .infer = cum_sum_infer,
    .lower = cum_sum_lower,
};
