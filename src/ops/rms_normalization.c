/* rms_normalization.c - RMSNormalization (opset 23): over the dims
 * [axis, rank) of X,
 *   Y = X / sqrt(mean(X^2) + epsilon) * scale,
 *   X [any float type, rank >= 1], scale broadcast to the normalised dims
 *   -> Y [X's shape]. axis default -1, epsilon 1e-5; stash_type 1 (the
 *   statistics in float32 or wider: we sum in double). No MACs.
 * Runs as the NORM layer (rt/ops/norm.c). */
#include "norm.h"

static pz_status rms_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_norm_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (!x) return op_err(err, n, "input X is missing");
    p->func = PZ_NORM_RMS;
    if (op_attr_int(n, "axis", -1, &axis, err)) return err->code;
    if (op_axis(n, "axis", axis, x->rank, 0, &p->axis, err)) return err->code;
    if (op_norm_stash(n, err)) return err->code;
    if (op_attr_finite(n, "epsilon", 1e-5f, &p->epsilon, err)) return err->code;
    if (p->epsilon < 0) return op_err_attr(err, n, "epsilon", "is negative");
    return PZ_OK;
}

static pz_status rms_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_norm_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *s = op_in(g, n, 1);
    if (!x || !s) return op_err(err, n, "needs the inputs X and scale");
    if (op_want_float(n, x, "X", err)) return err->code;
    if (s->dtype != x->dtype)
        return op_err(err, n, "input scale has type %s, X %s", ir_dtype_name(s->dtype),
                      ir_dtype_name(x->dtype));
    /* scale, its leading 1s dropped, must be the last dims of the normalised
     * ones: the kernel reads element i % numel(scale) */
    int lead = 0;
    while (lead < s->rank && s->dims[lead] == 1) lead++;
    int k = s->rank - lead;
    if (k > x->rank - p->axis)
        return op_err(err, n, "input scale has rank %d, more than the %d normalised dims",
                      s->rank, x->rank - p->axis);
    for (int i = 0; i < k; i++)
        if (s->dims[lead + i] != x->dims[x->rank - k + i])
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input scale's shape "
                           "is not a suffix of the normalised dims, not supported", n->name,
                           n->op_type);
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

const op_def op_rms_normalization = {
    .name = "RMSNormalization",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_norm_params),
    .parse = rms_parse,
    .infer = rms_infer,
    .lower = op_norm_lower,
};
