/* lstm.c - LSTM (gates i, o, f, c; peepholes P, input_forget; see rnn.c
 * for the shapes, rt/kernels/rnn/rnn_ref.c for the equations). */
#include "rnn.h"

static pz_status lstm_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_rnn_parse(n, PZ_RNN_CELL_LSTM, params, err);
}

const op_def op_lstm = {
    .name = "LSTM",
    .min_in = 3, .max_in = 8, .min_out = 0, .max_out = 3,
    .params_size = sizeof(pz_rnn_params),
    .parse = lstm_parse,
    .infer = op_rnn_infer,
    .cost = op_rnn_cost,
    .lower = op_rnn_lower,
};
