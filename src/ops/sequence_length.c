/* sequence_length.c - SequenceLength: how many tensors S holds.
 *   S (sequence) -> int64 scalar
 * Unfolded at compile time (op_seq.h): the length is known then, so the
 * node becomes Identity of a constant. */
#include "op_seq.h"
#include "op_inline.h"

static pz_status sequence_length_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const int *el;
    int cnt;
    if (op_seq_elems(g, n, 0, &el, &cnt, err)) return err->code;
    int64_t len = cnt;
    int c = op_new_const(g, g->nodes[i].name, IR_I64, 0, NULL, &len);
    op_node_rewrite(g, i, "Identity", &c, 1, 0);
    return PZ_OK;
}

const op_def op_sequence_length = {
    .name = "SequenceLength",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = sequence_length_unfold,
    .takes_seq = 1,
};
