/* flatten.c - Flatten: a tensor to a 2-D matrix at `axis`.
 *   X [d0..d(r-1)] -> Y [d0*..*d(axis-1), d(axis)*..*d(r-1)]
 * axis in [0, r] (negative, counted from the end, from opset 11); default 1.
 * Runs as a view of its input
 * (no layer; a COPY where lowering cannot make one: op_lower.c). */
#include "fold.h"

typedef struct {
    int64_t axis;
} flatten_params;

static pz_status flatten_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    flatten_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    if (op_attr_int(n, "axis", 1, &p->axis, err)) return err->code;
    if (g->opset < 11 && p->axis < 0)
        return op_err_attr(err, n, "axis", "is %lld; negative axes need opset 11 (the model "
                           "uses %d)", (long long)p->axis, g->opset);
    if (p->axis < -(int64_t)x->rank || p->axis > x->rank)
        return op_err_attr(err, n, "axis", "%lld is out of range for rank %d (allowed: %d to %d)",
                           (long long)p->axis, x->rank, -x->rank, x->rank);
    if (p->axis < 0) p->axis += x->rank;
    return PZ_OK;
}

static pz_status flatten_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const flatten_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t dims[2] = {1, 1};
    for (int k = 0; k < x->rank; k++) dims[k >= p->axis] *= x->dims[k];
    op_set_out(g, n, 0, x->dtype, 2, dims);
    op_fold_copy(g, n, 0, x);
    return PZ_OK;
}

const op_def op_flatten = {
    .name = "Flatten",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(flatten_params),
    .parse = flatten_parse,
    .infer = flatten_infer,
    .cost = NULL,
    .lower = op_copy_lower,
    .view = 1,
};
