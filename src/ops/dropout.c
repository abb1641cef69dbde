/* dropout.c - Dropout:
 *   data [any shape] (, ratio [scalar float], training_mode [scalar bool])
 *     -> output [same], mask [same shape; bool from opset 10, data's type before]
 * Inference form: Y = X, and the optional mask is all true (every element
 * kept), folded into a constant so that it never runs. ratio is an
 * attribute before opset 12 and an optional input from 12; only its range
 * is checked. Opset < 7 attributes is_test and consumed_inputs are accepted
 * and ignored.
 * Training (opset 12+, training_mode true, or given at run time, and ratio
 * not a constant 0) unfolds at compile time (op_inline.h) into a random
 * layer and element-wise nodes (random.h): u = RandomUniformLike(data,
 * seed), mask = u >= ratio, output = Where(mask, data / (1 - ratio), 0);
 * with training_mode at run time, output = Where(training_mode, that, data)
 * and mask = Or(Not(training_mode), mask). ratio may come at run time. */
#include <stdlib.h>

#include "op_inline.h"
#include "op_train.h"

static pz_status dropout_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    int64_t ignored, consumed[16];
    int cnt;
    float ratio = 0.5f;
    if (op_attr_int(n, "is_test", 0, &ignored, err)) return err->code;
    if (op_attr_int(n, "seed", 0, &ignored, err)) return err->code;
    if (op_attr_ints(n, "consumed_inputs", consumed, 16, &cnt, err)) return err->code;
    int ratio_known = 1;
    if (g->opset < 12) {
        if (n->n_in > 1)
            return op_err(err, n, "has %d inputs; before opset 12 ratio is an attribute", n->n_in);
        if (op_attr_float(n, "ratio", 0.5f, &ratio, err)) return err->code;
    } else {
        const ir_tensor *r = op_in_const(g, n, 1);
        if (r && ir_tensor_numel(r) == 1 && ir_dtype_is_float(r->dtype))
            ratio = (float)ir_load_f64(r->data, r->dtype, 0);
        else if (op_in(g, n, 1))
            ratio_known = 0;   /* a run-time ratio */
    }
    if (!(ratio >= 0 && ratio < 1))
        return op_err(err, n, "ratio is %g, must be in [0, 1)", ratio);

    const ir_tensor *t = op_in(g, n, 2);
    if (t) {
        if (t->dtype != IR_BOOL || ir_tensor_numel(t) != 1)
            return op_err(err, n, "training_mode must be a bool scalar");
        /* training with a ratio other than a constant 0 unfolds (dropout_unfold):
         * here training_mode is false, or ratio 0, a copy either way */
        if ((!t->data || ir_load_i64(t->data, t->dtype, 0)) && !(ratio_known && ratio == 0))
            return op_err(err, n, "ratio must be a floating-point scalar");
    }
    return PZ_OK;
}

static pz_status dropout_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *r = op_in(g, n, 1);
    if (!x) return op_err(err, n, "input data is missing");
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "data must be a floating-point tensor, got %s",
                      ir_dtype_name(x->dtype));
    if (r && (!ir_dtype_is_float(r->dtype) || ir_tensor_numel(r) != 1))
        return op_err(err, n, "ratio must be a floating-point scalar");
    op_same_as(g, n, 0, 0);
    op_set_out(g, n, 1, g->opset >= 10 ? IR_BOOL : x->dtype, x->rank, x->dims);
    if (n->n_out > 1 && n->out[1] >= 0) {   /* inference keeps every element */
        const ir_tensor *mask = op_out(g, n, 1);
        size_t nbytes;   /* no more than X's, which is checked */
        char what[512];
        snprintf(what, sizeof what, "node \"%s\" (%s): mask", n->name, n->op_type);
        if (ir_tensor_bytes(mask, &nbytes, what, err)) return err->code;
        size_t cnt = (size_t)ir_tensor_numel(mask);
        void *buf = pz_xmalloc(nbytes ? nbytes : 1);
        for (size_t i = 0; i < cnt; i++) ir_store_f64(buf, mask->dtype, i, 1.0);
        ir_value_set_data(g, n->out[1], buf, nbytes);
        free(buf);
    }
    return PZ_OK;
}

/* COPY data -> output; ratio and training_mode are dropped, and the mask is
 * a constant (infer). */
