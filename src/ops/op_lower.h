/* op_lower.h - lowering a graph to the model IR (src/ir/model.h).
 *
 * Lowering first splits the nodes the runtime cannot run as one layer
 * (op_def.expand: Max/Min of 3+ inputs into a chain, ...), then makes one
 * Layer per graph node that does work at run time, in topological order, and
 * one F-Block per Layer with MP = 1. It lives with the ops because it walks
 * the op table; the IR itself knows no op.
 *
 *   if (ir_infer(g, err)) return err->code;     // op_infer.h
 *   ir_model *m = ir_model_lower(g);            // owned: ir_model_free(m)
 */
#ifndef PZ_OPS_OP_LOWER_H
#define PZ_OPS_OP_LOWER_H

#include "../ir/model.h"

/* One Layer per run-time node, one F-Block per Layer, MP = 1. The model
 * borrows g (which expansion may rewrite); free it with ir_model_free. */
ir_model *ir_model_lower(ir_graph *g);

/* Float16 and bfloat16 nodes computed in float32 between Casts
 * (op_half.c); ir_model_lower calls it after the expansions. */
void op_widen_half(ir_graph *g);

#endif
