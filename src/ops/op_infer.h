/* op_infer.h - shape inference and per-layer cost over a sorted graph.
 *
 * These walk the op table (op->parse, op->infer, op->cost), so they sit in
 * the ops layer, above the IR: src/ir knows nodes and values, not ops. */
#ifndef PZ_OPS_OP_INFER_H
#define PZ_OPS_OP_INFER_H

#include "../ir/graph.h"

/* Walks the nodes in order: checks input and output counts, parses each
 * node's attributes (op->parse), infers its output types and shapes
 * (op->infer, which also folds shape arithmetic on constants), checks the
 * result against declared output shapes, and fills node->cost. */
pz_status ir_infer(ir_graph *g, pz_err *err);

/* ir_infer's walk from node `first` (the nodes before it inferred) up to
 * the first node of op `op` named `name`, left uninferred at *at (-1 when
 * none is met): a trial on a copy of the graph (Loop's, loop.c). */
struct op_def;
pz_status ir_infer_until(ir_graph *g, int first, const struct op_def *op, const char *name, int *at,
                         pz_err *err);

/* Bytes, params and channels from the shapes; MACs from op->cost. */
void ir_cost_node(const ir_graph *g, ir_node *n);

#endif
