/* eliminate.c - layer elimination: Identity and Dropout (inference form)
 * copy their input, so their readers can read the input itself.
 *
 *   x -> Identity -> y -> Conv     becomes     x -> Conv
 *
 * Kept: a node whose output is a graph output (the copy gives that output
 * its name and buffer), and a Dropout whose mask is read at run time (infer
 * folds the mask into a constant, so this does not happen in practice). */
#include "passes_internal.h"

void pass_eliminate(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        if (!pass_is(n, OP_identity) && !pass_is(n, OP_dropout)) continue;
        int x = n->in[0], y = n->out[0];
        if (x < 0 || y < 0 || g->values[y].is_output) continue;
        if (n->n_out > 1 && n->out[1] >= 0 && !g->values[n->out[1]].t.data) continue;
        ir_graph_replace_uses(g, y, x);
        pass_kill(g, i, dead);
        st->eliminated++;
    }
}
