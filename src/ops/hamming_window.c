/* hamming_window.c - HammingWindow (opset 17): size (scalar, constant) ->
 *   w [size] of type output_datatype (default float32),
 *   w[n] = 25/46 - 21/46 cos(2 pi n / N),
 *   N = size when periodic (default 1), else size - 1.
 * Always folds to a constant at compile time (signal.c); nothing runs. */
#include "signal.h"

static pz_status hamming_window_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    static const op_cosine_window cw = {25.0 / 46, 21.0 / 46, 0};
    return op_cosine_window_infer(g, n, &cw, err);
}

const op_def op_hamming_window = {
    .name = "HammingWindow",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_signal_params),
    .parse = op_signal_parse,
    .infer = hamming_window_infer,
};
