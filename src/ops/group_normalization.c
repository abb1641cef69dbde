/* group_normalization.c - GroupNormalization (opset 18, 21): the C
 * channels in num_groups groups; per (n, group) over its channels and the
 * spatial dims,
 *   Y = (X - mean) / sqrt(var + epsilon) * scale + bias,
 *   X [N, C, D1..Dk] float, scale and bias [C] (opset 21: per channel) or
 *   [num_groups] (opset 18: per group) -> Y [X's shape]. epsilon default
 *   1e-5, stash_type 1. No MACs.
 * Runs as the NORM layer (rt/ops/norm.c). */
#include "norm.h"

static pz_status gn_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_norm_params *p = params;
    p->func = PZ_NORM_GROUP;
    if (!op_attr(n, "num_groups")) return op_err_attr(err, n, "num_groups", "is required");
    if (op_attr_int(n, "num_groups", 1, &p->groups, err)) return err->code;
    if (p->groups <= 0) return op_err_attr(err, n, "num_groups", "must be positive");
    if (op_norm_stash(n, err)) return err->code;
    if (op_attr_finite(n, "epsilon", 1e-5f, &p->epsilon, err)) return err->code;
    if (p->epsilon < 0) return op_err_attr(err, n, "epsilon", "is negative");
    return PZ_OK;
}

static pz_status gn_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_norm_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *s = op_in(g, n, 1), *b = op_in(g, n, 2);
    if (!x || !s || !b) return op_err(err, n, "needs the inputs X, scale and bias");
    if (op_want_float(n, x, "X", err)) return err->code;
    if (x->rank < 2) return op_err(err, n, "input X has rank %d, expected >= 2", x->rank);
    if (x->dims[1] % p->groups)
        return op_err_attr(err, n, "num_groups", "%lld does not divide C = %lld",
                           (long long)p->groups, (long long)x->dims[1]);
    int64_t ns = ir_tensor_numel(s);
    if (s->dtype != x->dtype || b->dtype != x->dtype || ir_tensor_numel(b) != ns ||
        (ns != x->dims[1] && ns != p->groups))
        return op_err(err, n, "inputs scale and bias must have C = %lld (or num_groups) "
                      "elements of type %s", (long long)x->dims[1], ir_dtype_name(x->dtype));
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

const op_def op_group_normalization = {
    .name = "GroupNormalization",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_norm_params),
    .parse = gn_parse,
    .infer = gn_infer,
    .lower = op_norm_lower,
};
