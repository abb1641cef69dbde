/* layer_normalization.c - LayerNormalization (opset 17): over the dims
 * [axis, rank) of X,
 *   Mean = mean(X), InvStdDev = 1 / sqrt(mean((X - Mean)^2) + epsilon),
 *   Y = (X - Mean) * InvStdDev * Scale + B.
 *   X [any shape, rank >= 1], Scale and B (optional) with as many elements
 *   as the normalised dims or one -> Y [X's shape], Mean and InvStdDev
 *   (optional) [X's dims before axis, then 1s], float32.
 * axis default -1, epsilon 1e-5; stash_type 1 (float32) only. Floating-point
 * only. The graph passes also make one from the nine nodes PyTorch exports
 * LayerNorm to at lower opsets (norm.c). */
#include "elementwise.h"

typedef struct {
    int axis;
    float epsilon;
} ln_params;

static pz_status ln_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    ln_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis, stash;
    if (!x) return op_err(err, n, "input X is missing");
    if (op_attr_int(n, "axis", -1, &axis, err)) return err->code;
    if (op_axis(n, "axis", axis, x->rank, 0, &p->axis, err)) return err->code;
    if (op_attr_int(n, "stash_type", 1, &stash, err)) return err->code;
    if (stash != 1)
        return op_err_attr(err, n, "stash_type", "is %lld; only 1 (float32) is supported",
                           (long long)stash);
    if (op_attr_finite(n, "epsilon", 1e-5f, &p->epsilon, err)) return err->code;
    if (p->epsilon < 0) return op_err_attr(err, n, "epsilon", "is negative");
    return PZ_OK;
}

static pz_status ln_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ln_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input X is missing");
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "input X must be a floating-point tensor, got %s",
                      ir_dtype_name(x->dtype));
    int64_t nn = 1;
    for (int d = p->axis; d < x->rank; d++) nn *= x->dims[d];
    for (int i = 1; i < 3; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (i == 1 && !t) return op_err(err, n, "input Scale is missing");
        if (!t) continue;
        if (t->dtype != x->dtype)
            return op_err(err, n, "input %s has type %s, X %s", i == 1 ? "Scale" : "B",
                          ir_dtype_name(t->dtype), ir_dtype_name(x->dtype));
        int64_t k = ir_tensor_numel(t);
        /* X of a run-time shape: its dims a bound or stand-ins, the run
         * checks the count (rt/ops/layernorm.c) */
        if (k != nn && k != 1 && !g->values[n->in[0]].dyn)
            return op_err(err, n, "input %s has %lld elements, expected %lld (the normalised "
                          "dims) or 1", i == 1 ? "Scale" : "B", (long long)k, (long long)nn);
    }
    op_same_as(g, n, 0, 0);
    int64_t sd[IR_MAX_RANK];
    for (int d = 0; d < x->rank; d++) sd[d] = d < p->axis ? x->dims[d] : 1;
    for (int i = 1; i < 3; i++)
        if (i < n->n_out && n->out[i] >= 0) op_set_out(g, n, i, IR_F32, x->rank, sd);
    return PZ_OK;
}

static pz_status ln_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const ln_params *p = n->params;
    pz_layernorm_params lp = {.axis = p->axis, .epsilon = p->epsilon};
    op_lowered_init(out, n, PZ_OP_LAYERNORM, &lp, sizeof lp);
    return PZ_OK;
}

const op_def op_layer_normalization = {
    .name = "LayerNormalization",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 3,
    .params_size = sizeof(ln_params),
    .parse = ln_parse,
    .infer = ln_infer,
    .lower = ln_lower,
};
