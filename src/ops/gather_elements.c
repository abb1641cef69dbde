/* gather_elements.c - GatherElements: Y[c] = X[c with c[axis] = indices[c]].
 *   data [d0..d(r-1)], indices int32/int64 (rank r, no larger than data off
 *   the axis) -> output of the indices' shape, data's type.
 * Negative indices count from the end; one out of range is refused (a
 * constant) or fails the run (rt/ops/gather_elements.c), as ONNX Runtime. */
#include "op.h"

static pz_status gather_elements_parse(const ir_graph *g, const ir_node *n, void *params,
                                       pz_err *err)
{
    pz_axis_params *p = params;
    int64_t axis;
    if (op_attr_int(n, "axis", 0, &axis, err)) return err->code;
    return op_axis(n, "axis", axis, op_in(g, n, 0)->rank, 0, &p->axis, err);
}

static pz_status gather_elements_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_axis_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *idx = op_in(g, n, 1);
    if (idx->dtype != IR_I64 && idx->dtype != IR_I32)
        return op_err(err, n, "indices must be int64 or int32, got %s", ir_dtype_name(idx->dtype));
    if (!ir_dtype_size(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (GatherElements): input data has "
                       "type %s, not supported", n->name, ir_dtype_name(x->dtype));
    if (idx->rank != x->rank)
        return op_err(err, n, "indices have rank %d, data %d: they must agree", idx->rank, x->rank);
    for (int i = 0; i < x->rank; i++)
        if (i != p->axis && idx->dims[i] > x->dims[i])
            return op_err(err, n, "indices dim %d is %lld, above data's %lld", i,
                          (long long)idx->dims[i], (long long)x->dims[i]);
    if (op_check_indices(g, n, idx, 1, x->dims + p->axis, p->axis, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, idx->rank, idx->dims);
    return PZ_OK;
}

static pz_status gather_elements_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                       pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_GATHER_ELEMENTS, n->params, sizeof(pz_axis_params));
    return PZ_OK;
}

const op_def op_gather_elements = {
    .name = "GatherElements",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_axis_params),
    .parse = gather_elements_parse,
    .infer = gather_elements_infer,
    .lower = gather_elements_lower,
};
