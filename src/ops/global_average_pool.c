/* global_average_pool.c - GlobalAveragePool: the mean over all spatial dims;
 * floating-point only.
 *   X [N, C, D1..Dk] -> Y [N, C, 1..1] (k ones) */
#include "window.h"

static pz_status global_average_pool_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                           pz_err *err)
{
    return op_global_pool_lower(g, n, PZ_POOL_AVG, out, err);
}

const op_def op_global_average_pool = {
    .name = "GlobalAveragePool",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_global_pool_infer,
    .lower = global_average_pool_lower,
};
