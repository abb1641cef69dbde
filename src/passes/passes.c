/* passes.c - the pass pipeline (see passes.h): eliminate, merge common
 * subexpressions, fold Pads, fold BatchNorm,
 * gates, shuffles, norms, then fuse epilogues; each pass is followed by a
 * compaction of the nodes it removed; then nodes folded into constants are
 * dropped, and the graph is sorted and costed again. Also the helpers the
 * passes share (passes_internal.h): who reads a value, whether a node is
 * plain (carries nothing fused), whether two tensors have one shape. */
#include <stdlib.h>
#include <string.h>

#include "../ops/op_infer.h"
#include "passes_internal.h"

int pass_sole_reader(const ir_graph *g, int vid, int *slot)
{
    if (vid < 0 || g->values[vid].is_output) return -1;
    int who = -1, uses = 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] == vid) {
                who = i;
                *slot = k;
                uses++;
            }
    return uses == 1 ? who : -1;
}

void pass_kill(ir_graph *g, int i, unsigned char *dead)
{
    ir_node *n = &g->nodes[i];
    for (int k = 0; k < n->n_in; k++) n->in[k] = -1;
    for (int k = 0; k < n->n_out; k++) n->out[k] = -1;
    dead[i] = 1;
}

int pass_is(const ir_node *n, op_kind k)
{
    return n->op == OPS[k];
}

int pass_plain(const ir_graph *g, const ir_node *n)
{
    if (!n->op || n->act.kind != IR_ACT_NONE || n->n_in > n->op->max_in) return 0;
    for (int k = 1; k < n->n_out; k++) {
        int v = n->out[k];
        if (v >= 0 && !g->values[v].t.data &&
            (g->values[v].is_output || ir_graph_count_uses(g, v)))
            return 0;
    }
    return 1;
}

int pass_same_shape(const ir_tensor *a, const ir_tensor *b)
{
    if (a->dtype != b->dtype || a->rank < 0 || a->rank != b->rank) return 0;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] < 0 || a->dims[d] != b->dims[d]) return 0;
    return 1;
}

int pass_writer(const ir_graph *g, int vid, const unsigned char *dead)
{
    if (vid < 0) return -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && g->nodes[i].n_out > 0 && g->nodes[i].out[0] == vid) return i;
    return -1;
}

int pass_reader_of(const ir_graph *g, const ir_node *n, op_kind k, const unsigned char *dead,
                   int *slot)
{
    if (n->n_out < 1 || n->out[0] < 0) return -1;
    int m = pass_sole_reader(g, n->out[0], slot);
    return m >= 0 && !dead[m] && pass_is(&g->nodes[m], k) ? m : -1;
}

int pass_become(ir_graph *g, ir_node *n, op_kind k)
{
    const op_def *op = OPS[k];
    void *params = op->params_size ? pz_xcalloc(1, op->params_size) : NULL;
    pz_err e = {0};
    if (op->parse && op->parse(g, n, params, &e)) {
        free(params);
        return 0;
    }
    free(n->params);
    n->params = params;
    n->op = op;
    free(n->op_type);
    n->op_type = pz_xstrdup(op->name);
    return 1;
}

int pass_folded(const ir_graph *g, const ir_node *n)
{
    int any = 0;
    for (int k = 0; k < n->n_out; k++) {
        if (n->out[k] < 0) continue;
        if (!g->values[n->out[k]].t.data) return 0;
        any = 1;
    }
    return any;
}

/* Removes the dead nodes; a fresh dead[] for the next pass. */
static void compact(ir_graph *g, unsigned char **dead)
{
    ir_graph_compact(g, *dead);
    free(*dead);
    *dead = pz_xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), 1);
}

pz_status passes_run_stats(ir_graph *g, const passes_opts *opts, passes_stats *stats,
                           pz_err *err)
{
    static const passes_opts all_on;
    passes_stats st;
    memset(&st, 0, sizeof st);
    if (!opts) opts = &all_on;
    unsigned char *dead = pz_xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), 1);
    pz_status rc = PZ_OK;
    if (!opts->no_eliminate) {
        pass_eliminate(g, dead, &st);
        compact(g, &dead);
    }
    /* After elimination (an Identity no longer hides an equal input), before
     * the fusions: equal chains are one chain when patterns are matched. */
    if (!opts->no_cse) {
        pass_cse(g, dead, &st);
        compact(g, &dead);
    }
    if (!opts->no_pad_fold) {
        pass_pad_fold(g, dead, &st);
        compact(g, &dead);
    }
    if (!opts->no_fold_bn) {
        if ((rc = pass_fold_bn(g, dead, &st, err))) goto out;
        compact(g, &dead);
    }
    /* The pattern passes before the epilogues: a pattern's nodes must be
     * plain (pass_plain), and a Relu the epilogues fused into a pattern's
     * last node (a LayerNorm's Add) would keep the pattern from matching.
     * The epilogues then fuse after the new nodes too (a Gelu the gates made,
     * after a MatMul). */
    if (!opts->no_gates) {
        pass_gates(g, dead, &st);
        compact(g, &dead);
    }
    if (!opts->no_shuffles) {
        pass_shuffles(g, dead, &st);
        compact(g, &dead);
    }
    if (!opts->no_norms) {
        pass_norms(g, dead, &st);
        compact(g, &dead);
    }
    if (!opts->no_attention) {
        pass_attention(g, dead, &st);
        compact(g, &dead);
        pass_qkv_slices(g, dead, &st);
        compact(g, &dead);
    }
    if (!opts->no_qdq) {
        pass_qdq(g, dead, &st);
        compact(g, &dead);
        pass_qdyn(g, dead, &st);
        compact(g, &dead);
    }
    if (!opts->no_epilogues) {
        pass_epilogues(g, dead, &st);
        compact(g, &dead);
    }
    if (opts->concat) {
        if ((rc = pass_concat(g, &dead, &st))) {
            pz_fail(err, rc, "concat pass: a Split did not parse");
            goto out;
        }
        compact(g, &dead);
        /* the Q/K/V GEMM the concat pass made is cut by a Split: read in place */
        if (!opts->no_attention) {
            pass_qkv_slices(g, dead, &st);
            compact(g, &dead);
        }
    }
    /* Nodes whose outputs infer folded into constants (Constant, shape
     * arithmetic) never run; they go, and their outputs stay as constants
     * (which is also what lets the graph be sorted again). */
    for (int i = 0; i < g->n_nodes; i++) dead[i] = pass_folded(g, &g->nodes[i]);
    compact(g, &dead);
    /* A node that runs but has an output folded (Dropout's all-true mask):
     * that output is a constant now, not the node's (lowering ignores it). */
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_out; k++) {
            int v = g->nodes[i].out[k];
            if (v >= 0 && g->values[v].t.data) g->nodes[i].out[k] = -1;
        }
    /* a residual Z may be produced after its Conv in the old order */
    if ((rc = ir_graph_sort(g, err))) goto out;
    for (int i = 0; i < g->n_nodes; i++) ir_cost_node(g, &g->nodes[i]);
out:
    free(dead);
    if (stats) *stats = st;
    return rc;
}

pz_status passes_run(ir_graph *g, const passes_opts *opts, pz_err *err)
{
    return passes_run_stats(g, opts, NULL, err);
}
