/* op_lower.c - lowering the graph to Model -> F-Blocks -> Layers -> Operators.
 * It runs each node's op->expand and counts the Op Set by op kind, so it sits
 * in the ops layer, above the IR (src/ir/model.c holds the model itself). */
#include "op_lower.h"

#include "op.h"

/* A node does run-time work unless all its outputs are folded constants. */
static int runs_at_runtime(const ir_graph *g, const ir_node *n)
{
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0 && !g->values[n->out[i]].t.data) return 1;
    return 0;
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

/* Whether run-time node n may be a view of its input 0 (op_def.view or
 * view_if): one run-time output, the same element type and count as input 0, which a
 * layer writes or which is a graph input (the runtime points the view at
 * the caller's buffer each run). A constant keeps its COPY layer, as do
 * sequences, optionals and a value whose shape is known only at run time
 * (the COPY carries it). A view that is a graph output is copied out of its
 * root at the end of the run. */
static int lowers_to_view(const ir_graph *g, const ir_node *n)
{
    if (n->act.kind != IR_ACT_NONE || n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0)
        return 0;
    if (!n->op->view && !(n->op->view_if && n->op->view_if(g, n))) return 0;
    for (int i = 1; i < n->n_out; i++)
        if (n->out[i] >= 0 && !g->values[n->out[i]].t.data) return 0;
    const ir_value *x = &g->values[n->in[0]], *y = &g->values[n->out[0]];
    if (x->t.data || x->dyn || y->dyn || x->kind != IR_KIND_TENSOR ||
        y->kind != IR_KIND_TENSOR || x->t.dtype != y->t.dtype || x->t.rank < 0 || y->t.rank < 0)
        return 0;
    return ir_tensor_numel(&x->t) == ir_tensor_numel(&y->t);
}

ir_model *ir_model_lower(ir_graph *g)
{
    expand_nodes(g);
    op_widen_half(g);
    ir_model *m = pz_xcalloc(1, sizeof *m);
    m->g = g;
    m->ir_version = g->ir_version;
    m->opset = g->opset;
    m->ops_used = pz_xcalloc(OP_COUNT, 1);
    m->batch = g->n_inputs && g->values[g->inputs[0]].t.rank > 0
                   ? (int)g->values[g->inputs[0]].t.dims[0] : 1;
    m->layers = pz_xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *m->layers);
    m->view_src = pz_xmalloc((size_t)(g->n_values ? g->n_values : 1) * sizeof *m->view_src);
    for (int v = 0; v < g->n_values; v++) m->view_src[v] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (!runs_at_runtime(g, n)) continue;
        if (lowers_to_view(g, n)) {   /* no layer, no copy: the runtime aliases the bytes */
            m->view_src[n->out[0]] = n->in[0];
            m->ops_used[op_kind_of(n->op)] = 1;
            continue;
        }
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

