/* softmax_cross_entropy_loss.c - SoftmaxCrossEntropyLoss (opset 12-13):
 *   log_prob = LogSoftmax(scores, axis 1), then NegativeLogLikelihoodLoss
 *   of log_prob with the same labels, weights, ignore_index and reduction;
 *   log_prob is the optional second output. Shapes: loss.h. No MACs.
 * Runs as the LOSS layer (rt/ops/loss.c). */
#include "loss.h"

static pz_status sce_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_loss_lower(g, n, PZ_LOSS_SCE, out);
}

const op_def op_softmax_cross_entropy_loss = {
    .name = "SoftmaxCrossEntropyLoss",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 2,
    .params_size = sizeof(pz_loss_params),
    .parse = op_loss_parse,
    .infer = op_loss_infer,
    .lower = sce_lower,
};
