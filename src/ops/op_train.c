/* op_train.c - the training ops' shared builder and checks (op_train.h). */
#include <stdio.h>
#include <string.h>

#include "op_inline.h"
#include "op_train.h"

int op_train_node(op_train_builder *b, const char *op_type, int a, int c)
{
    char nm[512];
    snprintf(nm, sizeof nm, "%s/%d", b->name, b->k++);
    int y = ir_graph_add_value_unique(b->g, nm);
    int ins[2] = {a, c};
    op_append_node(b->g, nm, op_type, ins, c < 0 ? 1 : 2, &y, 1);
    return y;
}

int op_train_scalar(op_train_builder *b, float v)
{
    return op_new_const(b->g, b->name, IR_F32, 0, NULL, &v);
}

int op_train_float(op_train_builder *b, int v)
{
    int y = op_train_node(b, "Cast", v, -1);
    ir_node_add_attr_int(&b->g->nodes[b->g->n_nodes - 1], "to", IR_F32);
    return y;
}

int op_train_if_t_positive(op_train_builder *b, int t, int yes, int no)
{
    const int64_t zero = 0;
    int z = op_new_const(b->g, b->name, IR_I64, 0, NULL, &zero);
    int cond = op_train_node(b, "Greater", t, z);
    char nm[512];
    snprintf(nm, sizeof nm, "%s/%d", b->name, b->k++);
    int y = ir_graph_add_value_unique(b->g, nm);
    op_append_node(b->g, nm, "Where", (int[]){cond, yes, no}, 3, &y, 1);
    return y;
}

pz_status op_train_check(const ir_graph *g, const ir_node *n, int groups, int outs, int *cnt,
                         pz_err *err)
{
    const int k = n->n_in - 2;
    if (k < groups || k % groups)
        return op_err(err, n, "has %d inputs: expected R, T and %d groups of the same count",
                      n->n_in, groups);
    *cnt = k / groups;
    if (n->n_out != outs * *cnt)
        return op_err(err, n, "has %d outputs, expected %d for %d tensors", n->n_out,
                      outs * *cnt, *cnt);
    const ir_tensor *r = op_in(g, n, 0), *t = op_in(g, n, 1);
    if (!r || r->dtype != IR_F32 || ir_tensor_numel(r) != 1)
        return op_err(err, n, "input R must be a float32 scalar");
    if (!t || t->dtype != IR_I64 || ir_tensor_numel(t) != 1)
        return op_err(err, n, "input T must be an int64 scalar");
    for (int j = 2; j < n->n_in; j++) {
        const ir_tensor *x = op_in(g, n, j);
        if (!x || x->dtype != IR_F32)
            return op_err(err, n, "input %d must be a float32 tensor", j);
    }
    return PZ_OK;
}

int *op_train_inputs(const ir_node *n)
{
    int *in = pz_xcalloc((size_t)n->n_in, sizeof *in);
    memcpy(in, n->in, sizeof *in * (size_t)n->n_in);
    return in;
}

void op_train_finish(op_train_builder *b, int i, int start, const int *src)
{
    /* a model of training ops alone imports no default domain: its new
     * nodes get opset 13's broadcasting element-wise ops */
    if (b->g->opset < 0) b->g->opset = 13;
    op_replace_by_tail(b->g, i, start, src);
    free(b->name);
}
