/* log_softmax.c - LogSoftmax: Y = X - log(sum(exp(X))) along one axis;
 * floating-point only.
 *   X [any shape, rank >= 1] -> Y [same shape, same type]
 * axis: default 1 before opset 13, where X is viewed as 2-D
 * [prod(dims[:axis]), prod(dims[axis:])] and the op runs over each row;
 * from opset 13 default -1, and the op runs along that axis alone. */
#include "elementwise.h"

static pz_status log_softmax_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    return op_softmax_lower(g, n, 1, out, err);
}

const op_def op_log_softmax = {
    .name = "LogSoftmax",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_softmax_params),
    .parse = op_softmax_parse,
    .infer = op_unary_float_infer,
    .lower = log_softmax_lower,
};
