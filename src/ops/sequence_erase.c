/* sequence_erase.c - SequenceErase: S without the element at `position`
 * (default: the last).
 *   S (sequence), position (int scalar, optional) -> a sequence
 * Unfolded at compile time (op_seq.h) into SequenceConstruct of the rest. */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

static pz_status sequence_erase_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const int *el;
    int cnt;
    int64_t pos;
    if (op_seq_elems(g, n, 0, &el, &cnt, err)) return err->code;
    if (op_seq_pos(g, n, 1, -1, cnt, 0, &pos, err)) return err->code;
    int *list = op_ids_dup(el, cnt);
    memmove(list + pos, list + pos + 1, (size_t)(cnt - pos - 1) * sizeof(int));
    op_seq_rewrite(g, i, list, cnt - 1, g->values[n->in[0]].t.dtype);
    free(list);
    return PZ_OK;
}

const op_def op_sequence_erase = {
    .name = "SequenceErase",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = sequence_erase_unfold,
    .takes_seq = 1,
};
