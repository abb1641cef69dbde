/* concat_layers.c - concatenation (Paleozoic's Table 4 knob): independent
 * layers that read one input and whose kernels allow it run as one
 * operator, their weights concatenated along the output channels (N), and
 * one Split gives each layer's output back:
 *
 *   Conv(X, W1, B1) ... Conv(X, Wk, Bk)     1x1, group 1 (inception branches)
 *     -> Conv(X, [W1;..;Wk], [B1;..;Bk]) -> Split(axis 1)
 *   MatMul(A, B1, b1) ... MatMul(A, Bk, bk) constant 2-D B (Q, K, V projections)
 *     -> MatMul(A, [B1|..|Bk], [b1|..|bk]) -> Split(last axis)
 *   Gemm(A, B1, C1) ... Gemm(A, Bk, Ck)     transA 0, alpha = beta = 1
 *     -> Gemm(A, [B1;..;Bk] or [B1|..|Bk], [C1|..|Ck]) -> Split(axis 1)
 *
 * Exact: every kernel computes an output channel (column) as a reduction
 * over the input channels (K) in an order that does not depend on how many
 * channels there are (tests/parts/43-concat.sh checks bitwise equality on
 * GoogLeNet, Inception-v3 and a Q/K/V encoder), but the runtime picks
 * another 1x1 conv kernel for M == 16 or M % 16 == 8 output channels on
 * AVX-512 (conv8x2.h: input channels summed in pairs, another rounding).
 * So convs merge only within one of two families, which keep their kernel
 * merged: M == 16 or M % 16 == 8, with exactly one member of 8 mod 16
 * (the sum is then 8 mod 16: conv8x2 still), and every other width (the
 * direct conv: the sum is neither 16 nor 8 mod 16). A larger N fills the kernels' tiles:
 * GoogLeNet's 16- and 24-channel branches waste most of a 32-wide tile.
 *
 * The merged node is the group's first (it keeps its place, its act and
 * its attributes) and is named after every member, "A+B+C", so that
 * profiles, inspect and the generated C show the branches. Its output is a
 * new value "<host>:concat" (its weights "<host>:concat_w", its bias
 * "<host>:concat_b"); the Split (named "A:split", after the merged name's
 * first member) writes the
 * members' own output values, so the rest of the graph is unchanged.
 *
 * Rewritten only when: float32 X, weights and biases constant; the members
 * plain but for their own epilogue (act and a fused bias: no residual Z, no
 * other output read); every member of one op with one act (kind and
 * bounds) and all or none with a bias; Conv: kernel 1x1, group 1, the same
 * strides, pads, dilations and auto_pad, X read in slot 0; Gemm: transA 0,
 * alpha and beta 1, one transB; a bias of N constants along the last axis.
 * Convs are ordered so that every member but the last has a multiple of 16
 * channels: the Split of an NCHW16c tensor is then a chunked copy in whole
 * blocks (rt/ops/concat.c); a second member that is not a multiple of 16
 * stays alone. */
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

#define CONCAT_MAX 16   /* members of one group */

enum { K_NONE, K_CONV, K_MATMUL, K_GEMM };

static int64_t attr_i(const ir_node *n, const char *name, int64_t def)
{
    int64_t v = def;
    pz_err e = {0};
    if (op_attr_int(n, name, def, &v, &e)) return -999;
    return v;
}

static float attr_f(const ir_node *n, const char *name, float def)
{
    float v = def;
    pz_err e = {0};
    if (op_attr_float(n, name, def, &v, &e)) return -999.0f;
    return v;
}

static const ir_tensor *val(const ir_graph *g, const ir_node *n, int k)
{
    return k < n->n_in && n->in[k] >= 0 ? &g->values[n->in[k]].t : NULL;
}

