/* select.c - a piecewise activation as exporters write it, fused into the
 * Conv, Gemm or linear MatMul whose output y it reads (epilogue.c calls it):
 *
 *   Where(Cmp(y, c), A, B)     torch.where(y > 0, y, 0.2 * y), (y > t, y, 0),
 *                              (y < 0, 0, y), a mask after a sigmoid
 *   Mul(Cast(Cmp(y, c)), y)    (y > 0).float() * y: Where(.., y, 0 * y)
 *   Cast(Cmp(y, c))            (y > 0.5).float(): Where(.., 1, 0)
 *   Mul(Cast(Cmp(y, c)), k)    (y > 0.5).float() * k: Where(.., k, 0 * k)
 *   Not(Cmp(y, c)) in place of Cmp: the branches swapped (NaN: Cmp false,
 *                              Not true, as Where(Cmp, B, A) takes B... A)
 *
 * The Cast's to float32 (float16, double, integers stay unfused); k a
 * finite constant (1 k = k and 0 k = +-0 exactly: Mul's bits).
 * Cmp one of Greater, GreaterOrEqual, Less, LessOrEqual, Equal, y in
 * either slot; A and B each y, a constant, or Mul(y, k) (either order).
 * The producer takes act SELECT (pz_act: the same bits as Cmp, Mul and
 * Where), or LEAKY_RELU where it gives the select's bits on every input
 * (-0 and NaN included). Fused only when all of this holds:
 *   - the producer without act, its output float32 (pass_epilogues);
 *   - y read by the pattern alone (the Cmp, the Muls, the Where's slots),
 *     and the Cmp's, Not's, Cast's and Muls' outputs read by the next node
 *     alone (a lone Cast's output: by anything),
 *     no graph outputs; every node of the pattern plain;
 *   - c, k and the constants float32 constants of one element (any rank
 *     up to y's: they broadcast as scalars), not NaN;
 *   - the Where's (or Mul's) output of y's type and shape.
 * An If's chooser (a Where of one bool, rt/guard.c) fuses only so: its
 * sides then run nothing but y's layer, which the condition reads too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* One element of a float32 constant that broadcasts as a scalar into y,
 * not NaN: input slot of node n. */
static int scalar_const(const ir_graph *g, const ir_node *n, int slot, const ir_tensor *y, float *v)
{
    const ir_tensor *t = op_in_const(g, n, slot);
    if (!t || t->dtype != IR_F32 || ir_tensor_numel(t) != 1 || t->rank > y->rank) return 0;
    *v = ((const float *)t->data)[0];
    return !isnan(*v);
}

/* Cmp node m (plain) reading y in one slot: its pz_compare_func with y on
 * the left, and the other slot (*cs). */
static int cmp_of(const ir_graph *g, const ir_node *m, int yv, int *cmp, int *cs)
{
    static const struct { op_kind op; int func, swapped; } CMP[] = {
        {OP_greater, PZ_CMP_GT, PZ_CMP_LT},       {OP_greater_or_equal, PZ_CMP_GE, PZ_CMP_LE},
        {OP_less, PZ_CMP_LT, PZ_CMP_GT},          {OP_less_or_equal, PZ_CMP_LE, PZ_CMP_GE},
        {OP_equal, PZ_CMP_EQ, PZ_CMP_EQ},
    };
    if (m->n_in != 2 || (m->in[0] != yv && m->in[1] != yv)) return 0;
    for (size_t k = 0; k < sizeof CMP / sizeof CMP[0]; k++) {
        if (!pass_is(m, CMP[k].op)) continue;
        int ys = m->in[0] == yv ? 0 : 1;
        if (m->in[1 - ys] == yv || !pass_plain(g, m)) return 0;
        *cmp = ys == 0 ? CMP[k].func : CMP[k].swapped;
        *cs = 1 - ys;
        return 1;
    }
    return 0;
}

/* The comparison of Cmp node m reading y (the other input the constant):
 * its pz_compare_func with y on the left, and the threshold. */
