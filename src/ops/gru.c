/* gru.c - GRU: the gated recurrent unit (gates z, r, h; see rnn.c for the
 * shapes, rt/kernels/rnn/rnn_ref.c for the equations). linear_before_reset
 * 1 is PyTorch's form. */
#include "rnn.h"

static pz_status gru_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return op_rnn_parse(n, PZ_RNN_CELL_GRU, params, err);
}

const op_def op_gru = {
    .name = "GRU",
    .min_in = 3, .max_in = 6, .min_out = 0, .max_out = 2,
    .params_size = sizeof(pz_rnn_params),
    .parse = gru_parse,
    .infer = op_rnn_infer,
    .cost = op_rnn_cost,
    .lower = op_rnn_lower,
};
