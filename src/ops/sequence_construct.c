/* sequence_construct.c - SequenceConstruct: a sequence of its inputs.
 *   inputs... (tensors of one type) -> a sequence (op_seq.h)
 * Nothing runs: the sequence is its inputs, which the sequence ops read at
 * compile time. With no input (a rewritten empty sequence) the output keeps
 * the element type it was given. */
#include "op_seq.h"

static pz_status sequence_construct_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    ir_dtype dt = g->values[n->out[0]].t.dtype;
    if (!n->n_in && !ir_dtype_supported(dt)) dt = IR_F32;
    for (int k = 0; k < n->n_in; k++) {
        const ir_tensor *x = op_in(g, n, k);
        if (!x) return op_err(err, n, "input %d is missing", k);
        if (k && x->dtype != dt)
            return op_err(err, n, "input %d is %s, input 0 is %s: a sequence holds one type", k,
                          ir_dtype_name(x->dtype), ir_dtype_name(dt));
        dt = x->dtype;
    }
    op_set_container(g, n, IR_KIND_SEQ, dt);
    return PZ_OK;
}

const op_def op_sequence_construct = {
    .name = "SequenceConstruct",
    .min_in = 0, .max_in = 4096, .min_out = 1, .max_out = 1,
    .infer = sequence_construct_infer,
};
