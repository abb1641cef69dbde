/* model.c - lowering the graph to Model -> F-Blocks -> Layers -> Operators. */
#include "model.h"

#include <string.h>

#include "../ops/op.h"

const char *ir_precision_name(ir_precision p)
{
    static const char *names[] = {"fp32", "bf16", "int8"};
    return (unsigned)p < PZ_ARRAY_LEN(names) ? names[p] : "?";
}

const char *ir_split_name(ir_split s)
{
    static const char *names[] = {"auto", "bands", "channels"};
    return (unsigned)s < PZ_ARRAY_LEN(names) ? names[s] : "?";
}

const char *ir_algo_name(ir_algo a)
{
    static const char *names[] = {"auto", "direct", "winograd"};
    return (unsigned)a < PZ_ARRAY_LEN(names) ? names[a] : "?";
}

/* A node does run-time work unless all its outputs are folded constants. */
static int runs_at_runtime(const ir_graph *g, const ir_node *n)
{
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0 && !g->values[n->out[i]].t.data) return 1;
    return 0;
}

/* Values a block reads from outside, and values it makes that outside reads. */
static void block_io(ir_model *m, ir_fblock *b)
{
    const ir_graph *g = m->g;
    int nv = g->n_values;
    /* 1 = produced in the block, 2 = also read after it */
    unsigned char *mark = pz_xcalloc((size_t)nv, 1);
    free(b->in);
    free(b->out);
    b->in = b->out = NULL;
    b->n_in = b->n_out = 0;
    for (int l = b->first; l < b->first + b->count; l++)
        for (int k = 0; k < m->layers[l].n_out; k++)
            if (m->layers[l].out[k] >= 0) mark[m->layers[l].out[k]] = 1;
    for (int l = b->first; l < b->first + b->count; l++)
        for (int k = 0; k < m->layers[l].n_in; k++) {
            int v = m->layers[l].in[k];
            if (v < 0 || mark[v] || g->values[v].t.data) continue;
            int seen = 0;
            for (int j = 0; j < b->n_in; j++) seen |= b->in[j] == v;
            if (seen) continue;
            b->in = pz_xrealloc(b->in, (size_t)(b->n_in + 1) * sizeof(int));
            b->in[b->n_in++] = v;
        }
    for (int l = b->first + b->count; l < m->n_layers; l++)
        for (int k = 0; k < m->layers[l].n_in; k++) {
            int v = m->layers[l].in[k];
            if (v >= 0 && mark[v] == 1) mark[v] = 2;
        }
    for (int v = 0; v < nv; v++)
        if (mark[v] == 2 || (mark[v] == 1 && g->values[v].is_output)) {
            b->out = pz_xrealloc(b->out, (size_t)(b->n_out + 1) * sizeof(int));
            b->out[b->n_out++] = v;
        }
    free(mark);
}

/* Nodes the runtime cannot run as one layer (Max with 3 inputs, a legacy
 * per-channel PRelu slope) are rewritten into runtime-sized ones by their
 * op's expand hook; a second lowering of the same graph finds nothing to do. */
static void expand_nodes(ir_graph *g)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->op && n->op->expand && runs_at_runtime(g, n)) i += n->op->expand(g, i);
    }
}

ir_model *ir_model_lower(ir_graph *g)
{
    expand_nodes(g);
    ir_model *m = pz_xcalloc(1, sizeof *m);
    m->g = g;
    m->ir_version = g->ir_version;
    m->opset = g->opset;
    m->ops_used = pz_xcalloc(OP_COUNT, 1);
    m->batch = g->n_inputs && g->values[g->inputs[0]].t.rank > 0
                   ? (int)g->values[g->inputs[0]].t.dims[0] : 1;
    m->layers = pz_xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *m->layers);
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!runs_at_runtime(g, n)) continue;
        ir_layer *l = &m->layers[m->n_layers++];
        l->node = i;
        l->op.op = n->op;
        l->op.params = n->params;
        l->mp = 1;
        l->precision = IR_PREC_FP32;
        l->in = n->in;
        l->out = n->out;
        l->n_in = n->n_in;
        l->n_out = n->n_out;
        m->ops_used[op_kind_of(n->op)] = 1;
    }
    int *ones = pz_xmalloc((size_t)(m->n_layers ? m->n_layers : 1) * sizeof(int));
    for (int i = 0; i < m->n_layers; i++) ones[i] = 1;
    pz_err err = {0};
    PZ_ASSERT(ir_model_partition(m, ones, ones, m->n_layers, 1, &err) == PZ_OK);
    free(ones);
    return m;
}

void ir_model_free(ir_model *m)
{
    if (!m) return;
    for (int i = 0; i < m->n_blocks; i++) {
        free(m->blocks[i].in);
        free(m->blocks[i].out);
    }
    free(m->blocks);
    free(m->layers);
    free(m->ops_used);
    free(m);
}

pz_status ir_model_partition(ir_model *m, const int *sizes, const int *mps, int n, int max_mp,
                             pz_err *err)
{
    int total = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 1)
            return pz_fail(err, PZ_ERR_INPUT, "block %d has %d layers; every block needs at "
                           "least one", i, sizes[i]);
        if (mps[i] < 1 || mps[i] > max_mp)
            return pz_fail(err, PZ_ERR_INPUT, "block %d has MP %d; MP must be 1 to %d (the "
                           "cores available)", i, mps[i], max_mp);
        if (sizes[i] > m->n_layers - total)
            return pz_fail(err, PZ_ERR_INPUT, "block %d (%d layers from layer %d) runs past the "
                           "last layer (%d layers in all)", i, sizes[i], total, m->n_layers);
        total += sizes[i];
    }
    if (total != m->n_layers)
        return pz_fail(err, PZ_ERR_INPUT, "the blocks cover %d of the %d layers; layers %d to %d "
                       "are in no block", total, m->n_layers, total, m->n_layers - 1);
    for (int i = 0; i < m->n_blocks; i++) {
        free(m->blocks[i].in);
        free(m->blocks[i].out);
    }
    free(m->blocks);
    m->blocks = pz_xcalloc((size_t)(n ? n : 1), sizeof *m->blocks);
    m->n_blocks = n;
    for (int i = 0, first = 0; i < n; first += sizes[i], i++) {
        ir_fblock *b = &m->blocks[i];
        b->first = first;
        b->count = sizes[i];
        b->mp = mps[i];
        b->split = IR_SPLIT_AUTO;
        b->precision = IR_PREC_FP32;
        for (int l = first; l < first + sizes[i]; l++) m->layers[l].mp = mps[i];
        block_io(m, b);
    }
    return PZ_OK;
}
