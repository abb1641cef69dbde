/* concat_from_sequence.c - ConcatFromSequence: the tensors of S joined
 * along `axis`, or stacked along a new axis when new_axis = 1.
 *   S (sequence) -> a tensor
 * Unfolded at compile time (op_seq.h) into Concat of the elements (after an
 * Unsqueeze each when stacking); an empty sequence has no result shape and
 * is refused. Of a sequence split at run time: its input, when joined as
 * it was split (through a Slice that keeps a scalar split's check read). */
#include "op_seq.h"
#include "op_inline.h"

static pz_status concat_from_sequence_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const int *el;
    int cnt, ax;
    int64_t axis, new_axis;
    if (!op_attr(n, "axis")) return op_err_attr(err, n, "axis", "is required");
    if (op_attr_int(n, "axis", 0, &axis, err) || op_attr_int(n, "new_axis", 0, &new_axis, err))
        return err->code;
    const ir_node *sp = op_seq_split_rt(g, n, 0);
    if (sp) {   /* split at run time: X again, joined as it was split */
        int x, sax, keep, split;
        if (op_seq_split_args(g, sp, &x, &sax, &keep, &split, err)) return err->code;
        int r = g->values[x].t.rank - !keep;   /* a piece's rank */
        if (op_axis(n, "axis", axis, r, new_axis != 0, &ax, err)) return err->code;
        if (ax != sax || (new_axis != 0) == keep)
            return op_err(err, n, "joins the pieces of node \"%s\" (SplitToSequence), split at "
                          "run time along axis %d with keepdims %d, along axis %d with new_axis "
                          "%lld: only joining them back into its input is supported", sp->name,
                          sax, keep, ax, (long long)new_axis);
        if (split >= 0) {   /* Slice(X, s - s, MAX) along the axis: X, after s's check */
            char *name = pz_xstrdup(n->name), *sp_name = pz_xstrdup(sp->name);
            const int64_t one = 1, big = INT64_MAX, a = ax;
            int start = g->n_nodes, s = op_seq_split_step(g, sp_name, split);
            int zero = ir_graph_add_value_unique(g, name), y = ir_graph_add_value_unique(g, name);
            op_append_node(g, name, "Sub", (int[]){s, s}, 2, &zero, 1);
            op_append_node(g, name, "Slice",
                           (int[]){x, zero, op_new_const(g, name, IR_I64, 1, &one, &big),
                                   op_new_const(g, name, IR_I64, 1, &one, &a)}, 4, &y, 1);
            op_replace_by_tail(g, i, start, &y);
            free(sp_name);
            free(name);
            return PZ_OK;
        }
        op_node_rewrite(g, i, "Identity", &x, 1, 0);
        return PZ_OK;
    }
    if (op_seq_elems(g, n, 0, &el, &cnt, err)) return err->code;
    if (!cnt) return op_err(err, n, "the sequence is empty: there is nothing to concatenate");
    int rank = g->values[el[0]].t.rank;
    if (op_axis(n, "axis", axis, rank, new_axis != 0, &ax, err)) return err->code;
    int *parts = op_ids_dup(el, cnt);
    if (!new_axis) {
        op_node_rewrite(g, i, "Concat", parts, cnt, 0);
        ir_node_add_attr_int(&g->nodes[i], "axis", ax);
    } else {
        int start = g->n_nodes;
        char *name = pz_xstrdup(n->name);
        int y = op_append_stack(g, name, parts, cnt, ax);
        op_replace_by_tail(g, i, start, &y);
        free(name);
    }
    free(parts);
    return PZ_OK;
}

const op_def op_concat_from_sequence = {
    .name = "ConcatFromSequence",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = concat_from_sequence_unfold,
    .takes_seq = 1,
};
