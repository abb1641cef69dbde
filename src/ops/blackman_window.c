/* blackman_window.c - BlackmanWindow (opset 17): size (scalar, constant) ->
 *   w [size] of type output_datatype (default float32),
 *   w[n] = 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N),
 *   N = size when periodic (default 1), else size - 1.
 * Always folds to a constant at compile time (signal.c); nothing runs. */
#include "signal.h"

static pz_status blackman_window_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    static const op_cosine_window cw = {0.42, 0.5, 0.08};
    return op_cosine_window_infer(g, n, &cw, err);
}

const op_def op_blackman_window = {
    .name = "BlackmanWindow",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_signal_params),
    .parse = op_signal_parse,
    .infer = blackman_window_infer,
};
