/* is_nan.c - IsNaN: Y (bool) = X is NaN, element by element, X of a float
 * type (the 8-bit floats of opset 20: refused). Folds a constant. Runs as
 * the runtime's LOGIC_UNARY layer. */
#include <math.h>

#include "compare.h"

static double is_nan_f(double x) { return isnan(x) != 0; }
static const op_unary_fn is_nan_fn = {is_nan_f, NULL};

static pz_status is_nan_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (op_want_types(g, n, OP_TY_FLOAT, err)) return err->code;
    op_unary_infer_fold(g, n, IR_BOOL, &is_nan_fn);
    return PZ_OK;
}

static pz_status is_nan_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_logic_unary_lower(n, PZ_LU_ISNAN, 0, 0, out);
    return PZ_OK;
}

const op_def op_is_nan = {
    .name = "IsNaN",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = is_nan_infer,
    .lower = is_nan_lower,
};
