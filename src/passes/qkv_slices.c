/* qkv_slices.c - Q, K and V read in place from the QKV GEMM's output. An
 * exporter that runs the three projections as one GEMM (PyTorch's
 * nn.MultiheadAttention: in_proj, X [.., 3E]) then cuts its output in three
 * with Slices along the last axis, and reshapes each part to the heads:
 *
 *   X = MatMul(.., Wqkv) [+ bias]      [.., rows, W]
 *   Q = Reshape(Slice(X, o_q .. o_q + E_q, last axis))   [.., S, H, Dk]
 *   K, V the same at o_k, o_v
 *   Y = ScaledDotProductAttention(Q, K, V, mask; rows_first)
 *
 * Each Slice copies its columns. The attention layer reads its rows first
 * inputs with strides anyway (rt/ops/attention.c), so it reads Q, K and V
 * straight from X: rows W apart, each at its column offset; the attention
 * node's inputs 0 to 2 become X and its attributes qkv_w, qkv_off_q/k/v and
 * qkv_dk say where (ops/sdpa.c); the Slices and Reshapes go. Rewritten
 * only when all of this holds, else the graph stays as it is:
 *   - the attention node is rows_first and not rewritten yet; its Q, K and
 *     V each come, through views that keep the elements' order (Reshape,
 *     Flatten, Squeeze, Unsqueeze; none or up to three), from a plain Slice
 *     with constant starts, ends, axes and steps that keeps every axis of X
 *     whole but the last and cuts that to a run of columns, step 1;
 *   - every value on those paths (the Slice's output, each view's) is read
 *     by the next node alone and is no graph output; the nodes are plain;
 *   - the three Slices cut the same X, float32 and computed at run time
 *     (not a constant, no run-time shape);
 *   - each part's columns are its heads times its head size (Q's and K's
 *     [.., S, H, Dk], V's [.., S, H, Dv]: a Reshape that splits only the
 *     last axis), so that a row of X holds one row of each.
 * The cutter may also be a Split along the last axis (the one the concat
 * pass puts after the Q, K and V projections it merged: the pass runs again
 * after it) when its three parts are Q, K and V, each once; it goes too.
 * X itself may be read elsewhere: it is only read here. */
#include "../ops/slice.h"
#include "passes_internal.h"

#define MAX_HOPS 3

static int order_view(const ir_node *n)
{
    return pass_is(n, OP_reshape) || pass_is(n, OP_flatten) || pass_is(n, OP_squeeze) ||
           pass_is(n, OP_unsqueeze);
}

/* The live node writing value v: as its first output, or any output of a
 * Split; -1 if none. */
static int writer(const ir_graph *g, int v, const unsigned char *dead)
{
    int w = pass_writer(g, v, dead);
    for (int i = 0; w < 0 && v >= 0 && i < g->n_nodes; i++)
        if (!dead[i] && pass_is(&g->nodes[i], OP_split))
            for (int k = 1; k < g->nodes[i].n_out; k++)
                if (g->nodes[i].out[k] == v) w = i;
    return w;
}

/* Whether output v of Split node n is a run of X's last axis, every other
 * axis whole (so that the Split is along the last axis whatever its
 * attribute says); *off its first column, *cols its columns. 0 if it is. */
static int split_last_cols(const ir_graph *g, const ir_node *n, int v, int64_t *off,
                           int64_t *cols)
{
    const ir_tensor *x = &g->values[n->in[0]].t;
    int64_t at = 0, found = -1;
    if (x->rank < 1) return -1;
    for (int j = 0; j < n->n_out; j++) {
        if (n->out[j] < 0) return -1;
        const ir_tensor *t = &g->values[n->out[j]].t;
        if (t->rank != x->rank) return -1;
        for (int d = 0; d < x->rank - 1; d++)
            if (t->dims[d] != x->dims[d]) return -1;
        if (n->out[j] == v) found = at, *cols = t->dims[x->rank - 1];
        at += t->dims[x->rank - 1];
    }
    if (found < 0 || at != x->dims[x->rank - 1]) return -1;
    *off = found;
    return 0;
}

/* The X that value v, read by node reader alone, is a column slice of
 * (the header's path); *off its first column, *cols its columns, the nodes
 * that go appended to gone. -1 when v is not such a slice. */
