/* sequence_insert.c - SequenceInsert: S with tensor T inserted at
 * `position` (default: at the end).
 *   S (sequence), T, position (int scalar, optional) -> a sequence
 * Unfolded at compile time (op_seq.h): the node becomes SequenceConstruct of
 * the new list, so the position must be known then. */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

static pz_status sequence_insert_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const int *el;
    int cnt;
    int64_t pos;
    if (op_seq_elems(g, n, 0, &el, &cnt, err)) return err->code;
    const ir_value *s = &g->values[n->in[0]], *t = &g->values[n->in[1]];
    if (t->kind != IR_KIND_TENSOR)
        return op_err(err, n, "input 1 \"%s\" must be a tensor", t->name);
    if (cnt && t->t.dtype != s->t.dtype)
        return op_err(err, n, "inserts %s into a sequence of %s", ir_dtype_name(t->t.dtype),
                      ir_dtype_name(s->t.dtype));
    if (op_seq_pos(g, n, 2, cnt, cnt, 1, &pos, err)) return err->code;
    int *list = pz_xmalloc((size_t)(cnt + 1) * sizeof(int));
    memcpy(list, el, (size_t)pos * sizeof(int));
    list[pos] = n->in[1];
    memcpy(list + pos + 1, el + pos, (size_t)(cnt - pos) * sizeof(int));
    op_seq_rewrite(g, i, list, cnt + 1, t->t.dtype);
    free(list);
    return PZ_OK;
}

const op_def op_sequence_insert = {
    .name = "SequenceInsert",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = sequence_insert_unfold,
    .takes_seq = 1,
};
