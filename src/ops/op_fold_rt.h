/* op_fold_rt.h - constant folding by the runtime's own layers. */
#ifndef PZ_OPS_OP_FOLD_RT_H
#define PZ_OPS_OP_FOLD_RT_H

#include "op.h"

/* Node i, inferred: when every input is constant and its outputs are small,
 * computes them with its runtime layer and makes them constants. Nothing
 * happens (and no error) when it cannot. */
void op_fold_by_runtime(ir_graph *g, int i);

#endif
