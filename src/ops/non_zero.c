/* non_zero.c - NonZero (opsets 9, 13): X (any type) -> Y int64 [rank, nnz],
 * the coordinates of X's nonzero elements in row-major order (a scalar
 * counts as [1]). nnz depends on X's values: Y has a run-time shape
 * (ir_value.dyn) planned at its bound [rank, numel(X)]; with X constant it
 * folds (op_fold_rt.c runs the layer and keeps the actual shape). Runs as
 * NONZERO (rt/ops/nonzero.c). */
#include "op.h"

static pz_status non_zero_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_size(x->dtype))
        return op_err(err, n, "input X has type %s, which NonZero does not take",
                      ir_dtype_name(x->dtype));
    int64_t dims[2] = {x->rank ? x->rank : 1, ir_tensor_numel(x)};
    op_set_out(g, n, 0, IR_I64, 2, dims);
    op_set_dyn(g, n, 0);
    return PZ_OK;
}

static pz_status non_zero_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_NONZERO, NULL, 0);
    return PZ_OK;
}

const op_def op_non_zero = {
    .name = "NonZero",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = non_zero_infer,
    .lower = non_zero_lower,
};
