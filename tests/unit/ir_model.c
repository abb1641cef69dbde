/* ir_model.c - the graph, its sort, shape inference and the low-level IR
 * (F-Blocks, Layers, knobs), built by hand without a model file. */
#include <string.h>

#include "ops/op_infer.h"
#include "ir/model.h"
#include "ops/op_lower.h"
#include "ops/op.h"

#include "test_check.h"

static int add_const(ir_graph *g, const char *name, int rank, const int64_t *dims)
{
    int v = ir_graph_add_value(g, name);
    g->values[v].t.dtype = IR_F32;
    g->values[v].t.rank = rank;
    memcpy(g->values[v].t.dims, dims, (size_t)rank * sizeof(int64_t));
    size_t n = (size_t)ir_tensor_numel(&g->values[v].t) * 4;
    void *zeros = pz_xcalloc(n, 1);
    ir_value_set_data(g, v, zeros, n);
    free(zeros);
    g->values[v].is_initializer = 1;
    return v;
}

static void add_node(ir_graph *g, const char *name, const char *op, int n_in, const int *in, int out)
{
    int k = ir_graph_add_node(g, name, op, "", n_in, 1);
    ir_node *n = &g->nodes[k];
    n->op = op_find(op);
    for (int i = 0; i < n_in; i++) n->in[i] = in[i];
    n->out[0] = out;
}

/* x -> conv1 -> relu1 -> conv2 -> add(relu1) -> y, nodes given out of order. */
static ir_graph *small_graph(void)
{
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    int x = ir_graph_add_value(g, "x");
    g->values[x].t = (ir_tensor){.dtype = IR_F32, .rank = 4, .dims = {1, 8, 16, 16}};
    ir_graph_add_input(g, x);
    int w1 = add_const(g, "w1", 4, (int64_t[]){8, 8, 3, 3});
    int w2 = add_const(g, "w2", 4, (int64_t[]){8, 8, 3, 3});
    int c1 = ir_graph_add_value(g, "c1"), r1 = ir_graph_add_value(g, "r1");
    int c2 = ir_graph_add_value(g, "c2"), y = ir_graph_add_value(g, "y");
    add_node(g, "add", "Add", 2, (int[]){c2, r1}, y);
    add_node(g, "conv2", "Conv", 2, (int[]){r1, w2}, c2);
    add_node(g, "conv1", "Conv", 2, (int[]){x, w1}, c1);
    add_node(g, "relu1", "Relu", 1, (int[]){c1}, r1);
    ir_graph_add_output(g, y);
    /* 3x3 kernels with pads 1 keep 16x16 */
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].op_type, "Conv")) {
            ir_node *n = &g->nodes[i];
            n->attrs = pz_xcalloc(1, sizeof *n->attrs);
            n->n_attrs = 1;
            n->attrs[0].name = pz_xstrdup("pads");
            n->attrs[0].type = IR_ATTR_INTS;
            n->attrs[0].n = 4;
            n->attrs[0].ints = pz_xmalloc(4 * sizeof(int64_t));
            for (int k = 0; k < 4; k++) n->attrs[0].ints[k] = 1;
        }
    return g;
}

