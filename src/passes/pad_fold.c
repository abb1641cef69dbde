/* pad_fold.c - a constant Pad before the window op that alone reads it
 * becomes that op's pads (PyTorch exports avg_pool2d(x, 3, 1, padding=1)
 * as Pad + AveragePool; tf2onnx's SAME padding as Pad + Conv):
 *
 *   x -> Pad(0, spatial) -> AveragePool      becomes   x -> AveragePool
 *                                                        (pads += Pad's,
 *                                                         count_include_pad 1)
 *   x -> Pad(0, spatial) -> Conv             becomes   x -> Conv (pads +=)
 *   x -> Pad(-inf, spatial) -> MaxPool       becomes   x -> MaxPool (pads +=)
 *
 * Exact: a Conv's pads are zeros, and an AveragePool with count_include_pad
 * counts its pads as the zeros the Pad made (so it folds only where its own
 * pads are zero or already counted). A MaxPool's pads never win; a zero Pad
 * can (all values < 0), so only a -inf Pad folds into it.
 *
 * Folded only when all of this holds, else left: Pad and reader plain
 * (pass_plain), the reader reads the Pad's output as X (slot 0) and alone,
 * not a graph output; Pad mode constant with constant pads and value, X
 * float of rank >= 3, no pads on N and C, spatial pads >= 0; the reader's
 * auto_pad absent or NOTSET, an AveragePool not in ceil_mode (its divisor at
 * the end would differ), and a pool's pads then still smaller than its
 * kernel (what op_pool_parse and the runtime take). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

#define SP_MAX 5 /* OP_MAX_SPATIAL (ops/window.h) */

/* The INT attribute `name` of n, or dflt when absent. */
static int64_t attr_int(const ir_node *n, const char *name, int64_t dflt)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (!strcmp(n->attrs[i].name, name))
            return n->attrs[i].type == IR_ATTR_INT ? n->attrs[i].i : -1;
    return dflt;
}

/* The attribute `name` of n, or NULL. */
static ir_attr *attr_find(ir_node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (!strcmp(n->attrs[i].name, name)) return &n->attrs[i];
    return NULL;
}

/* Whether window node m takes explicit pads: auto_pad absent or NOTSET. */
static int explicit_pads(ir_node *m)
{
    ir_attr *a = attr_find(m, "auto_pad");
    return !a || (a->type == IR_ATTR_STRING && a->s && !strcmp(a->s, "NOTSET"));
}

/* m's pads (2 * nsp entries, zeros when absent) into pads; 0 if malformed. */
static int read_pads(ir_node *m, int nsp, int64_t *pads)
{
    ir_attr *a = attr_find(m, "pads");
    for (int k = 0; k < 2 * nsp; k++) pads[k] = 0;
    if (!a) return 1;
    if (a->type != IR_ATTR_INTS || a->n != 2 * nsp) return 0;
    for (int k = 0; k < 2 * nsp; k++) pads[k] = a->ints[k];
    return 1;
}

/* Sets m's INTS attribute `name` to v[count] (added when absent). */
static void set_ints(ir_node *m, const char *name, const int64_t *v, int count)
{
    ir_attr *a = attr_find(m, name);
    if (!a) {
        m->attrs = pz_xrealloc(m->attrs, (size_t)(m->n_attrs + 1) * sizeof *m->attrs);
        a = &m->attrs[m->n_attrs++];
        *a = (ir_attr){.name = pz_xstrdup(name), .type = IR_ATTR_INTS};
    }
    a->ints = pz_xrealloc(a->ints, (size_t)count * sizeof *a->ints);
    memcpy(a->ints, v, (size_t)count * sizeof *v);
    a->n = count;
}

/* The Pad's spatial pads into add[2 * nsp] (begins, then ends) when it is a
 * foldable constant Pad of fill value `want` over X [N, C, spatial..]. */
