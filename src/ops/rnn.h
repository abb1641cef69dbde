/* rnn.h - what the recurrent ops share (RNN, GRU, LSTM: rnn.c, gru.c,
 * lstm.c): attributes (direction, hidden_size, layout, activations with
 * their alpha and beta, clip, input_forget, linear_before_reset), shape
 * inference and lowering to the runtime's RNN layer (its cell). Each op's
 * file is its op_def over these. */
#ifndef PZ_OPS_RNN_H
#define PZ_OPS_RNN_H

#include "op.h"

pz_status op_rnn_parse(const ir_node *n, pz_rnn_cell cell, pz_rnn_params *p, pz_err *err);
pz_status op_rnn_infer(ir_graph *g, ir_node *n, pz_err *err);
void op_rnn_cost(const ir_graph *g, const ir_node *n, ir_cost *c);
pz_status op_rnn_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

#endif