static int cmp_with_const(const ir_graph *g, const ir_node *m, int yv, int *cmp, float *t)
{
    int cs;
    return cmp_of(g, m, yv, cmp, &cs) && scalar_const(g, m, cs, &g->values[yv].t, t);
}

/* A Mul node w reading y and a constant k (either order), plain. */
static int mul_by_const(const ir_graph *g, const ir_node *w, int yv, float *k)
{
    if (!pass_is(w, OP_mul) || w->n_in != 2 || !pass_plain(g, w)) return 0;
    int ys = w->in[0] == yv ? 0 : w->in[1] == yv ? 1 : -1;
    return ys >= 0 && w->in[1 - ys] != yv && scalar_const(g, w, 1 - ys, &g->values[yv].t, k);
}

/* Where's branch in slot s (1 A, 2 B) as SELECT takes it: y (1 * y), a
 * constant (*is_k), or Mul(y, k) (*mul its node, read by the Where alone). */
static int branch(const ir_graph *g, const ir_node *wh, int s, int yv, const unsigned char *dead,
                  float *k, int *is_k, int *mul)
{
    int v = wh->in[s], slot;
    *is_k = 0;
    *mul = -1;
    if (v == yv) {
        *k = 1.0f;
        return 1;
    }
    if (scalar_const(g, wh, s, &g->values[yv].t, k)) return *is_k = 1;
    int w = pass_writer(g, v, dead);
    if (w < 0 || pass_sole_reader(g, v, &slot) < 0 || !mul_by_const(g, &g->nodes[w], yv, k))
        return 0;
    *mul = w;
    return 1;
}

/* After Cast(Cmp) (node *wi, float32): Mul(Cast, y) is Where(.., 1 y, 0 y)
 * (-0, NaN on inf: Mul's bits), Mul(Cast, k) Where(.., k, 0 k), the Cast
 * alone Where(.., 1, 0). *wi becomes the node whose output is the act's,
 * the nodes it passes over go to gone, the Mul's read of y to uses. */
static void cast_branches(const ir_graph *g, int *wi, int yv, const unsigned char *dead, ir_act *a,
                          int *uses, int *gone, int *ng)
{
    int slot, mi = pass_sole_reader(g, g->nodes[*wi].out[0], &slot);
    const ir_node *m = mi >= 0 && !dead[mi] ? &g->nodes[mi] : NULL;
    float k;
    *a = (ir_act){.kind = a->kind, .t = a->t, .cmp = a->cmp, .lo = 1.0f, .sel = 3};
    if (!m || !pass_is(m, OP_mul) || m->n_in != 2 || !pass_plain(g, m)) return;
    if (m->in[1 - slot] == yv) {
        a->sel = 0;
        (*uses)++;
    } else if (scalar_const(g, m, 1 - slot, &g->values[yv].t, &k) && isfinite(k)) {
        a->lo = 1.0f * k;
        a->hi = 0.0f * k;
    } else {
        return;   /* a Mul by something else: the Cast alone */
    }
    gone[(*ng)++] = *wi;
    *wi = mi;
}

/* LEAKY_RELU(a) (v < 0 ? a v : v, the same expression in every kernel)
 * where it computes a's select bit for bit: Where(y < 0, a y, y),
 * Where(y >= 0, y, a y), and with a finite and its sign bit clear (0 times
 * a then +0) Where(y <= 0, a y, y), Where(y > 0, y, a y). Never RELU: its
 * kernels' max gives +0 or 0 on -0 or NaN in some (the GEMM's), where
 * Where(y < 0, 0, y) keeps them. */
static void leaky_act(ir_act *a)
{
    const int lt = a->cmp == PZ_CMP_LT || a->cmp == PZ_CMP_LE;
    const float on = lt ? a->lo : a->hi, off = lt ? a->hi : a->lo;   /* below t, above */
    const int on_k = a->sel & (lt ? 1 : 2), off_k = a->sel & (lt ? 2 : 1);
    if (a->t != 0 || a->cmp == PZ_CMP_EQ || on_k || off_k || off != 1.0f || !isfinite(on)) return;
    const int strict = a->cmp == PZ_CMP_LT || a->cmp == PZ_CMP_GE;   /* 0 takes the y branch */
    if (strict || !signbit(on)) *a = (ir_act){.kind = IR_ACT_LEAKY_RELU, .lo = on};
}