static int pad_spatial(const ir_graph *g, const ir_node *n, double want, int64_t *add, int *nsp)
{
    const ir_tensor *x = n->in[0] >= 0 ? &g->values[n->in[0]].t : NULL;
    if (!x || !ir_dtype_is_float(x->dtype) || x->rank < 3 || x->rank - 2 > SP_MAX) return 0;
    int64_t begin[IR_MAX_RANK], end[IR_MAX_RANK];
    double value;
    pz_err e = {0};
    if (op_pad_constant(g, n, begin, end, &value, &e) || value != want) return 0;
    if (begin[0] || end[0] || begin[1] || end[1]) return 0;
    *nsp = x->rank - 2;
    for (int k = 0; k < *nsp; k++) {
        if (begin[2 + k] < 0 || end[2 + k] < 0) return 0;
        add[k] = begin[2 + k];
        add[*nsp + k] = end[2 + k];
    }
    return 1;
}

/* Folds Pad node i into its reader m; 1 when done. */
static int fold_into(ir_graph *g, int i, int m)
{
    ir_node *n = &g->nodes[i], *r = &g->nodes[m];
    int avg = pass_is(r, OP_average_pool), conv = pass_is(r, OP_conv);
    int nsp;
    int64_t add[2 * SP_MAX], pads[2 * SP_MAX], old[2 * SP_MAX];
    if (!pad_spatial(g, n, conv || avg ? 0.0 : -INFINITY, add, &nsp)) return 0;
    if (!explicit_pads(r) || !read_pads(r, nsp, pads)) return 0;
    int64_t cip = avg ? attr_int(r, "count_include_pad", 0) : 0;
    if (avg && (attr_int(r, "ceil_mode", 0) != 0 || (cip != 0 && cip != 1))) return 0;
    int any = 0;
    for (int k = 0; k < 2 * nsp; k++) any |= pads[k] != 0;
    /* an AveragePool whose own pads are not counted cannot count the Pad's */
    if (avg && !cip && any) return 0;
    if (!conv) {
        ir_attr *ks = attr_find(r, "kernel_shape");
        if (!ks || ks->type != IR_ATTR_INTS || ks->n != nsp) return 0;
        for (int k = 0; k < 2 * nsp; k++)
            if (pads[k] + add[k] >= ks->ints[k % nsp]) return 0;
    }
    int had_pads = attr_find(r, "pads") != NULL, had_cip = attr_find(r, "count_include_pad") != NULL;
    memcpy(old, pads, sizeof old);
    for (int k = 0; k < 2 * nsp; k++) pads[k] += add[k];
    int n_attrs = r->n_attrs, x = n->in[0], y = n->out[0];
    set_ints(r, "pads", pads, 2 * nsp);
    if (avg && !had_cip) ir_node_add_attr_int(r, "count_include_pad", 1);
    if (avg && had_cip) attr_find(r, "count_include_pad")->i = 1;
    /* parse and infer again (pads resolve in infer); the output shape is
     * the same, the padded extent being the same */
    void *params = pz_xcalloc(1, r->op->params_size), *keep = r->params;
    pz_err e = {0};
    r->in[0] = x;
    r->params = params;
    ir_tensor before = g->values[r->out[0]].t;
    if (r->op->parse(g, r, params, &e) == PZ_OK && r->op->infer(g, r, &e) == PZ_OK &&
        pass_same_shape(&before, &g->values[r->out[0]].t)) {
        free(keep);
        return 1;
    }
    /* not taken after all: the reader as it was */
    r->params = keep;
    free(params);
    r->in[0] = y;
    g->values[r->out[0]].t.rank = before.rank;
    memcpy(g->values[r->out[0]].t.dims, before.dims, sizeof before.dims);
    if (had_pads) set_ints(r, "pads", old, 2 * nsp);
    if (avg && had_cip) attr_find(r, "count_include_pad")->i = cip;
    while (r->n_attrs > n_attrs) {
        ir_attr *a = &r->attrs[--r->n_attrs];
        free(a->name);
        free(a->ints);
    }
    return 0;
}

void pass_pad_fold(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    static const op_kind readers[] = {OP_average_pool, OP_conv, OP_max_pool};
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        if (dead[i] || !pass_is(n, OP_pad) || n->n_in < 1 || n->n_out < 1 || !pass_plain(g, n))
            continue;
        int m = -1, slot = -1;
        for (int k = 0; k < 3 && m < 0; k++) m = pass_reader_of(g, n, readers[k], dead, &slot);
        if (m < 0 || slot != 0 || !pass_plain(g, &g->nodes[m])) continue;
        if (fold_into(g, i, m)) {
            pass_kill(g, i, dead);
            st->pads_folded++;
        }
    }
}