/* A bias of nn constant floats along the last axis (dims 1 but the last). */
static int bias_ok(const ir_tensor *b, int64_t nn)
{
    if (!b) return 1;
    if (b->dtype != IR_F32 || !b->data || b->rank < 1 || b->dims[b->rank - 1] != nn) return 0;
    for (int d = 0; d + 1 < b->rank; d++)
        if (b->dims[d] != 1) return 0;
    return 1;
}

/* Whether no output of n but output 0 is read or a graph output. */
static int one_output(const ir_graph *g, const ir_node *n)
{
    if (n->n_out < 1 || n->out[0] < 0) return 0;
    for (int k = 1; k < n->n_out; k++) {
        int v = n->out[k];
        if (v >= 0 && !g->values[v].t.data &&
            (g->values[v].is_output || ir_graph_count_uses(g, v)))
            return 0;
    }
    return 1;
}

/* A conv's kernel family (see the top): 1 for M == 16 or M % 16 == 8 (the
 * conv8x2 kernel on AVX-512), 0 for the rest (the direct conv: with at
 * most one member not a multiple of 16, the sum is neither 16 nor 8 mod
 * 16 when that member is not). */
static int conv_family(int64_t m)
{
    return m == 16 || m % 16 == 8;
}

/* The kind of group node n can join (K_NONE: none), and its N. */
static int kind_of(const ir_graph *g, const ir_node *n, int64_t *nn)
{
    if (!n->op || n->n_in < 2 || n->n_in > 3 || n->in[0] < 0 || n->in[1] < 0 ||
        !one_output(g, n))
        return K_NONE;
    const ir_tensor *x = val(g, n, 0), *w = val(g, n, 1), *b = val(g, n, 2);
    if (x->dtype != IR_F32 || x->data || w->dtype != IR_F32 || !w->data ||
        g->values[n->out[0]].t.dtype != IR_F32)   /* not a bool mask (select.c) */
        return K_NONE;
    if (pass_is(n, OP_conv)) {
        if (w->rank != 4 || x->rank != 4 || w->dims[2] != 1 || w->dims[3] != 1 ||
            attr_i(n, "group", 1) != 1)
            return K_NONE;
        *nn = w->dims[0];
        return b && (b->rank != 1 || !bias_ok(b, *nn)) ? K_NONE : K_CONV;
    }
    if (pass_is(n, OP_matmul)) {
        if (w->rank != 2 || x->rank < 2) return K_NONE;
        *nn = w->dims[1];
        return bias_ok(b, *nn) ? K_MATMUL : K_NONE;
    }
    if (pass_is(n, OP_gemm)) {
        if (w->rank != 2 || x->rank != 2 || attr_i(n, "transA", 0) != 0 ||
            attr_f(n, "alpha", 1.0f) != 1.0f || (b && attr_f(n, "beta", 1.0f) != 1.0f))
            return K_NONE;
        int64_t tb = attr_i(n, "transB", 0);
        if (tb != 0 && tb != 1) return K_NONE;
        *nn = tb ? w->dims[0] : w->dims[1];
        return bias_ok(b, *nn) ? K_GEMM : K_NONE;
    }
    return K_NONE;
}

/* Whether INTS attribute `name` of a and b is the same (absent = absent). */
static int same_ints(const ir_node *a, const ir_node *b, const char *name)
{
    int64_t va[IR_MAX_RANK * 2], vb[IR_MAX_RANK * 2];
    int ca = -1, cb = -1;
    pz_err e = {0};
    if (!op_attr(a, name)) ca = 0;
    else if (op_attr_ints(a, name, va, IR_MAX_RANK * 2, &ca, &e)) return 0;
    if (!op_attr(b, name)) cb = 0;
    else if (op_attr_ints(b, name, vb, IR_MAX_RANK * 2, &cb, &e)) return 0;
    return ca == cb && !memcmp(va, vb, (size_t)ca * sizeof *va);
}