int pass_fuse_select(ir_graph *g, int i, unsigned char *dead, passes_stats *st)
{
    ir_node *n = &g->nodes[i];
    const int yv = n->out[0];
    if (n->act.kind != IR_ACT_NONE || g->values[yv].is_output) return 0;
    const ir_tensor *y = &g->values[yv].t;
    /* the Cmp: the first node reading y that is one */
    int ci = -1, cmp = 0, slot;
    float t = 0;
    for (int j = 0; j < g->n_nodes && ci < 0; j++)
        if (!dead[j] && cmp_with_const(g, &g->nodes[j], yv, &cmp, &t)) ci = j;
    if (ci < 0) return 0;
    int wi = pass_sole_reader(g, g->nodes[ci].out[0], &slot), gone[6], ng = 0, uses = 1, neg = 0;
    if (wi >= 0 && !dead[wi] && pass_is(&g->nodes[wi], OP_not) && pass_plain(g, &g->nodes[wi])) {
        gone[ng++] = wi;   /* Not(Cmp): the mask its output, the branches swapped below */
        neg = 1;
        wi = pass_sole_reader(g, g->nodes[wi].out[0], &slot);
    }
    if (wi < 0 || dead[wi] || !pass_plain(g, &g->nodes[wi])) return 0;
    ir_node *wh = &g->nodes[wi];
    ir_act a = {.kind = IR_ACT_SELECT, .t = t, .cmp = cmp};
    if (pass_is(wh, OP_where) && slot == 0 && wh->n_in == 3) {
        int ka, kb, ma, mb;
        if (!branch(g, wh, 1, yv, dead, &a.lo, &ka, &ma) || !branch(g, wh, 2, yv, dead, &a.hi, &kb, &mb))
            return 0;
        a.sel = ka | kb << 1;
        uses += (wh->in[1] == yv) + (wh->in[2] == yv) + (ma >= 0) + (mb >= 0);
        if (ma >= 0) gone[ng++] = ma;
        if (mb >= 0) gone[ng++] = mb;
    } else if (pass_is(wh, OP_cast) && wh->n_in == 1 && wh->n_out >= 1 &&
               g->values[wh->in[0]].t.dtype == IR_BOOL && g->values[wh->out[0]].t.dtype == IR_F32) {
        cast_branches(g, &wi, yv, dead, &a, &uses, gone, &ng);
    } else {
        return 0;
    }
    if (neg) {   /* Where(Not(m), A, B) = Where(m, B, A) */
        const float lo = a.lo;
        a.lo = a.hi;
        a.hi = lo;
        a.sel = (a.sel & 1) << 1 | (a.sel & 2) >> 1;
    }
    wh = &g->nodes[wi];
    if (wh->n_out < 1 || wh->out[0] < 0 || !pass_same_shape(&g->values[wh->out[0]].t, y) ||
        ir_graph_count_uses(g, yv) != uses)
        return 0;
    leaky_act(&a);
    n->act = a;
    n->out[0] = wh->out[0];
    gone[ng++] = ci;
    gone[ng++] = wi;
    for (int k = 0; k < ng; k++) pass_kill(g, gone[k], dead);
    st->acts += ng;
    return 1;
}

/* Input slot cs of Cmp m as thresholds for y along axis: a constant
 * float32 of one element, or varying along that axis alone (its dims 1
 * but the one lined up with the axis, which is y's). *count: 1 or y's
 * dims[axis]. */
static const float *chan_const(const ir_graph *g, const ir_node *m, int cs, const ir_tensor *y,
                               int axis, int64_t *count)
{
    const ir_tensor *t = op_in_const(g, m, cs);
    if (!t || t->dtype != IR_F32 || t->rank > y->rank || ir_tensor_numel(t) < 1) return NULL;
    for (int d = 0; d < t->rank; d++) {
        int k = y->rank - t->rank + d;   /* the axis of y it lines up with */
        if (t->dims[d] != 1 && (k != axis || t->dims[d] != y->dims[axis])) return NULL;
    }
    *count = ir_tensor_numel(t);
    return t->data;
}