int main(void)
{
    pz_err err = {0};
    ir_graph *g = small_graph();
    CHECK(ir_graph_sort(g, &err) == PZ_OK);
    CHECK(!strcmp(g->nodes[0].name, "conv1") && !strcmp(g->nodes[1].name, "relu1"));
    CHECK(!strcmp(g->nodes[2].name, "conv2") && !strcmp(g->nodes[3].name, "add"));
    CHECK(ir_infer(g, &err) == PZ_OK);
    const ir_value *y = &g->values[ir_graph_find(g, "y")];
    CHECK(y->t.rank == 4 && y->t.dims[1] == 8 && y->t.dims[2] == 16 && y->t.dims[3] == 16);
    /* DLFusion Eq. 1: 16*16 outputs * 3*3 kernel * 8 in * 8 out */
    CHECK(g->nodes[0].cost.macs == 16 * 16 * 9 * 8 * 8);
    CHECK(g->nodes[0].cost.params == 8 * 8 * 9);
    CHECK(g->nodes[0].cost.bytes_in == 8 * 16 * 16 * 4 && g->nodes[0].cost.c_out == 8);

    ir_model *m = ir_model_lower(g);
    CHECK(m->n_layers == 4 && m->n_blocks == 4);
    CHECK(m->blocks[0].mp == 1 && m->layers[3].precision == IR_PREC_FP32);
    CHECK(m->ops_used[OP_conv] && m->ops_used[OP_add] && !m->ops_used[OP_gemm]);

    /* fuse conv2+add on 2 cores: the block reads c2's producer input r1 and writes y */
    CHECK(ir_model_partition(m, (int[]){2, 2}, (int[]){1, 2}, 2, 2, &err) == PZ_OK);
    CHECK(m->n_blocks == 2 && m->blocks[1].first == 2 && m->blocks[1].count == 2);
    CHECK(m->blocks[1].mp == 2 && m->layers[3].mp == 2);
    CHECK(m->blocks[1].n_in == 1 && m->blocks[1].in[0] == ir_graph_find(g, "r1"));
    CHECK(m->blocks[1].n_out == 1 && m->blocks[1].out[0] == ir_graph_find(g, "y"));
    CHECK(m->blocks[0].n_out == 1 && m->blocks[0].out[0] == ir_graph_find(g, "r1"));

    /* illegal schedules are refused with a reason */
    pz_err e1 = {0}, e2 = {0}, e3 = {0};
    CHECK(ir_model_partition(m, (int[]){2, 1}, (int[]){1, 1}, 2, 2, &e1) == PZ_ERR_INPUT);
    CHECK(strstr(e1.msg, "cover 3 of the 4 layers") != NULL);
    CHECK(ir_model_partition(m, (int[]){4}, (int[]){3}, 1, 2, &e2) == PZ_ERR_INPUT);
    CHECK(strstr(e2.msg, "MP 3") != NULL);
    CHECK(ir_model_partition(m, (int[]){3, 3}, (int[]){1, 1}, 2, 2, &e3) == PZ_ERR_INPUT);
    CHECK(strstr(e3.msg, "runs past the last layer") != NULL);
    ir_model_free(m);
    ir_graph_free(g);

    /* a clone is the graph: rt_shapes (whether shaping inputs may be read at
     * run time: what ir_infer asks of the copy), and each node's unfold
     * progress and If branch, as well as the values and attributes */
    g = small_graph();
    g->rt_shapes = 1;
    g->nodes[1].unfold_k = 3;
    g->nodes[2].branch_of = 1 + ir_graph_find(g, "x");
    g->nodes[3].act.kind = IR_ACT_RELU;
    ir_graph *cl = ir_graph_clone(g);
    CHECK(cl->rt_shapes == 1 && cl->opset == 13 && cl->n_nodes == 4 && cl->n_values == g->n_values);
    CHECK(cl->nodes[1].unfold_k == 3 && cl->nodes[2].branch_of == 1 + ir_graph_find(cl, "x"));
    CHECK(cl->nodes[3].act.kind == IR_ACT_RELU && cl->nodes[0].n_attrs == g->nodes[0].n_attrs);
    CHECK(cl->n_inputs == 1 && cl->n_outputs == 1 && cl->outputs[0] == ir_graph_find(cl, "y"));
    ir_graph_free(cl);
    g->rt_shapes = 0;
    cl = ir_graph_clone(g);
    CHECK(cl->rt_shapes == 0);
    ir_graph_free(cl);
    ir_graph_free(g);

    /* a cycle is reported, naming a node on it */
    g = ir_graph_new();
    g->opset = 13;
    int a = ir_graph_add_value(g, "a"), b = ir_graph_add_value(g, "b");
    add_node(g, "r1", "Relu", 1, (int[]){b}, a);
    add_node(g, "r2", "Relu", 1, (int[]){a}, b);
    ir_graph_add_output(g, b);
    pz_err e4 = {0};
    CHECK(ir_graph_sort(g, &e4) == PZ_ERR_INPUT && strstr(e4.msg, "cycle"));
    ir_graph_free(g);

    return test_summary("ir_model");
}
