/* unique.c - Unique (opset 11): the distinct elements of X (no axis: of the
 * flattened X) or its distinct slices along axis, sorted (sorted=1, the
 * default: ascending, lexicographic for slices) or in order of first
 * occurrence, as numpy.unique.
 *   X -> Y (X's type), indices, inverse_indices, counts (int64, each optional)
 * The count u of distinct values depends on X's values: Y ([u] or X's shape
 * with u along axis), indices and counts [u] have run-time shapes planned at
 * the bound u = n (X's numel, or its length along axis); inverse_indices [n]
 * is static. Constant X folds. Runs as UNIQUE (rt/ops/unique.c). */
#include "op.h"

typedef struct {
    int64_t sorted, axis;
    int has_axis;
} unique_params;

static pz_status unique_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    unique_params *p = params;
    if (op_attr_int(n, "sorted", 1, &p->sorted, err) || op_attr_int(n, "axis", 0, &p->axis, err))
        return err->code;
    p->has_axis = op_attr(n, "axis") != NULL;
    if (p->sorted != 0 && p->sorted != 1)
        return op_err_attr(err, n, "sorted", "is %lld, must be 0 or 1", (long long)p->sorted);
    return PZ_OK;
}

/* The normalised axis, -1 for none. */
static pz_status unique_axis(const ir_graph *g, const ir_node *n, int *axis, pz_err *err)
{
    const unique_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    *axis = -1;
    if (!p->has_axis) return PZ_OK;
    if (x->rank < 1) return op_err(err, n, "input X is a scalar, axis needs rank >= 1");
    return op_axis(n, "axis", p->axis, x->rank, 0, axis, err);
}

static pz_status unique_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype) && !ir_dtype_is_int(x->dtype) && x->dtype != IR_BOOL)
        return op_err(err, n, "input X has type %s, expected a number type",
                      ir_dtype_name(x->dtype));
    if (ir_dtype_is_small(x->dtype))
        return op_err(err, n, "input X has type %s, which Unique does not take",
                      ir_dtype_name(x->dtype));
    int axis;
    if (unique_axis(g, n, &axis, err)) return err->code;
    int64_t len = axis < 0 ? ir_tensor_numel(x) : x->dims[axis];
    if (axis < 0) op_set_out(g, n, 0, x->dtype, 1, &len);
    else op_set_out(g, n, 0, x->dtype, x->rank, x->dims);
    for (int k = 1; k < 4; k++) op_set_out(g, n, k, IR_I64, 1, &len);
    op_set_dyn(g, n, 0);
    op_set_dyn(g, n, 1);
    op_set_dyn(g, n, 3);
    return PZ_OK;
}

static pz_status unique_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const unique_params *p = n->params;
    int axis;
    if (unique_axis(g, n, &axis, err)) return err->code;
    pz_unique_params up = {.axis = axis, .sorted = (int)p->sorted};
    op_lowered_init(out, n, PZ_OP_UNIQUE, &up, sizeof up);
    return PZ_OK;
}

const op_def op_unique = {
    .name = "Unique",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 4,
    .params_size = sizeof(unique_params),
    .parse = unique_parse,
    .infer = unique_infer,
    .lower = unique_lower,
};