/* Cmp(y, c) [-> Not] whose bool output is read as it is (a graph output,
 * And/Or/Xor, an unfused Where's condition, a Cast to another type): the
 * producer writes the bool itself (rt/ops/mask_out.h), its act SELECT with
 * both branches 1 y (the kernels' epilogue leaves y as it is) carrying the
 * comparison, sel bit 4 the Not (NaN: Cmp false, Not true); c one float32
 * constant (act.t) or one per channel (a Conv's axis 1, a Gemm's or
 * MatMul's last axis), which becomes the producer's input 4. y read by the
 * Cmp alone, no graph output; the producer without act, residual or PRelu
 * slopes; the mask of y's shape. */
int pass_fuse_mask(ir_graph *g, int i, unsigned char *dead, passes_stats *st)
{
    ir_node *n = &g->nodes[i];
    const int yv = n->out[0];
    /* not in a region of run-time shapes: the bool-writing layer plans its
     * tiles at compile time (MATMUL refuses a bool Y there) */
    if (n->act.kind != IR_ACT_NONE || n->n_in > 3 || g->values[yv].is_output ||
        g->values[yv].dyn || g->values[yv].rt_alloc || ir_graph_count_uses(g, yv) != 1)
        return 0;
    const ir_tensor y = g->values[yv].t;
    const int axis = pass_is(n, OP_conv) ? 1 : y.rank - 1;
    int ci = -1, cmp = 0, cs = 0, slot;
    int64_t count = 0;
    const float *tv = NULL;
    for (int j = 0; j < g->n_nodes && ci < 0; j++)
        if (!dead[j] && cmp_of(g, &g->nodes[j], yv, &cmp, &cs) &&
            (tv = chan_const(g, &g->nodes[j], cs, &y, axis, &count)))
            ci = j;
    if (ci < 0 || g->nodes[ci].n_out < 1 || axis < 0) return 0;
    int mv = g->nodes[ci].out[0], ni = pass_sole_reader(g, mv, &slot), neg = 0;
    if (ni >= 0 && !dead[ni] && pass_is(&g->nodes[ni], OP_not) && pass_plain(g, &g->nodes[ni]) &&
        g->nodes[ni].n_out >= 1 && g->nodes[ni].out[0] >= 0) {
        neg = 1;
        mv = g->nodes[ni].out[0];
    }
    ir_tensor want = y;
    want.dtype = IR_BOOL;
    if (mv < 0 || !pass_same_shape(&g->values[mv].t, &want)) return 0;
    n->act = (ir_act){.kind = IR_ACT_SELECT, .t = count == 1 ? tv[0] : 0, .cmp = cmp, .lo = 1.0f,
                      .hi = 1.0f, .sel = neg ? 4 : 0};
    if (count > 1) {   /* the thresholds: input 4 (a new constant; may move g->values) */
        char name[512];
        snprintf(name, sizeof name, "%s:thresholds", g->values[g->nodes[ci].in[cs]].name);
        float *copy = pz_xmalloc((size_t)count * sizeof(float));
        memcpy(copy, tv, (size_t)count * sizeof(float));
        int sv = ir_graph_add_value_unique(g, name);
        g->values[sv].t = (ir_tensor){.dtype = IR_F32, .rank = 1, .dims = {count}};
        g->values[sv].is_initializer = 1;
        ir_value_set_data(g, sv, copy, (size_t)count * sizeof(float));
        free(copy);
        n = &g->nodes[i];
        ir_node_set_n_in(n, 5);   /* a missing bias or Z stays -1 */
        n->in[4] = sv;
    }
    n->out[0] = mv;
    pass_kill(g, ci, dead);
    if (neg) pass_kill(g, ni, dead);
    st->acts += 1 + neg;
    return 1;
}
