/* sequence_at.c - SequenceAt: the element of S at `position`.
 *   S (sequence), position (int scalar) -> that tensor
 * Unfolded at compile time (op_seq.h) into Identity of the element, so the
 * position must be known then. */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

static pz_status sequence_at_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const int *el;
    int cnt;
    int64_t pos;
    if (op_seq_elems(g, n, 0, &el, &cnt, err)) return err->code;
    if (n->in[1] < 0) return op_err(err, n, "input 1 (position) is required");
    if (op_seq_pos(g, n, 1, 0, cnt, 0, &pos, err)) return err->code;
    int x = el[pos];
    op_node_rewrite(g, i, "Identity", &x, 1, 0);
    return PZ_OK;
}

const op_def op_sequence_at = {
    .name = "SequenceAt",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = sequence_at_unfold,
    .takes_seq = 1,
};
