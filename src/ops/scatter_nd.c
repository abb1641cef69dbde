/* scatter_nd.c - ScatterND: Y = data, then each index tuple's slice of Y is
 * written (or combined by reduction) from updates.
 *   data [D0..D(r-1)], indices int64 [Q..., k], updates [Q..., D(k)...]
 *   -> data's shape and type.
 * Negative indices count from the end; one out of range is refused (a
 * constant) or fails the run before anything is written (rt/ops/scatter.c),
 * as ONNX Runtime. */
#include "scatter.h"

static pz_status scatter_nd_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_scatter_params *p = params;
    p->nd = 1;
    return op_scatter_reduction(n, &p->reduction, err);
}

static pz_status scatter_nd_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *idx = op_in(g, n, 1), *u = op_in(g, n, 2);
    if (idx->dtype != IR_I64 && idx->dtype != IR_I32)
        return op_err(err, n, "indices must be int64 or int32, got %s", ir_dtype_name(idx->dtype));
    if (!ir_dtype_size(x->dtype) || ir_dtype_is_small(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (ScatterND): input data has type "
                       "%s, not supported", n->name, ir_dtype_name(x->dtype));
    if (u->dtype != x->dtype)
        return op_err(err, n, "updates have type %s, data %s: they must agree",
                      ir_dtype_name(u->dtype), ir_dtype_name(x->dtype));
    int q = idx->rank;
    int64_t k = q ? idx->dims[q - 1] : 0;
    if (q < 1 || k < 1 || k > x->rank)
        return op_err(err, n, "indices' last dim must be 1 to %d (data's rank)", x->rank);
    int ok = u->rank == q - 1 + x->rank - k;
    for (int i = 0; ok && i < u->rank; i++)
        ok = u->dims[i] == (i < q - 1 ? idx->dims[i] : x->dims[i - (q - 1) + k]);
    if (!ok) return op_err(err, n, "updates' shape must be indices.shape[:-1] + data.shape[k:]");
    if (op_check_indices(g, n, idx, (int)k, x->dims, 0, err)) return err->code;
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

const op_def op_scatter_nd = {
    .name = "ScatterND",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_scatter_params),
    .parse = scatter_nd_parse,
    .infer = scatter_nd_infer,
    .lower = op_scatter_lower,
};
