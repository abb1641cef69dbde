/* lp_normalization.c - LpNormalization: Y = X / ||X||_p along one axis.
 *   input [any shape, rank >= 1] -> output [same shape, same type], floats.
 * axis: default -1; p: 2 (default) or 1. A line of zeros (norm 0) stays
 * zeros, as in ONNX's test data. Runs as the runtime's LPNORM layer
 * (rt/ops/lpnorm.c); folds when constant. */
#include "reduce.h"
#include "../rt/kernels/kernels.h"

typedef struct {
    int axis;                         /* normalised */
    int64_t p;
} lp_normalization_params;

static pz_status lp_normalization_parse(const ir_graph *g, const ir_node *n, void *params,
                                        pz_err *err)
{
    lp_normalization_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (!x) return op_err(err, n, "input is missing");
    if (op_attr_int(n, "axis", -1, &axis, err) || op_attr_int(n, "p", 2, &p->p, err))
        return err->code;
    if (p->p != 1 && p->p != 2)
        return op_err_attr(err, n, "p", "is %lld, must be 1 or 2", (long long)p->p);
    return op_axis(n, "axis", axis, x->rank, 0, &p->axis, err);
}

static pz_status lp_normalization_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const lp_normalization_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (op_want_numeric(n, x, "input", 0, 0, err)) return err->code;
    op_same_as(g, n, 0, 0);
    void *buf = op_fold_start(g, n, 0, x);
    if (!buf) return PZ_OK;
    pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, p->axis, 0);
    pz_any_lpnorm__ref((int)p->p, x->dtype, &s, x->data, buf, 0, 1);
    op_fold_finish(g, n, 0, buf);
    return PZ_OK;
}

static pz_status lp_normalization_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                        pz_err *err)
{
    const lp_normalization_params *p = n->params;
    pz_lpnorm_params lp = {.axis = p->axis, .p = (int)p->p};
    op_lowered_init(out, n, PZ_OP_LPNORM, &lp, sizeof lp);
    return PZ_OK;
}

const op_def op_lp_normalization = {
    .name = "LpNormalization",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(lp_normalization_params),
    .parse = lp_normalization_parse,
    .infer = lp_normalization_infer,
    .lower = lp_normalization_lower,
};
