/* attention.c - scaled dot-product attention as exporters spell it out
 * (PyTorch's nn.MultiheadAttention, ViT, BERT):
 *
 *   S = MatMul(Q', KT)        Q' = Q, or Q times / over a scalar constant
 *   S' = S times / over scalar constants (none or more)
 *   A = Add(S', M) or S'      M: the mask, float32, either Add input
 *   Y = MatMul(Softmax(A, last axis), V)
 *
 * becomes ScaledDotProductAttention(Q, K, V, M; scale) (ops/sdpa.c): one
 * layer that keeps each block of score rows in cache (the fast attention
 * kernel) in place of two batched MatMuls, a Softmax, the mask Add and the
 * scaling, with the score tensor never written out. KT must be a Transpose
 * whose perm, with its last two entries swapped, gives K: that Transpose is
 * dropped when the swapped perm is the identity, else it now writes K.
 * The last MatMul becomes the attention node (its name and output stay);
 * scale is the product of the constants (1/c for a Div). Rewritten only
 * when all of this is proven, else left as it is:
 *   - every node plain (pass_plain) and live; each intermediate (Q', S,
 *     the scaled S's, A, the softmax, KT) read only by the next node of the
 *     pattern and not a graph output;
 *   - Softmax over the last axis (any opset: for the last axis opset < 13's
 *     2-D coercion is the same);
 *   - Q, K, V float32 of one rank >= 3 with the same leading dims (no
 *     broadcast between them), K's rows V's, Q's head size K's; the scale
 *     constants float32 of one element and finite, the product finite and
 *     non-zero; the scores' shape [.., S, T] at every step (a constant of a
 *     higher rank would broadcast);
 *   - M float32, its rank at most Q's, its dims broadcasting to [.., H, S,
 *     T] with those before H all Q's or all 1 (what the layer takes).
 * Then the head transposes go (rows_first): when Q, K and V each come from
 * a Transpose that swaps the rows and heads axes ([.., S, H, D] -> [.., H,
 * S, D], the rest in place) and Y goes to one such Transpose, the layer
 * reads and writes the [.., S, H, D] tensors with strides, and the four
 * Transposes, one copy each, are dropped. Only when each of those
 * Transposes is plain and live, its output read by this layer alone (Y's
 * Transpose its only reader) and no graph output; else they all stay. */
#include <math.h>
#include <string.h>

#include "../ops/sdpa.h"
#include "passes_internal.h"

#define MAX_GONE 12

/* The float32 scalar constant of node n's input slot, or NAN. */
static double scalar_in(const ir_graph *g, const ir_node *n, int slot)
{
    if (slot < 0 || slot >= n->n_in || n->in[slot] < 0) return NAN;
    const ir_tensor *t = &g->values[n->in[slot]].t;
    if (!t->data || t->dtype != IR_F32 || ir_tensor_numel(t) != 1) return NAN;
    return ((const float *)t->data)[0];
}

/* Node i is a plain Mul or Div of a value by a float32 scalar constant
 * (Div: the value divided): the factor (1/c for a Div) and *x the value,
 * else NAN. */
static double scaling(const ir_graph *g, int i, int *x)
{
    const ir_node *n = &g->nodes[i];
    if (n->n_in != 2 || n->in[0] < 0 || n->in[1] < 0 || !pass_plain(g, n)) return NAN;
    if (pass_is(n, OP_mul)) {
        double f = scalar_in(g, n, 1);
        int slot = 1;
        if (!isfinite(f)) f = scalar_in(g, n, slot = 0);
        *x = n->in[1 - slot];
        return g->values[*x].t.data ? NAN : f;
    }
    if (pass_is(n, OP_div)) {
        *x = n->in[0];
        return g->values[*x].t.data ? NAN : 1.0 / scalar_in(g, n, 1);
    }
    return NAN;
}

/* The value vid has one reader, node i, and is not a graph output. */
static int only_read_by(const ir_graph *g, int vid, int i)
{
    int slot;
    return pass_sole_reader(g, vid, &slot) == i;
}

static int same_dims(const ir_tensor *a, const ir_tensor *b)
{
    return a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank);
}

/* Node i is a live plain Transpose of rank r that swaps axes r - 3 and
 * r - 2 (rows and heads) and keeps the others. */