/* Whether b can join a's group (both of kind k, reading one X). */
static int compatible(const ir_graph *g, const ir_node *a, const ir_node *b, int k)
{
    const ir_tensor *ba = val(g, a, 2), *bb = val(g, b, 2);
    if (a->op != b->op || a->in[0] != b->in[0] || !ba != !bb || (ba && ba->rank != bb->rank) || a->act.kind != b->act.kind ||
        a->act.lo != b->act.lo || a->act.hi != b->act.hi || a->act.t != b->act.t ||
        a->act.cmp != b->act.cmp || a->act.sel != b->act.sel)
        return 0;
    const ir_tensor *wa = val(g, a, 1), *wb = val(g, b, 1);
    if (k == K_CONV) {
        const char *pa = NULL, *pb = NULL;
        pz_err e = {0};
        if (op_attr_string(a, "auto_pad", "NOTSET", &pa, &e) ||
            op_attr_string(b, "auto_pad", "NOTSET", &pb, &e) || strcmp(pa, pb))
            return 0;
        const ir_tensor *ya = &g->values[a->out[0]].t, *yb = &g->values[b->out[0]].t;
        return wa->dims[1] == wb->dims[1] && same_ints(a, b, "strides") &&
               same_ints(a, b, "pads") && same_ints(a, b, "dilations") &&
               ya->dims[2] == yb->dims[2] && ya->dims[3] == yb->dims[3];
    }
    if (k == K_GEMM) {
        int64_t t = attr_i(a, "transB", 0);
        if (t != attr_i(b, "transB", 0)) return 0;
        return t ? wa->dims[1] == wb->dims[1] : wa->dims[0] == wb->dims[0];
    }
    return wa->dims[0] == wb->dims[0];
}

/* Concatenates the members' constant input `slot` (weights or biases):
 * as rows (rows = 1: one after the other) of nn[i] columns each when
 * `cols`, else as whole tensors; into a new value shaped like the first
 * with dim `axis` = the sum. */
static int concat_const(ir_graph *g, const int *mem, int n, int slot, int cols, int axis,
                        const char *base)
{
    const ir_tensor t0 = *val(g, &g->nodes[mem[0]], slot);
    int64_t sum = 0, rows = cols ? t0.dims[0] : 1;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        const ir_tensor *t = val(g, &g->nodes[mem[i]], slot);
        sum += t->dims[axis];
        total += t->nbytes;
    }
    char *buf = pz_xmalloc(total ? total : 1), *p = buf;
    for (int64_t r = 0; r < rows; r++)
        for (int i = 0; i < n; i++) {
            const ir_tensor *t = val(g, &g->nodes[mem[i]], slot);
            size_t chunk = t->nbytes / (size_t)rows;
            memcpy(p, (const char *)t->data + (size_t)r * chunk, chunk);
            p += chunk;
        }
    int v = ir_graph_add_value_unique(g, base);
    ir_tensor nt = t0;
    nt.data = NULL;
    nt.nbytes = 0;
    nt.dims[axis] = sum;
    g->values[v].t = nt;
    g->values[v].is_initializer = 1;
    ir_value_take_data(g, v, buf, total);
    return v;
}

/* An INTS attribute (Split's "split" before opset 13). */
static void add_attr_ints(ir_node *n, const char *name, const int64_t *v, int cnt)
{
    n->attrs = pz_xrealloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *n->attrs);
    int64_t *c = pz_xmalloc((size_t)cnt * sizeof *c);
    memcpy(c, v, (size_t)cnt * sizeof *c);
    n->attrs[n->n_attrs++] = (ir_attr){.name = pz_xstrdup(name), .type = IR_ATTR_INTS,
                                       .n = cnt, .ints = c};
}

/* Rewrites group mem[0..n) (node indices in the Split's order) of kind k
 * into node `host` (the earliest member: its place in the order comes
 * before every reader of the members' outputs); returns 1 if it did. */
