/* norm.c - a LayerNorm as PyTorch exports it below opset 17 (ConvNeXt,
 * transformers):
 *
 *   m = ReduceMean(X, axes [a, rank), keepdims)    d = Sub(X, m)
 *   v = ReduceMean(Pow(d, 2), the same axes)       s = Sqrt(Add(v, eps))
 *   Y = Add(Mul(Div(d, s), gamma), beta)
 *
 * becomes LayerNormalization(X, gamma, beta; axis a, epsilon eps): one
 * pass over the rows instead of nine layers. The first ReduceMean becomes
 * the LayerNormalization and takes the last Add's output; the other eight
 * go. Pow(d, 2) may also be Mul(d, d); Add's and Mul's constants on either
 * side. Rewritten only when all of this is proven, else left as it is:
 *   - the nine nodes are plain (pass_plain: no act, e.g. a Relu an epilogue
 *     took into the last Add, no fused inputs) and live;
 *   - X float32; both ReduceMeans keepdims over the same trailing axes;
 *   - every intermediate (m, d, the square, v, v + eps, its sqrt, the
 *     quotient, the product) read only by the pattern (d by the square and
 *     the Div alone), never a graph output;
 *   - eps and the exponent 2 float32 constants of one element, eps finite
 *     and >= 0; every intermediate of X's shape or of the means' shape (a
 *     constant of a higher rank would broadcast the result to more dims);
 *   - gamma and beta float32 constants that, broadcast against X, give one
 *     value per normalised element: one element, or dims equal to X's over
 *     the normalised dims [a, rank) and 1 before (so [N] and [1, N] both);
 *     the product and the result of X's shape.
 * LayerNormalization has no fused activation: a Relu after the pattern
 * stays its own node (the epilogues run after this pass). */
#include <math.h>
#include <string.h>

#include "passes_internal.h"

/* ReduceMean node n reduces exactly the dims [a, rank) of its input, with
 * keepdims: 1 and *a, else 0. */
static int trailing_mean(const ir_graph *g, const ir_node *n, int *a)
{
    const ir_tensor *x = op_in(g, n, 0), *y = n->out[0] >= 0 ? &g->values[n->out[0]].t : NULL;
    int64_t axes[IR_MAX_RANK], keep = 1;
    int cnt = -1;
    pz_err e = {0};
    if (!x || !y || y->rank != x->rank || x->rank < 1) return 0;
    if (op_attr_int(n, "keepdims", 1, &keep, &e) || keep != 1) return 0;
    if (g->opset < 18) {
        if (op_attr_ints(n, "axes", axes, IR_MAX_RANK, &cnt, &e)) return 0;
    } else if (!op_in(g, n, 1) || op_const_ints(g, n, 1, "axes", axes, IR_MAX_RANK, &cnt, &e)) {
        return 0;
    }
    if (cnt < 1) return 0;
    unsigned mask = 0;
    for (int i = 0; i < cnt; i++) {
        int64_t v = axes[i] < 0 ? axes[i] + x->rank : axes[i];
        if (v < 0 || v >= x->rank) return 0;
        mask |= 1u << v;
    }
    int first = x->rank - cnt;
    if (mask != ((1u << x->rank) - 1) - ((1u << first) - 1)) return 0;
    *a = first;
    return 1;
}

/* The float32 scalar constant node n reads in its other slot than `slot`,
 * or NAN. */
static double other_scalar(const ir_graph *g, const ir_node *n, int slot)
{
    if (n->n_in != 2 || n->in[1 - slot] < 0) return NAN;
    const ir_tensor *t = &g->values[n->in[1 - slot]].t;
    if (!t->data || t->dtype != IR_F32 || ir_tensor_numel(t) != 1) return NAN;
    return *(const float *)t->data;
}

/* Whether gamma (or beta) t, broadcast against X (xt), gives one value per
 * element of X's dims [a, rank): a float32 constant of one element, or one
 * whose dims (aligned on the right) are X's from a on and 1 before; of rank
 * <= X's either way (else the product gets more dims). */
static int per_normalised(const ir_tensor *t, const ir_tensor *xt, int a)
{
    if (!t->data || t->dtype != IR_F32 || t->rank < 0 || t->rank > xt->rank) return 0;
    if (ir_tensor_numel(t) == 1) return 1;
    if (t->rank < xt->rank - a) return 0;   /* [N] over [.., M, N]: not per element */
    for (int i = 0; i < t->rank; i++) {
        int j = xt->rank - t->rank + i;      /* X's dim that t's dim i meets */
        if (t->dims[i] != (j < a ? 1 : xt->dims[j])) return 0;
    }
    return 1;
}

/* The output tensor of node i. */
static const ir_tensor *out_t(const ir_graph *g, int i)
{
    return &g->values[g->nodes[i].out[0]].t;
}

