/* dropout.c - Dropout, inference form: Y = X, and the optional mask is all
 * true (every element kept).
 *   data [any shape] (, ratio [scalar float], training_mode [scalar bool])
 *     -> output [same], mask [same shape; bool from opset 10, data's type before]
 * ratio is an attribute before opset 12 and an optional input from 12; only
 * its range is checked. Training mode (training_mode input true, opset 12+)
 * is the same when ratio is 0 (nothing dropped, scale 1/(1 - 0)); with a
 * ratio above 0 it drops elements at random, which is refused (a random mask:
 * no reproducible result to compile). Opset < 7 attributes is_test and consumed_inputs, and
 * seed, are accepted and ignored. The mask, when the node has one, is folded
 * into a constant all-true (all-one) tensor, so that it never runs. */
#include <stdlib.h>

#include "op.h"

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
        if (!t->data)
            return op_need_const(err, g, n, 2, "training_mode",
                                 "only a constant false is supported (training is not)");
        if (ir_load_i64(t->data, t->dtype, 0) && !ratio_known)
            return op_need_const(err, g, n, 1, "ratio",
                                 "training_mode is true, and only ratio 0 is deterministic");
        if (ir_load_i64(t->data, t->dtype, 0) && ratio != 0)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): training_mode is true "
                           "with ratio %g: random mask (elements dropped at random) is not "
                           "supported; only ratio 0 is deterministic", n->name, n->op_type,
                           (double)ratio);
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

const op_def op_dropout = {
    .name = "Dropout",
    .min_in = 1, .max_in = 3, .min_out = 1, .max_out = 2,
    .parse = dropout_parse,
    .infer = dropout_infer,
    .lower = dropout_lower,
    .view = 1,
};
