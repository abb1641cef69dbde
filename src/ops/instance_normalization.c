/* instance_normalization.c - InstanceNormalization (opset 1-22): per
 * (n, c) over the spatial dims,
 *   Y = (X - mean) / sqrt(var + epsilon) * scale[c] + B[c],
 *   X [N, C, D1..Dk] float, scale and B [C] -> Y [X's shape]. epsilon
 *   default 1e-5. No MACs.
 * Runs as the NORM layer (rt/ops/norm.c). */
#include "norm.h"

static pz_status in_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_norm_params *p = params;
    p->func = PZ_NORM_INSTANCE;
    if (op_attr_finite(n, "epsilon", 1e-5f, &p->epsilon, err)) return err->code;
    if (p->epsilon < 0) return op_err_attr(err, n, "epsilon", "is negative");
    return PZ_OK;
}

static pz_status in_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *s = op_in(g, n, 1), *b = op_in(g, n, 2);
    if (!x || !s || !b) return op_err(err, n, "needs the inputs X, scale and B");
    if (op_want_float(n, x, "X", err)) return err->code;
    if (x->rank < 2) return op_err(err, n, "input X has rank %d, expected >= 2", x->rank);
    for (int i = 1; i < 3; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (t->dtype != x->dtype || ir_tensor_numel(t) != x->dims[1])
            return op_err(err, n, "input %s must have %lld elements (C) of type %s",
                          i == 1 ? "scale" : "B", (long long)x->dims[1],
                          ir_dtype_name(x->dtype));
    }
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

const op_def op_instance_normalization = {
    .name = "InstanceNormalization",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_norm_params),
    .parse = in_parse,
    .infer = in_infer,
    .lower = op_norm_lower,
};
