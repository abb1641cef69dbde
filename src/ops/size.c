/* size.c - Size: the number of elements of a tensor, as an int64 scalar.
 *   data [any shape, any type] -> int64 [] = prod(dims)
 * A constant for a static shape. Of a tensor with a run-time shape
 * (ir_value.dyn: a NonZero's output, ...) it unfolds into
 * ReduceProd(Shape(data), keepdims 0): computed at run time. */
#include "fold.h"
#include "op_inline.h"

static int size_unfolds(const ir_graph *g, const ir_node *n)
{
    return n->in[0] >= 0 && g->values[n->in[0]].dyn;
}

static pz_status size_unfold(ir_graph *g, int i, pz_err *err)
{
    (void)err;
    char buf[512];
    snprintf(buf, sizeof buf, "%s/shape", g->nodes[i].name);
    int x = g->nodes[i].in[0], s = ir_graph_add_value_unique(g, buf), start = g->n_nodes;
    op_append_node(g, buf, "Shape", &x, 1, &s, 1);
    op_node_rewrite(g, i, "ReduceProd", &s, 1, 0);
    ir_node_add_attr_int(&g->nodes[i], "keepdims", 0);
    ir_graph_move_tail(g, start, i);
    return PZ_OK;
}

static pz_status size_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x || x->rank < 0) return op_err(err, n, "input data has no known shape");
    int64_t count = ir_tensor_numel(x);
    op_set_out(g, n, 0, IR_I64, 0, NULL);
    if (n->out[0] >= 0) ir_value_set_data(g, n->out[0], &count, sizeof count);
    return PZ_OK;
}

const op_def op_size = {
    .name = "Size",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = size_infer,
    .unfold = size_unfold,
    .unfolds = size_unfolds,
};
