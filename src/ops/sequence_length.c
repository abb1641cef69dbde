/* sequence_length.c - SequenceLength: how many tensors S holds.
 *   S (sequence) -> int64 scalar
 * Unfolded at compile time (op_seq.h): the length is known then, so the
 * node becomes Identity of a constant; of a sequence split at run time,
 * Gather(Shape(X), axis), or with a scalar split s ceil(that / s). */
#include "op_seq.h"
#include "op_inline.h"

static pz_status sequence_length_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const ir_node *sp = op_seq_split_rt(g, n, 0);
    if (sp) {   /* split at run time: X's dim along the axis (over a split s, rounded up) */
        int x, ax, keep, split;
        if (op_seq_split_args(g, sp, &x, &ax, &keep, &split, err)) return err->code;
        char *name = pz_xstrdup(n->name), *sp_name = pz_xstrdup(sp->name);
        int start = g->n_nodes, ga[2];
        int64_t a = ax, zero = 0;
        if (split >= 0) {   /* [count][0] */
            ga[0] = op_seq_split_count(g, name, x, ax, op_seq_split_step(g, sp_name, split));
            ga[1] = op_new_const(g, name, IR_I64, 0, NULL, &zero);
        } else {
            ga[0] = ir_graph_add_value_unique(g, name);
            op_append_node(g, name, "Shape", &x, 1, &ga[0], 1);
            ga[1] = op_new_const(g, name, IR_I64, 0, NULL, &a);
        }
        free(sp_name);
        free(name);
        ir_graph_move_tail(g, start, i);
        i += g->n_nodes - start;
        op_node_rewrite(g, i, "Gather", ga, 2, 0);
        return PZ_OK;
    }
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
