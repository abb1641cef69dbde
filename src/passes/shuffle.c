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
 * slot 0, and no graph output; the result of X's type and shape.
 *
 * Then a channel Gather read only by Slices of its channels (ShuffleNetV2's
 * split after the shuffle) goes: each Slice becomes a Gather of X by its
 * run of the indices, so the runtime moves the channels once, not twice.
 * Rewritten only when: the Gather plain, axis 1 of a rank-4 X, constant
 * int64 indices, its output no graph output; every reader a plain Slice in
 * slot 0 with constant starts, ends, axes (one axis: 1 or -3) and steps
 * (1), its output's shape known, [start, start + its channels) in range. */
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* Node i becomes Gather(x, idx[0..len), axis 1), the indices a new
 * constant named after the node and `what`. */
static void become_gather(ir_graph *g, int i, int x, const int64_t *idx, int64_t len,
                          const char *what)
{
    char name[256];
    snprintf(name, sizeof name, "%s:%s", g->nodes[i].name ? g->nodes[i].name : "node", what);
    int iv = ir_graph_add_value_unique(g, name);
    ir_value *v = &g->values[iv];
    v->t = (ir_tensor){.dtype = IR_I64, .rank = 1, .dims = {len}};
    v->is_initializer = 1;
    ir_value_set_data(g, iv, idx, (size_t)len * sizeof *idx);
    ir_node *n = &g->nodes[i];
    ir_node_clear_attrs(n);
    ir_node_add_attr_int(n, "axis", 1);
    ir_node_set_n_in(n, 2);
    n->in[0] = x;
    n->in[1] = iv;
    PZ_ASSERT(pass_become(g, n, OP_gather));   /* axis 1 of a rank-4 X parses */
}

/* The first channel Slice node n takes (0 <= start, start + its output's
 * channels <= c), or -1 when it is not such a slice. */
static int64_t channel_slice_start(const ir_graph *g, const ir_node *n, int64_t c)
{
    int64_t starts[IR_MAX_RANK], ends[IR_MAX_RANK], axes[IR_MAX_RANK], steps[IR_MAX_RANK];
    int ns = 0, ne = 0, na = 0, nst = 0;
    pz_err e = {0};
    if (!pass_is(n, OP_slice) || n->n_in < 4 || n->out[0] < 0 || !pass_plain(g, n) ||
        op_const_ints(g, n, 1, "starts", starts, IR_MAX_RANK, &ns, &e) ||
        op_const_ints(g, n, 2, "ends", ends, IR_MAX_RANK, &ne, &e) ||
        op_const_ints(g, n, 3, "axes", axes, IR_MAX_RANK, &na, &e) || ns != 1 || ne != 1 ||
        na != 1 || (axes[0] != 1 && axes[0] != -3))
        return -1;
    if (n->n_in > 4 && n->in[4] >= 0 &&
        (op_const_ints(g, n, 4, "steps", steps, IR_MAX_RANK, &nst, &e) || nst != 1 ||
         steps[0] != 1))
        return -1;
    const ir_tensor *y = &g->values[n->out[0]].t;
    int64_t s = starts[0] < 0 ? starts[0] + c : starts[0];
    if (y->rank != 4 || y->dims[1] < 1 || s < 0 || s + y->dims[1] > c) return -1;
    return s;
}

/* Gather node gi's readers, when every one is a channel Slice (above):
 * their count, node ids in rd[] and starts in at[]; 0 otherwise. */
static int slice_readers(const ir_graph *g, int gi, const unsigned char *dead, int64_t c,
                         int *rd, int64_t *at, int max)
{
    int nr = 0, v = g->nodes[gi].out[0];
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] == v) return 0;
    for (int j = 0; j < g->n_nodes; j++) {
        const ir_node *m = &g->nodes[j];
        if (dead[j] || j == gi || pass_folded(g, m)) continue;   /* a Shape of it: goes anyway */
        for (int s = 0; s < m->n_in; s++) {
            if (m->in[s] != v) continue;
            if (s != 0 || nr == max || (at[nr] = channel_slice_start(g, m, c)) < 0) return 0;
            rd[nr++] = j;
        }
    }
    return nr;
}

/* Gather node gi (a channel gather by constant indices) folded into the
 * Slices that alone read it (see above); 1 when done. */
static int fold_slices(ir_graph *g, int gi, unsigned char *dead)
{
    ir_node *gn = &g->nodes[gi];
    if (gn->n_in != 2 || gn->in[0] < 0 || gn->in[1] < 0 || gn->out[0] < 0 || !pass_plain(g, gn))
        return 0;
    int64_t axis = 0;
    pz_err e = {0};
    const ir_tensor *x = &g->values[gn->in[0]].t, *ix = op_in_const(g, gn, 1);
    if (op_attr_int(gn, "axis", 0, &axis, &e) || (axis != 1 && axis != -3) || x->rank != 4 ||
        !ix || ix->dtype != IR_I64 || ix->rank != 1 || !ix->data)
        return 0;
    int rd[8];
    int64_t at[8], c = ix->dims[0];
    int nr = slice_readers(g, gi, dead, c, rd, at, 8);
    if (!nr) return 0;
    const int64_t *idx = ix->data;
    for (int r = 0; r < nr; r++) {
        ir_node *sn = &g->nodes[rd[r]];
        int64_t len = g->values[sn->out[0]].t.dims[1];
        become_gather(g, rd[r], g->nodes[gi].in[0], idx + at[r], len, "channels");
    }
    /* the folded readers (Shape) go now, their outputs stay constants */
    int v = g->nodes[gi].out[0];
    for (int j = 0; j < g->n_nodes; j++)
        for (int s = 0; !dead[j] && s < g->nodes[j].n_in; s++)
            if (g->nodes[j].in[s] == v) pass_kill(g, j, dead);
    pass_kill(g, gi, dead);
    return 1;
}

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
        become_gather(g, i, r1->in[0], idx, c, "shuffle");
        free(idx);
        r1 = &g->nodes[i];
        r1->out[0] = g->nodes[r2i].out[0];
        pass_kill(g, ti, dead);
        pass_kill(g, r2i, dead);
        st->shuffles++;
    }
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && pass_is(&g->nodes[i], OP_gather) && fold_slices(g, i, dead))
            st->shuffle_slices++;
}
