/* loss.h - what NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss share:
 * the attributes reduction and ignore_index, the output shapes, the LOSS
 * layer (rt/ops/loss.c). */
#ifndef PZ_OPS_LOSS_H
#define PZ_OPS_LOSS_H

#include "op.h"

/* params: a pz_loss_params (func set by the lower). */
pz_status op_loss_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
pz_status op_loss_infer(ir_graph *g, ir_node *n, pz_err *err);
pz_status op_loss_lower(const ir_graph *g, const ir_node *n, pz_loss_func func, op_lowered *out);

#endif
