/* gate.c - gated activations, as PyTorch exports them, become one
 * element-wise node:
 *
 *   Mul(X, Sigmoid(X))                          Swish(X)      (SiLU: EfficientNet)
 *   Mul(X, HardSigmoid(X; alpha 1/6, beta 1/2))  HardSwish(X)  (opset < 14: MobileNetV3)
 *   Mul(X, Tanh(Softplus(X)))                   Mish(X)       (nn.Mish below opset 18: YOLOv4)
 *
 * in either input order. The Sigmoid (HardSigmoid) node becomes the Swish
 * (HardSwish) node, reading X and writing the Mul's output; the Mul goes.
 * One pass over the tensor instead of two, and no intermediate. Only float32,
 * and the gate must have the Mul as its sole reader and not be a graph
 * output; both nodes plain (pass_plain: no act, nothing fused), the Mul's
 * output of X's type and shape. Results within float rounding of the two
 * nodes (x/6 in place of x * float(1/6)); Mish: the Softplus node becomes
 * it, the Tanh and the Mul go (each intermediate read once, by the next),
 * its value computed in double and rounded once (the chain rounds thrice).
 *
 * GELU as PyTorch exports it below opset 20 (ConvNeXt, transformers):
 *
 *   Mul(Mul(X, Add(Erf(Div(X, sqrt 2)), 1)), 0.5)      Gelu(X)
 *
 * also with Mul(X, 1/sqrt 2) for the Div, either order of Add's and Mul's
 * inputs, and the 0.5 applied first (Mul(X, Mul(Add(..), 0.5))). The Erf
 * node becomes the Gelu, reading X and writing the last Mul's output; the
 * other four go: one pass instead of five. Each intermediate has one reader
 * and is not a graph output; the constants are float32 scalars within 1e-6
 * of sqrt 2, 1/sqrt 2, 1 and 0.5; the five nodes plain (no act, nothing
 * fused); the last Mul's output of X's type and shape (a constant of one
 * element but a higher rank would broadcast it to more dims; as
 * broadcasting never drops dims, every intermediate is then X's shape). */
#include <math.h>
#include <stdbool.h>

#include "passes_internal.h"

/* Whether HardSigmoid node n is x/6 + 1/2 (alpha as a float of 1/6). */
static int hard_swish_gate(const ir_node *n)
{
    float alpha, beta;
    pz_err e = {0};
    if (op_attr_float(n, "alpha", 0.2f, &alpha, &e) || op_attr_float(n, "beta", 0.5f, &beta, &e))
        return 0;
    return alpha == (float)(1.0 / 6.0) && beta == 0.5f;
}

/* The float32 scalar constant that node n reads in slot 1 - slot, if
 * within 1e-6 of want (relative): 1, else 0. */
static int scalar_near(const ir_graph *g, const ir_node *n, int slot, double want)
{
    if (n->n_in != 2 || n->in[1 - slot] < 0) return 0;
    const ir_tensor *t = &g->values[n->in[1 - slot]].t;
    if (!t->data || t->dtype != IR_F32 || ir_tensor_numel(t) != 1) return 0;
    return fabs(*(const float *)t->data - want) <= 1e-6 * fabs(want);
}

/* The slot of node n (two inputs) that reads vid, or -1. */
static int slot_of(const ir_node *n, int vid)
{
    return n->n_in == 2 ? (n->in[0] == vid ? 0 : n->in[1] == vid ? 1 : -1) : -1;
}

