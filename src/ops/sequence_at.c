/* sequence_at.c - SequenceAt: the element of S at `position`.
 *   S (sequence), position (int scalar) -> that tensor
 * Unfolded at compile time (op_seq.h) into Identity of the element, so the
 * position must be known then; of a sequence split at run time, a Gather
 * (a Slice with a scalar split). */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

/* Of a sequence split at run time (op_seq_split_rt): Gather(X, position)
 * along the split's axis, the position a 1-element vector with keepdims
 * (the axis kept, of size 1); with a scalar split, the Slice of the piece
 * (op_seq_split_at). */
static pz_status at_split_rt(ir_graph *g, int i, const ir_node *sp, pz_err *err)
{
    int x, ax, keep, split, pos = g->nodes[i].in[1];
    if (op_seq_split_args(g, sp, &x, &ax, &keep, &split, err)) return err->code;
    if (pos < 0) return op_err(err, &g->nodes[i], "input 1 (position) is required");
    int start = g->n_nodes;
    if (split >= 0) {   /* a scalar split s: the piece [p s, p s + s) */
        char *name = pz_xstrdup(g->nodes[i].name), *sp_name = pz_xstrdup(sp->name);
        int y = op_seq_split_at(g, name, x, ax, op_seq_split_step(g, sp_name, split), pos);
        op_replace_by_tail(g, i, start, &y);
        free(sp_name);
        free(name);
        return PZ_OK;
    }
    if (keep) {
        char *name = pz_xstrdup(g->nodes[i].name);
        int64_t one = 1;
        int rs[2] = {pos, op_new_const(g, name, IR_I64, 1, &one, &one)};
        pos = ir_graph_add_value_unique(g, name);
        op_append_node(g, name, "Reshape", rs, 2, &pos, 1);
        free(name);
        ir_graph_move_tail(g, start, i);
        i += g->n_nodes - start;
    }
    op_node_rewrite(g, i, "Gather", (int[]){x, pos}, 2, 0);
    ir_node_add_attr_int(&g->nodes[i], "axis", ax);
    return PZ_OK;
}

static pz_status sequence_at_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const ir_node *sp = op_seq_split_rt(g, n, 0);
    if (sp) return at_split_rt(g, i, sp, err);
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
