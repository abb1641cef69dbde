/* negative_log_likelihood_loss.c - NegativeLogLikelihoodLoss (opset 12-22):
 *   loss[n, d] = -input[n, target[n, d], d] * weight[target[n, d]]
 *   (0 where target = ignore_index), then none | sum | mean (mean divides
 *   by the sum of the weights taken). Shapes: loss.h. No MACs.
 * Runs as the LOSS layer (rt/ops/loss.c). */
#include "loss.h"

static pz_status nll_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_loss_lower(g, n, PZ_LOSS_NLL, out);
}

const op_def op_negative_log_likelihood_loss = {
    .name = "NegativeLogLikelihoodLoss",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_loss_params),
    .parse = op_loss_parse,
    .infer = op_loss_infer,
    .lower = nll_lower,
};
