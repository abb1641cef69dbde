/* infer.h - shape inference and per-layer cost over a sorted graph. */
#ifndef PZ_IR_INFER_H
#define PZ_IR_INFER_H

#include "graph.h"

/* Walks the nodes in order: checks input and output counts, parses each
 * node's attributes (op->parse), infers its output types and shapes
 * (op->infer, which also folds shape arithmetic on constants), checks the
 * result against declared output shapes, and fills node->cost. */
pz_status ir_infer(ir_graph *g, pz_err *err);

/* Bytes, params and channels from the shapes; MACs from op->cost. */
void ir_cost_node(const ir_graph *g, ir_node *n);

#endif
