/* average_pool.c - AveragePool: STUB, not implemented yet. */
#include "op.h"

static pz_status average_pool_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (AveragePool): not implemented yet", n->name);
}

const op_def op_average_pool = {
    .name = "AveragePool",
    .min_in = 0, .max_in = 16, .min_out = 0, .max_out = 16,
    .infer = average_pool_infer,
};