static int heads_transpose(const ir_graph *g, int i, int r, const unsigned char *dead)
{
    if (i < 0 || dead[i] || !pass_is(&g->nodes[i], OP_transpose) || !pass_plain(g, &g->nodes[i]))
        return 0;
    int64_t perm[IR_MAX_RANK];
    int np = -1;
    pz_err e = {0};
    if (op_attr_ints(&g->nodes[i], "perm", perm, IR_MAX_RANK, &np, &e) || np != r) return 0;
    for (int k = 0; k < r; k++)
        if (perm[k] != (k == r - 3 ? r - 2 : k == r - 2 ? r - 3 : k)) return 0;
    return 1;
}

/* The head transposes around the attention node oi folded into its
 * strides (the header's rule); 1 when done. */
static int rows_first(ir_graph *g, int oi, unsigned char *dead)
{
    ir_node *on = &g->nodes[oi];
    const int r = g->values[on->in[0]].t.rank;
    int tin[3], slot;
    for (int k = 0; k < 3; k++) {
        tin[k] = pass_writer(g, on->in[k], dead);
        if (!heads_transpose(g, tin[k], r, dead) || !only_read_by(g, on->in[k], oi)) return 0;
    }
    const int to = pass_sole_reader(g, on->out[0], &slot);
    if (to < 0 || slot != 0 || !heads_transpose(g, to, r, dead)) return 0;
    ir_node_add_attr_int(on, "rows_first", 1);
    if (!pass_become(g, on, OP_sdpa)) return 0;   /* cannot happen: the attribute is an int */
    for (int k = 0; k < 3; k++) {
        on->in[k] = g->nodes[tin[k]].in[0];
        pass_kill(g, tin[k], dead);
    }
    on->out[0] = g->nodes[to].out[0];
    pass_kill(g, to, dead);
    return 1;
}

