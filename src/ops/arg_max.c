/* arg_max.c - ArgMax: the index (int64) of the maximum along one axis.
 *   data [D0..Dr-1] -> reduced [..1..] (keepdims=1, the default) or without
 *   the axis (keepdims=0). axis: default 0, negative from the end.
 *   select_last_index=1: ties give the last index (default: the first).
 * Runs as the runtime's ARG layer (rt/ops/arg.c); folds when constant. */
#include "reduce.h"

static pz_status arg_max_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_arg_infer(g, n, PZ_ARG_MAX, err);
}

static pz_status arg_max_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_arg_lower(g, n, PZ_ARG_MAX, out, err);
}

const op_def op_arg_max = {
    .name = "ArgMax",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_arg_params),
    .parse = op_arg_parse,
    .infer = arg_max_infer,
    .lower = arg_max_lower,
};