static int merge(ir_graph *g, int host, int *mem, const int64_t *nn, int n, int k,
                 unsigned char *dead)
{
    const ir_node *first = &g->nodes[host];
    int trans_b = k == K_GEMM && attr_i(first, "transB", 0);
    /* weights: Conv's [M, C, 1, 1] and a transposed Gemm B [N, K] one after
     * the other; MatMul's and Gemm's [K, N] side by side, row by row */
    int by_cols = k == K_MATMUL || (k == K_GEMM && !trans_b);
    char base[512], wname[520], bname[520];
    snprintf(base, sizeof base, "%s:concat", first->name ? first->name : "layer");
    snprintf(wname, sizeof wname, "%s_w", base);
    snprintf(bname, sizeof bname, "%s_b", base);
    int has_bias = first->n_in == 3 && first->in[2] >= 0;
    int brank = has_bias ? val(g, first, 2)->rank : 0;
    int wv = concat_const(g, mem, n, 1, by_cols, by_cols ? 1 : 0, wname);
    int bv = -1;
    if (has_bias) bv = concat_const(g, mem, n, 2, 0, brank - 1, bname);
    /* the merged output, and the members' outputs for the Split */
    int outs[CONCAT_MAX];
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        outs[i] = g->nodes[mem[i]].out[0];
        sum += nn[i];
    }
    ir_tensor yt = g->values[outs[0]].t;
    int axis = k == K_CONV ? 1 : yt.rank - 1;
    int yv = ir_graph_add_value_unique(g, base);
    yt.data = NULL;
    yt.nbytes = 0;
    yt.dims[axis] = sum;
    g->values[yv].t = yt;

    /* the name: every member's, joined by '+' */
    size_t len = 1;
    for (int i = 0; i < n; i++) len += strlen(g->nodes[mem[i]].name ? g->nodes[mem[i]].name : "?") + 1;
    char *name = pz_xmalloc(len);
    name[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i) strcat(name, "+");
        strcat(name, g->nodes[mem[i]].name ? g->nodes[mem[i]].name : "?");
    }
    char sname[600];
    snprintf(sname, sizeof sname, "%s:split", g->nodes[mem[0]].name ? g->nodes[mem[0]].name : "layer");

    int64_t sizes[CONCAT_MAX];
    memcpy(sizes, nn, (size_t)n * sizeof *sizes);
    int si = ir_graph_insert_node(g, host + 1, sname, "Split", "", 1, n);
    /* the insert moved every node after the host up by one */
    for (int i = 0; i < n; i++)
        if (mem[i] > host) mem[i]++;
    ir_node *sp = &g->nodes[si];
    sp->in[0] = yv;
    ir_node_add_attr_int(sp, "axis", axis);
    if (g->opset >= 13) {
        int sv = ir_graph_add_value_unique(g, sname);
        g->values[sv].t = (ir_tensor){.dtype = IR_I64, .rank = 1, .dims = {n}};
        g->values[sv].is_initializer = 1;
        ir_value_set_data(g, sv, sizes, (size_t)n * sizeof *sizes);
        sp = &g->nodes[si];
        ir_node_set_n_in(sp, 2);
        sp->in[1] = sv;
    } else {
        add_attr_ints(sp, "split", sizes, n);
    }
    for (int i = 0; i < n; i++) sp->out[i] = outs[i];
    if (!pass_become(g, sp, OP_split)) {
        /* cannot happen for a well-formed split; undo what the graph sees */
        sp->in[0] = -1;
        for (int i = 0; i < n; i++) sp->out[i] = -1;
        free(name);
        return -1;
    }
    ir_node *m = &g->nodes[host];
    m->in[1] = wv;
    if (bv >= 0) m->in[2] = bv;
    m->out[0] = yv;
    free(m->name);
    m->name = name;
    for (int i = 0; i < n; i++)
        if (mem[i] != host) pass_kill(g, mem[i], dead);
    return 1;
}

/* Where node m's output goes: 0 when a Concat alone reads it as its first
 * input, 1 as its last, else -1. */