/* Erf node i as the core of a GELU (see the top): 1 when rewritten. */
static int gelu_at(ir_graph *g, int i, unsigned char *dead)
{
    ir_node *e = &g->nodes[i];
    if (e->n_in < 1 || e->in[0] < 0) return 0;
    int di = g->values[e->in[0]].producer;
    if (di < 0 || dead[di]) return 0;
    const ir_node *d = &g->nodes[di];
    int slot;
    if (pass_sole_reader(g, d->out[0], &slot) != i) return 0;
    /* Div(X, sqrt 2) or Mul(X, 1/sqrt 2) / Mul(1/sqrt 2, X) */
    int x = -1;
    if (pass_is(d, OP_div) && scalar_near(g, d, 0, M_SQRT2)) x = d->in[0];
    for (int s = 0; s < 2 && x < 0; s++)
        if (pass_is(d, OP_mul) && scalar_near(g, d, s, M_SQRT1_2)) x = d->in[s];
    if (x < 0 || g->values[x].t.dtype != IR_F32) return 0;
    int ai = pass_reader_of(g, e, OP_add, dead, &slot);
    if (ai < 0 || !scalar_near(g, &g->nodes[ai], slot, 1.0)) return 0;
    int m1 = pass_reader_of(g, &g->nodes[ai], OP_mul, dead, &slot);
    if (m1 < 0) return 0;
    int m2 = pass_reader_of(g, &g->nodes[m1], OP_mul, dead, &slot);
    if (m2 < 0) return 0;
    const ir_node *n1 = &g->nodes[m1], *n2 = &g->nodes[m2];
    int s1 = slot_of(n1, g->nodes[ai].out[0]), s2 = slot_of(n2, n1->out[0]);
    if (s1 < 0 || s2 < 0 || n2->out[0] < 0) return 0;
    /* Mul(X, add) then Mul(., 0.5), or Mul(add, 0.5) then Mul(X, .) */
    bool ok = (n1->in[1 - s1] == x && scalar_near(g, n2, s2, 0.5)) ||
              (scalar_near(g, n1, s1, 0.5) && n2->in[1 - s2] == x);
    if (!ok || !pass_same_shape(&g->values[n2->out[0]].t, &g->values[x].t)) return 0;
    const int five[5] = {di, i, ai, m1, m2};
    for (int k = 0; k < 5; k++)
        if (!pass_plain(g, &g->nodes[five[k]])) return 0;
    /* the erf form: Gelu without attributes (approximate "none") parses */
    ir_node_clear_attrs(e);
    PZ_ASSERT(pass_become(g, e, OP_gelu));
    e = &g->nodes[i];
    e->in[0] = x;
    e->out[0] = g->nodes[m2].out[0];
    pass_kill(g, di, dead);
    pass_kill(g, ai, dead);
    pass_kill(g, m1, dead);
    pass_kill(g, m2, dead);
    return 1;
}

/* Softplus node i as the core of a Mish (see the top): 1 when rewritten. */
static int mish_at(ir_graph *g, int i, unsigned char *dead)
{
    ir_node *s = &g->nodes[i];
    if (s->n_in < 1 || s->in[0] < 0 || s->n_out < 1 || s->out[0] < 0) return 0;
    const int x = s->in[0];
    int slot, ti = pass_reader_of(g, s, OP_tanh, dead, &slot);
    if (ti < 0 || slot != 0) return 0;
    int mi = pass_reader_of(g, &g->nodes[ti], OP_mul, dead, &slot);
    if (mi < 0) return 0;
    const ir_node *m = &g->nodes[mi];
    if (m->n_in != 2 || m->in[1 - slot] != x || m->n_out < 1 || m->out[0] < 0 ||
        g->values[x].t.dtype != IR_F32 || !pass_same_shape(&g->values[m->out[0]].t, &g->values[x].t))
        return 0;
    if (!pass_plain(g, s) || !pass_plain(g, &g->nodes[ti]) || !pass_plain(g, m)) return 0;
    PZ_ASSERT(pass_become(g, s, OP_mish));
    s = &g->nodes[i];
    s->out[0] = g->nodes[mi].out[0];
    pass_kill(g, ti, dead);
    pass_kill(g, mi, dead);
    return 1;
}

void pass_gates(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && pass_is(&g->nodes[i], OP_erf) && gelu_at(g, i, dead)) st->gates++;
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && pass_is(&g->nodes[i], OP_softplus) && mish_at(g, i, dead)) st->gates++;
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        bool sig = pass_is(n, OP_sigmoid), hard = pass_is(n, OP_hard_sigmoid);
        if (dead[i] || (!sig && !hard) || n->n_in < 1 || n->out[0] < 0) continue;
        int x = n->in[0], slot, m = pass_sole_reader(g, n->out[0], &slot);
        if (x < 0 || m < 0 || dead[m] || !pass_is(&g->nodes[m], OP_mul)) continue;
        ir_node *mul = &g->nodes[m];
        if (mul->n_in != 2 || mul->in[1 - slot] != x || mul->n_out < 1 || mul->out[0] < 0) continue;
        if (g->values[x].t.dtype != IR_F32 ||
            !pass_same_shape(&g->values[mul->out[0]].t, &g->values[x].t))
            continue;
        if (!pass_plain(g, n) || !pass_plain(g, mul)) continue;
        if (hard && !hard_swish_gate(n)) continue;
        /* Swish's alpha 1 and HardSwish: without attributes, which parses */
        ir_node_clear_attrs(n);
        PZ_ASSERT(pass_become(g, n, sig ? OP_swish : OP_hard_swish));
        n->out[0] = mul->out[0];
        pass_kill(g, m, dead);
        st->gates++;
    }
}