/* Node r1 (a ReduceMean) as the start of a LayerNorm: 1 when rewritten. */
static int norm_at(ir_graph *g, int r1, unsigned char *dead)
{
    const ir_node *n1 = &g->nodes[r1];
    int a, a2, slot;
    if (!pass_plain(g, n1) || n1->n_in < 1 || n1->in[0] < 0 || n1->out[0] < 0 ||
        !trailing_mean(g, n1, &a))
        return 0;
    const int x = n1->in[0];
    const ir_tensor *xt = &g->values[x].t;
    if (xt->dtype != IR_F32) return 0;
    int di = pass_reader_of(g, n1, OP_sub, dead, &slot);
    if (di < 0 || slot != 1 || g->nodes[di].in[0] != x) return 0;
    const int d = g->nodes[di].out[0];
    if (d < 0 || g->values[d].is_output) return 0;
    /* the square and the division: the nodes that read d, and nothing else
     * (Pow(d, 2) and Div read it once each, Mul(d, d) twice) */
    int pi = -1, vi = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *q = &g->nodes[i];
        if (dead[i] || q->n_in != 2) continue;
        if (pass_is(q, OP_pow) && q->in[0] == d && other_scalar(g, q, 0) == 2.0) pi = i;
        else if (pass_is(q, OP_mul) && q->in[0] == d && q->in[1] == d) pi = i;
        else if (pass_is(q, OP_div) && q->in[0] == d) vi = i;
    }
    if (pi < 0 || vi < 0) return 0;
    if (ir_graph_count_uses(g, d) != (pass_is(&g->nodes[pi], OP_mul) ? 3 : 2)) return 0;
    int r2 = pass_reader_of(g, &g->nodes[pi], OP_reduce_mean, dead, &slot);
    if (r2 < 0 || !trailing_mean(g, &g->nodes[r2], &a2) || a2 != a) return 0;
    int ai = pass_reader_of(g, &g->nodes[r2], OP_add, dead, &slot);
    if (ai < 0) return 0;
    /* finite and >= 0, as LayerNormalization's parse wants it (the node is
     * changed before it parses) */
    double eps = other_scalar(g, &g->nodes[ai], slot);
    if (!(eps >= 0) || !isfinite(eps)) return 0;
    int si = pass_reader_of(g, &g->nodes[ai], OP_sqrt, dead, &slot);
    if (si < 0 || pass_reader_of(g, &g->nodes[si], OP_div, dead, &slot) != vi || slot != 1) return 0;
    int mi = pass_reader_of(g, &g->nodes[vi], OP_mul, dead, &slot);
    if (mi < 0) return 0;
    const int gamma = g->nodes[mi].in[1 - slot];
    int bi = pass_reader_of(g, &g->nodes[mi], OP_add, dead, &slot);
    if (bi < 0 || g->nodes[bi].out[0] < 0) return 0;
    const int beta = g->nodes[bi].in[1 - slot];
    if (gamma < 0 || beta < 0 || !per_normalised(&g->values[gamma].t, xt, a) ||
        !per_normalised(&g->values[beta].t, xt, a))
        return 0;
    /* shapes: d, the square, the quotient, the product and the result X's;
     * v, v + eps and its sqrt the first mean's */
    const ir_tensor *mt = out_t(g, r1);
    const int full[5] = {di, pi, vi, mi, bi}, row[3] = {r2, ai, si};
    for (int k = 0; k < 5; k++)
        if (!pass_same_shape(out_t(g, full[k]), xt)) return 0;
    for (int k = 0; k < 3; k++)
        if (!pass_same_shape(out_t(g, row[k]), mt)) return 0;
    /* the eight nodes that go carry nothing fused (the first is checked above) */
    const int gone[8] = {di, pi, r2, ai, si, vi, mi, bi};
    for (int k = 0; k < 8; k++)
        if (dead[gone[k]] || !pass_plain(g, &g->nodes[gone[k]])) return 0;
    ir_node *ln = &g->nodes[r1];
    ir_node_clear_attrs(ln);
    ir_node_add_attr_int(ln, "axis", a);
    ir_node_add_attr_float(ln, "epsilon", (float)eps);
    ir_node_set_n_in(ln, 3);
    ln->in[1] = gamma;
    ln->in[2] = beta;
    /* parses: axis in [0, rank), epsilon finite and >= 0 (checked above) */
    PZ_ASSERT(pass_become(g, ln, OP_layer_normalization));
    ln = &g->nodes[r1];
    ln->out[0] = g->nodes[bi].out[0];
    for (int k = 0; k < 8; k++) pass_kill(g, gone[k], dead);
    return 1;
}

void pass_norms(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && pass_is(&g->nodes[i], OP_reduce_mean) && norm_at(g, i, dead)) st->norms++;
}
