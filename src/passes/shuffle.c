/* shuffle.c - a channel shuffle as PyTorch exports it (ShuffleNet's
 * channel_shuffle: view, transpose, view)
 *
 *   Reshape(X [N, C, H, W] -> [N, g, C/g, H, W])
 *   Transpose(perm 0, 2, 1, 3, 4)
 *   Reshape(-> [N, C, H, W])
 *
 * becomes one Gather(X, indices, axis 1) with constant indices: output
 * channel k*g + j is input channel j*(C/g) + k. The first Reshape becomes
 * the Gather and takes the last one's output; the other two go. The runtime
 * runs such a Gather on NCHW16c (a channel gather), where the three layers
 * ran on plain NCHW between conversions. Exact: a permutation of channels.
 * Rewritten only when: the three nodes plain (pass_plain) and live; the
 * [N, g, C/g, H, W] and [N, C, H, W] shapes known, C >= 1; the Transpose's
 * perm 0, 2, 1, 3, 4; each intermediate read by the next node alone, in
 * slot 0, and no graph output; the result of X's type and shape. */
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* Whether Transpose node n has perm 0, 2, 1, 3, 4. */
static int swaps_1_2(const ir_node *n)
{
    int64_t perm[IR_MAX_RANK];
    int cnt = 0;
    pz_err e = {0};
    static const int64_t want[5] = {0, 2, 1, 3, 4};
    if (op_attr_ints(n, "perm", perm, IR_MAX_RANK, &cnt, &e) || cnt != 5) return 0;
    return !memcmp(perm, want, sizeof want);
}

void pass_shuffles(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *r1 = &g->nodes[i];
        if (dead[i] || !pass_is(r1, OP_reshape) || r1->n_in < 1 || r1->in[0] < 0 ||
            r1->out[0] < 0 || !pass_plain(g, r1))
            continue;
        const ir_tensor *x = &g->values[r1->in[0]].t, *v5 = &g->values[r1->out[0]].t;
        if (x->rank != 4 || v5->rank != 5 || v5->dims[0] != x->dims[0] || x->dims[1] < 1 ||
            v5->dims[1] * v5->dims[2] != x->dims[1] || v5->dims[1] < 1 || v5->dims[2] < 1 ||
            v5->dims[3] != x->dims[2] || v5->dims[4] != x->dims[3])
            continue;
        int slot, ti = pass_sole_reader(g, r1->out[0], &slot);
        if (ti < 0 || dead[ti] || slot != 0 || !pass_is(&g->nodes[ti], OP_transpose) ||
            !swaps_1_2(&g->nodes[ti]) || g->nodes[ti].out[0] < 0 ||
            !pass_plain(g, &g->nodes[ti]))
            continue;
        int r2i = pass_sole_reader(g, g->nodes[ti].out[0], &slot);
        if (r2i < 0 || dead[r2i] || !pass_is(&g->nodes[r2i], OP_reshape) || slot != 0 ||
            g->nodes[r2i].out[0] < 0 || !pass_plain(g, &g->nodes[r2i]))
            continue;
        const ir_tensor *y = &g->values[g->nodes[r2i].out[0]].t;
        if (!pass_same_shape(y, x)) continue;

        const int64_t c = x->dims[1], gs = v5->dims[1], cg = v5->dims[2];
        int64_t *idx = malloc((size_t)c * sizeof *idx);
        if (!idx) continue;
        for (int64_t k = 0; k < cg; k++)
            for (int64_t j = 0; j < gs; j++) idx[k * gs + j] = j * cg + k;
        char name[256];
        snprintf(name, sizeof name, "%s:shuffle", r1->name ? r1->name : "reshape");
        int iv = ir_graph_add_value_unique(g, name);
        ir_value *v = &g->values[iv];
        v->t = (ir_tensor){.dtype = IR_I64, .rank = 1, .dims = {c}};
        v->is_initializer = 1;
        ir_value_set_data(g, iv, idx, (size_t)c * sizeof *idx);
        free(idx);

        r1 = &g->nodes[i];
        ir_node_clear_attrs(r1);
        ir_node_add_attr_int(r1, "axis", 1);
        ir_node_set_n_in(r1, 2);
        r1->in[1] = iv;
        PZ_ASSERT(pass_become(g, r1, OP_gather));   /* axis 1 of a rank-4 X parses */
        r1->out[0] = g->nodes[r2i].out[0];
        pass_kill(g, ti, dead);
        pass_kill(g, r2i, dead);
        st->shuffles++;
    }
}
