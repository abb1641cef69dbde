/* mean_variance_normalization.c - MeanVarianceNormalization (opsets 9,
 * 13): Y = (X - mean) / (sqrt(variance) + 1e-9) over `axes` (default [0, 2,
 * 3]), the epsilon where ONNX's function body puts it.
 *   X [any shape, float types] -> Y [same]
 * Runs as MVN (rt/ops/mvn.c); mean and population variance in double. */
#include "reduce.h"

typedef struct {
    int mask;
} mvn_params;

static pz_status mvn_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    mvn_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axes[IR_MAX_RANK];
    int cnt;
    if (op_attr_ints(n, "axes", axes, IR_MAX_RANK, &cnt, err)) return err->code;
    if (cnt < 0) {
        axes[0] = 0, axes[1] = 2, axes[2] = 3;
        cnt = 3;
    }
    p->mask = 0;
    for (int i = 0; i < cnt; i++) {
        int a;
        if (op_axis(n, "axes", axes[i], x->rank, 0, &a, err)) return err->code;
        if (p->mask >> a & 1) return op_err_attr(err, n, "axes", "axis %d repeats", a);
        p->mask |= 1 << a;
    }
    return PZ_OK;
}

static pz_status mvn_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (MeanVarianceNormalization): input "
                       "X has type %s, not supported (float types only)", n->name,
                       ir_dtype_name(x->dtype));
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

static pz_status mvn_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const mvn_params *p = n->params;
    pz_mvn_params mp = {.axes_mask = p->mask};
    op_lowered_init(out, n, PZ_OP_MVN, &mp, sizeof mp);
    return PZ_OK;
}

const op_def op_mean_variance_normalization = {
    .name = "MeanVarianceNormalization",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(mvn_params),
    .parse = mvn_parse,
    .infer = mvn_infer,
    .lower = mvn_lower,
};
