/* lrn.c - LRN: local response normalization across channels,
 *   Y[n, c, ...] = X[n, c, ...] / (bias + alpha / size * sum(X[n, i, ...]^2))^beta
 * over i in [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)].
 *   X [N, C, D1..Dk] (k >= 0) -> Y [same shape, same type]; floating-point only.
 * Defaults: alpha 1e-4, beta 0.75, bias 1; size is required. */
#include "elementwise.h"

typedef struct {
    int64_t size;
    float alpha, beta, bias;
} lrn_params;

static pz_status lrn_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    lrn_params *p = params;
    if (!op_attr(n, "size")) return op_err_attr(err, n, "size", "is required");
    if (op_attr_int(n, "size", 1, &p->size, err)) return err->code;
    if (p->size < 1 || p->size > (int64_t)1 << 30)
        return op_err_attr(err, n, "size", "is %lld, must be 1 to 2^30", (long long)p->size);
    if (op_attr_finite(n, "alpha", 1e-4f, &p->alpha, err)) return err->code;
    if (op_attr_finite(n, "beta", 0.75f, &p->beta, err)) return err->code;
    return op_attr_finite(n, "bias", 1.0f, &p->bias, err);
}

static pz_status lrn_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (x && x->rank < 2)
        return op_err(err, n, "input X has rank %d, expected at least 2 ([N, C, ...])",
                      x->rank);
    return op_unary_float_infer(g, n, err);
}

static pz_status lrn_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const lrn_params *p = n->params;
    pz_lrn_params lp = {.size = p->size, .alpha = p->alpha, .beta = p->beta, .bias = p->bias};
    op_lowered_init(out, n, PZ_OP_LRN, &lp, sizeof lp);
    return PZ_OK;
}

const op_def op_lrn = {
    .name = "LRN",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(lrn_params),
    .parse = lrn_parse,
    .infer = lrn_infer,
    .lower = lrn_lower,
};