static pz_status dropout_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
    out->n_in = 1;
    out->n_out = 1;
    return PZ_OK;
}

/* Whether node n drops at random: training_mode given, not a constant
 * false, and ratio not a constant 0 (opset 12+). */
static int dropout_unfolds(const ir_graph *g, const ir_node *n)
{
    if (g->opset < 12) return 0;
    const ir_tensor *t = op_in(g, n, 2), *r = op_in_const(g, n, 1);
    if (!t) return 0;
    if (t->data && ir_tensor_numel(t) == 1 && !ir_load_i64(t->data, t->dtype, 0)) return 0;
    return !(r && ir_tensor_numel(r) == 1 && ir_load_f64(r->data, r->dtype, 0) == 0);
}

/* A scalar constant of dtype dt. */
static int dropout_scalar(op_train_builder *b, int dt, double v)
{
    double buf[1];
    ir_store_f64(buf, dt, 0, v);
    return op_new_const(b->g, b->name, dt, 0, NULL, buf);
}

static pz_status dropout_unfold(ir_graph *g, int i, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    int64_t seed = 0;
    if (op_attr_int(n, "seed", 0, &seed, err)) return err->code;
    const int has_seed = op_attr(n, "seed") != NULL;
    const ir_tensor *x = op_in(g, n, 0), *r = op_in(g, n, 1), *t = op_in(g, n, 2);
    if (!x || !ir_dtype_is_float(x->dtype))
        return op_err(err, n, "data must be a floating-point tensor");
    if (r && (!ir_dtype_is_float(r->dtype) || ir_tensor_numel(r) != 1))
        return op_err(err, n, "ratio must be a floating-point scalar");
    if (t->dtype != IR_BOOL || ir_tensor_numel(t) != 1)
        return op_err(err, n, "training_mode must be a bool scalar");
    if (r && r->data) {
        double v = ir_load_f64(r->data, r->dtype, 0);
        if (!(v >= 0 && v < 1)) return op_err(err, n, "ratio is %g, must be in [0, 1)", v);
    }
    const int dt = x->dtype, rdt = r ? (int)r->dtype : dt, t_known = t->data != NULL;
    const int xin = n->in[0], tin = n->in[2], rin = r ? n->in[1] : -1;
    op_train_builder b = {g, pz_xstrdup(n->name), 0};
    const int start = g->n_nodes;
    int ratio = rin >= 0 ? rin : dropout_scalar(&b, dt, 0.5);
    if (rdt != dt) {
        ratio = op_train_node(&b, "Cast", ratio, -1);
        ir_node_add_attr_int(&g->nodes[g->n_nodes - 1], "to", dt);
    }
    int u = op_train_node(&b, "RandomUniformLike", xin, -1);
    ir_node_add_attr_int(&g->nodes[g->n_nodes - 1], "dtype", dt);
    if (has_seed) ir_node_add_attr_float(&g->nodes[g->n_nodes - 1], "seed", (float)seed);
    int src[2];
    src[1] = op_train_node(&b, "GreaterOrEqual", u, ratio);
    int keep_scale = op_train_node(&b, "Sub", dropout_scalar(&b, dt, 1), ratio);
    char nm[512];
    snprintf(nm, sizeof nm, "%s/%d", b.name, b.k++);
    src[0] = ir_graph_add_value_unique(g, nm);
    op_append_node(g, nm, "Where", (int[]){src[1], op_train_node(&b, "Div", xin, keep_scale),
                                           dropout_scalar(&b, dt, 0)}, 3, &src[0], 1);
    if (!t_known) {   /* training_mode at run time: the inference form where false */
        snprintf(nm, sizeof nm, "%s/%d", b.name, b.k++);
        int y = ir_graph_add_value_unique(g, nm);
        op_append_node(g, nm, "Where", (int[]){tin, src[0], xin}, 3, &y, 1);
        src[0] = y;
        src[1] = op_train_node(&b, "Or", op_train_node(&b, "Not", tin, -1), src[1]);
    }
    op_train_finish(&b, i, start, src);
    return PZ_OK;
}

const op_def op_dropout = {
    .name = "Dropout",
    .min_in = 1, .max_in = 3, .min_out = 1, .max_out = 2,
    .parse = dropout_parse,
    .infer = dropout_infer,
    .lower = dropout_lower,
    .view = 1,
    .unfold = dropout_unfold,
    .unfolds = dropout_unfolds,
};
