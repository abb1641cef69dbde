/* model.c - the Model -> F-Blocks -> Layers -> Operators IR: names, partition, free.
 * Lowering a graph into it walks the op table: src/ops/op_lower.c. */
#include "model.h"

const char *ir_precision_name(ir_precision p)
{
    static const char *names[] = {"fp32", "bf16", "int8"};
    return (unsigned)p < PZ_ARRAY_LEN(names) ? names[p] : "?";
}

const char *ir_weights_name(ir_weights w)
{
    static const char *names[] = {"fp32", "fp16"};
    return (unsigned)w < PZ_ARRAY_LEN(names) ? names[w] : "?";
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

/* Values a block reads from outside, and values it makes that outside reads. */
/* The value whose bytes v is (a view's root, view_src followed), or v. */
static int root_of(const ir_model *m, int v)
{
    while (v >= 0 && m->view_src && m->view_src[v] >= 0) v = m->view_src[v];
    return v;
}

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
            int v = root_of(m, m->layers[l].in[k]);
            if (v < 0 || mark[v] || g->values[v].t.data) continue;
            int seen = 0;
            for (int j = 0; j < b->n_in; j++) seen |= b->in[j] == v;
            if (seen) continue;
            b->in = pz_xrealloc(b->in, (size_t)(b->n_in + 1) * sizeof(int));
            b->in[b->n_in++] = v;
        }
    for (int l = b->first + b->count; l < m->n_layers; l++)
        for (int k = 0; k < m->layers[l].n_in; k++) {
            int v = root_of(m, m->layers[l].in[k]);
            if (v >= 0 && mark[v] == 1) mark[v] = 2;
        }
    for (int i = 0; i < g->n_outputs; i++) {   /* a view that is a graph output */
        int v = root_of(m, g->outputs[i]);
        if (v >= 0 && mark[v] == 1) mark[v] = 2;
    }
    for (int v = 0; v < nv; v++)
        if (mark[v] == 2 || (mark[v] == 1 && g->values[v].is_output)) {
            b->out = pz_xrealloc(b->out, (size_t)(b->n_out + 1) * sizeof(int));
            b->out[b->n_out++] = v;
        }
    free(mark);
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
    free(m->view_src);
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
        b->weights = IR_WEIGHTS_FP32;
        for (int l = first; l < first + sizes[i]; l++) {   /* precision: the block's fp32 */
            m->layers[l].mp = mps[i];
            m->layers[l].precision = IR_PREC_FP32;
        }
        block_io(m, b);
    }
    return PZ_OK;
}