static int attention_at(ir_graph *g, int si, unsigned char *dead)
{
    ir_node *sm = &g->nodes[si];
    int gone[MAX_GONE], ng = 0, slot;
    if (!pass_plain(g, sm) || sm->n_in != 1) return 0;
    const ir_tensor *at = &g->values[sm->in[0]].t;
    const int r = at->rank;
    int64_t axis;
    pz_err e = {0};
    if (r < 3 || at->dtype != IR_F32 ||
        op_attr_int(sm, "axis", g->opset >= 13 ? -1 : 1, &axis, &e) ||
        (axis != -1 && axis != r - 1))
        return 0;
    const int oi = pass_reader_of(g, sm, OP_matmul, dead, &slot);
    if (oi < 0 || slot != 0 || !pass_plain(g, &g->nodes[oi])) return 0;
    gone[ng++] = si;
    /* back from A: the mask Add, the scalings, the scores' MatMul */
    int vid = sm->in[0], mask = -1, cur = pass_writer(g, vid, dead);
    double scale = 1;
    if (cur >= 0 && pass_is(&g->nodes[cur], OP_add) && g->nodes[cur].n_in == 2 &&
        pass_plain(g, &g->nodes[cur]) && only_read_by(g, vid, si)) {
        /* the score side is the one that comes from a MatMul through scalings */
        const ir_node *ad = &g->nodes[cur];
        for (int s = 0; s < 2 && mask < 0; s++) {
            int p = pass_writer(g, ad->in[s], dead), x;
            while (p >= 0 && !pass_is(&g->nodes[p], OP_matmul) && isfinite(scaling(g, p, &x)))
                p = pass_writer(g, x, dead);
            if (p >= 0 && pass_is(&g->nodes[p], OP_matmul)) mask = ad->in[1 - s], vid = ad->in[s];
        }
        if (mask < 0) return 0;
        gone[ng++] = cur;
        cur = pass_writer(g, vid, dead);
    }
    const int *keep_reader = &gone[ng - 1];
    while (cur >= 0 && !pass_is(&g->nodes[cur], OP_matmul)) {
        int x = -1;
        double f = scaling(g, cur, &x);
        if (!isfinite(f) || ng >= MAX_GONE - 4 || !only_read_by(g, vid, *keep_reader) ||
            !same_dims(&g->values[vid].t, at))
            return 0;
        scale *= f;
        gone[ng++] = cur;
        keep_reader = &gone[ng - 1];
        vid = x;
        cur = pass_writer(g, vid, dead);
    }
    if (cur < 0 || !pass_plain(g, &g->nodes[cur]) || !only_read_by(g, vid, *keep_reader) ||
        !same_dims(&g->values[vid].t, at))
        return 0;
    const int mi = cur;
    gone[ng++] = mi;
    ir_node *mm = &g->nodes[mi];
    /* Q: through one scaling on its side */
    int q = mm->in[0], qx = -1;
    const int qi = pass_writer(g, q, dead);
    const double qf = qi >= 0 ? scaling(g, qi, &qx) : NAN;
    if (isfinite(qf) && only_read_by(g, q, mi) && same_dims(&g->values[qx].t, &g->values[q].t)) {
        scale *= qf;
        gone[ng++] = qi;
        q = qx;
    }
    /* K: KT's Transpose with the last two entries of its perm swapped */
    const int kt = mm->in[1], ti = pass_writer(g, kt, dead);
    if (ti < 0 || !pass_is(&g->nodes[ti], OP_transpose) || !pass_plain(g, &g->nodes[ti]) ||
        !only_read_by(g, kt, mi))
        return 0;
    ir_node *tr = &g->nodes[ti];
    int64_t perm[IR_MAX_RANK];
    int np = -1;
    if (op_attr_ints(tr, "perm", perm, IR_MAX_RANK, &np, &e) || np != r) return 0;
    int64_t t = perm[r - 1];
    perm[r - 1] = perm[r - 2];
    perm[r - 2] = t;
    int ident = 1;
    for (int i = 0; i < r; i++) ident &= perm[i] == i;
    const ir_tensor *qt = &g->values[q].t, *ktt = &g->values[kt].t;
    const int v = g->nodes[oi].in[1];
    const ir_tensor *vt = &g->values[v].t;
    /* shapes: Q [.., S, D], KT [.., D, T], V [.., T, Dv], one rank, the same leading dims */
    if (qt->dtype != IR_F32 || ktt->dtype != IR_F32 || vt->dtype != IR_F32 || qt->rank != r ||
        ktt->rank != r || vt->rank != r || ktt->dims[r - 2] != qt->dims[r - 1] ||
        vt->dims[r - 2] != ktt->dims[r - 1] || at->dims[r - 1] != ktt->dims[r - 1] ||
        at->dims[r - 2] != qt->dims[r - 2])
        return 0;
    for (int i = 0; i < r - 2; i++)
        if (ktt->dims[i] != qt->dims[i] || vt->dims[i] != qt->dims[i] || at->dims[i] != qt->dims[i])
            return 0;
    char why[160];
    if (mask >= 0 && op_sdpa_mask_check(&g->values[mask].t, qt, ktt->dims[r - 1], why, sizeof why))
        return 0;
    if (!isfinite(scale) || scale == 0 || !isfinite((float)scale)) return 0;
    for (int k = 0; k < ng; k++)
        if (dead[gone[k]] || !pass_plain(g, &g->nodes[gone[k]])) return 0;
    /* K: the Transpose's input, or the Transpose re-permuted */
    int k;
    if (ident) {
        k = tr->in[0];
        gone[ng++] = ti;
    } else {
        ir_tensor *kv = &g->values[kt].t;
        ir_attr *pa = NULL;
        for (int i = 0; i < tr->n_attrs; i++)
            if (!strcmp(tr->attrs[i].name, "perm")) pa = &tr->attrs[i];
        if (!pa || pa->type != IR_ATTR_INTS || pa->n != r) return 0;
        for (int i = 0; i < r; i++) pa->ints[i] = perm[i];
        if (!pass_become(g, tr, OP_transpose)) return 0;
        t = kv->dims[r - 1];
        kv->dims[r - 1] = kv->dims[r - 2];
        kv->dims[r - 2] = t;
        k = kt;
    }
    ir_node *on = &g->nodes[oi];
    const int y = on->out[0];
    ir_node_clear_attrs(on);
    ir_node_add_attr_float(on, "scale", (float)scale);
    ir_node_set_n_in(on, mask >= 0 ? 4 : 3);
    on->in[0] = q;
    on->in[1] = k;
    on->in[2] = v;
    if (mask >= 0) on->in[3] = mask;
    if (!pass_become(g, on, OP_sdpa)) return 0;   /* cannot happen: scale is finite */
    free(on->domain);
    on->domain = pz_xstrdup("ai.paleozoic");
    on->out[0] = y;
    for (int i = 0; i < ng; i++) pass_kill(g, gone[i], dead);
    rows_first(g, oi, dead);
    return 1;
}

void pass_attention(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && pass_is(&g->nodes[i], OP_softmax) && attention_at(g, i, dead))
            st->attention++;
}
