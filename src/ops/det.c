/* det.c - Det (opsets 11, 22): the determinant of each square matrix.
 *   X [..., M, M] (float types) -> Y [...], X's type
 * LU with partial pivoting in double. Runs as DET (rt/ops/det.c). */
#include "reduce.h"

static pz_status det_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Det): input X has type %s, not "
                       "supported (float types only)", n->name, ir_dtype_name(x->dtype));
    if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2]) {
        char s[128];
        return op_err(err, n, "input X %s must be [..., M, M]", ir_shape_str(x, s, sizeof s));
    }
    op_set_out(g, n, 0, x->dtype, x->rank - 2, x->dims);
    return PZ_OK;
}

static void det_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *x = op_in(g, n, 0);
    const int64_t m = x->dims[x->rank - 1];
    c->macs = ir_tensor_numel(x) / (m ? m * m : 1) * m * m * m / 3;   /* elimination */
}

static pz_status det_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_DET, NULL, 0);
    return PZ_OK;
}

const op_def op_det = {
    .name = "Det",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = det_infer,
    .cost = det_cost,
    .lower = det_lower,
};