static int concat_end(const ir_graph *g, int m)
{
    int slot, r = pass_sole_reader(g, g->nodes[m].out[0], &slot);
    if (r < 0 || !pass_is(&g->nodes[r], OP_concat)) return -1;
    return slot == 0 ? 0 : slot == g->nodes[r].n_in - 1 ? 1 : -1;
}

/* Moves member q of mem/nn (n) to position to (0 or n - 1). */
static void move_member(int *mem, int64_t *nn, int n, int q, int to)
{
    int tm = mem[q];
    int64_t tn = nn[q];
    if (to) {
        for (int i = q; i + 1 < n; i++) mem[i] = mem[i + 1], nn[i] = nn[i + 1];
    } else {
        for (int i = q; i > 0; i--) mem[i] = mem[i - 1], nn[i] = nn[i - 1];
    }
    mem[to] = tm;
    nn[to] = tn;
}

/* A merged conv's output can be placed around a branch that starts or
 * ends a Concat (rt/inplace.c: the branch written straight into the
 * concat, the other members' parts outside it) when that branch is last
 * in the Split and first in the Concat, or first and last: an inception
 * module's 1x1 branch is its concat's first input. The member whose width
 * is not a multiple of 16 stays last (`last_fixed`). */
static void order_for_concat(const ir_graph *g, int *mem, int64_t *nn, int n, int last_fixed)
{
    for (int q = 0; q < n; q++) {
        int e = concat_end(g, mem[q]);
        if (e == 0 && !last_fixed) {
            move_member(mem, nn, n, q, n - 1);
            return;
        }
        if (e == 1) {
            move_member(mem, nn, n, q, 0);
            return;
        }
    }
}

pz_status pass_concat(ir_graph *g, unsigned char **deadp, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++) {
        unsigned char *dead = *deadp;
        int64_t n0;
        ir_node *a = &g->nodes[i];
        int k;
        if (dead[i] || (k = kind_of(g, a, &n0)) == K_NONE) continue;
        int mem[CONCAT_MAX], n = 1, unaligned = k == K_CONV && n0 % 16 ? 0 : -1;
        int64_t nn[CONCAT_MAX];
        mem[0] = i;
        nn[0] = n0;
        for (int j = i + 1; j < g->n_nodes && n < CONCAT_MAX; j++) {
            int64_t nj;
            const ir_node *b = &g->nodes[j];
            if (dead[j] || kind_of(g, b, &nj) != k || !compatible(g, &g->nodes[i], b, k)) continue;
            if (k == K_CONV && conv_family(nj) != conv_family(n0)) continue;
            if (k == K_CONV && nj % 16) {
                if (unaligned >= 0) continue;
                unaligned = n;
            }
            mem[n] = j;
            nn[n++] = nj;
        }
        if (n < 2) continue;
        /* the 16-channel family merges only with one member of 8 mod 16 */
        if (k == K_CONV && conv_family(n0) == 1 && unaligned < 0) continue;
        /* the member that is not a multiple of 16 channels goes last in
         * the Split; node i, the earliest, stays the merged node */
        if (unaligned >= 0 && unaligned != n - 1) {
            int tm = mem[unaligned];
            int64_t tn = nn[unaligned];
            for (int q = unaligned; q + 1 < n; q++) mem[q] = mem[q + 1], nn[q] = nn[q + 1];
            mem[n - 1] = tm;
            nn[n - 1] = tn;
        }
        if (k == K_CONV) order_for_concat(g, mem, nn, n, unaligned >= 0);
        /* the dead marks follow the inserted Split */
        unsigned char *nd = pz_xcalloc((size_t)g->n_nodes + 1, 1);
        memcpy(nd, dead, (size_t)i + 1);
        memcpy(nd + i + 2, dead + i + 1, (size_t)(g->n_nodes - i - 1));
        free(dead);
        *deadp = nd;
        int r = merge(g, i, mem, nn, n, k, nd);
        if (r < 0) return PZ_ERR_INTERNAL;
        st->concat_groups++;
        st->concat_layers += n;
        i++;   /* the Split */
    }
    return PZ_OK;
}