static int slice_of(const ir_graph *g, int v, int reader, const unsigned char *dead,
                    int64_t *off, int64_t *cols, int *gone, int *ng)
{
    for (int hop = 0; hop <= MAX_HOPS; hop++) {
        int slot, w = writer(g, v, dead);
        /* past the attention node, each reader is a view: its slot 0 */
        /* a Split's other outputs are read (by the other paths): not "plain" */
        if (w < 0 || pass_sole_reader(g, v, &slot) != reader || (hop > 0 && slot != 0) ||
            (pass_is(&g->nodes[w], OP_split) ? g->nodes[w].act.kind != IR_ACT_NONE
                                             : !pass_plain(g, &g->nodes[w])))
            return -1;
        const ir_node *n = &g->nodes[w];
        if (n->n_in < 1 || n->in[0] < 0) return -1;
        gone[(*ng)++] = w;
        if (pass_is(n, OP_split)) {
            if (split_last_cols(g, n, v, off, cols)) return -1;
            return n->in[0];
        }
        if (pass_is(n, OP_slice)) {
            const ir_tensor *t = &g->values[v].t;
            if (!op_slice_last_cols(g, n, off) || t->rank < 1) return -1;
            *cols = t->dims[t->rank - 1];
            return n->in[0];
        }
        if (!order_view(n)) return -1;
        reader = w;
        v = n->in[0];
    }
    return -1;
}

/* Attention node ai rewritten to read its Q, K, V from X; 1 if it was. */
static int qkv_at(ir_graph *g, int ai, unsigned char *dead)
{
    ir_node *an = &g->nodes[ai];
    int64_t rf = 0, w0 = 0;
    pz_err e = {0};
    if (an->n_in < 3 || op_attr_int(an, "rows_first", 0, &rf, &e) || rf != 1 ||
        op_attr_int(an, "qkv_w", 0, &w0, &e) || w0 != 0 || an->n_out < 1 || an->out[0] < 0)
        return 0;
    int gone[3 * (MAX_HOPS + 1)], ng = 0, x = -1;
    int64_t off[3], dk = 0;
    int splits = 0, split = -1;
    for (int k = 0; k < 3; k++) {
        int64_t cols;
        const ir_tensor *t = &g->values[an->in[k]].t;
        int xk = slice_of(g, an->in[k], ai, dead, &off[k], &cols, gone, &ng);
        if (xk < 0 || (x >= 0 && xk != x) || t->rank < 3 ||
            t->dims[t->rank - 2] * t->dims[t->rank - 1] != cols)
            return 0;
        x = xk;
        if (k == 0) dk = t->dims[t->rank - 1];
        const int cut = gone[ng - 1];   /* the path's last node: its Slice or Split */
        if (pass_is(&g->nodes[cut], OP_split)) {
            if (split >= 0 && split != cut) return 0;
            split = cut;
            splits++;
        }
    }
    /* a Split goes only when its three parts are Q, K and V, each once */
    if (split >= 0 && (splits != 3 || g->nodes[split].n_out != 3 || off[0] == off[1] ||
                       off[0] == off[2] || off[1] == off[2]))
        return 0;
    const ir_value *xv = &g->values[x];
    if (xv->t.dtype != IR_F32 || xv->t.data || xv->dyn || xv->t.rank < 1) return 0;
    ir_node_add_attr_int(an, "qkv_w", xv->t.dims[xv->t.rank - 1]);
    ir_node_add_attr_int(an, "qkv_off_q", off[0]);
    ir_node_add_attr_int(an, "qkv_off_k", off[1]);
    ir_node_add_attr_int(an, "qkv_off_v", off[2]);
    ir_node_add_attr_int(an, "qkv_dk", dk);
    if (!pass_become(g, an, OP_sdpa)) return 0;   /* cannot happen: the attributes are ints */
    for (int k = 0; k < 3; k++) an->in[k] = x;
    for (int i = 0; i < ng; i++) pass_kill(g, gone[i], dead);
    return 1;
}

void pass_qkv_slices(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && pass_is(&g->nodes[i], OP_sdpa) && qkv_at(g, i, dead)) st->qkv_views++;
}
