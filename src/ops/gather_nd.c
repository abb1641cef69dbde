/* gather_nd.c - GatherND: slices of data picked by index tuples.
 *   data [B..., D...] (b = batch_dims leading dims shared with indices),
 *   indices int64 [B..., Q..., k] -> [B..., Q..., D(k)...]
 * Negative indices count from the end; one out of range is refused (a
 * constant) or fails the run (rt/ops/gather_nd.c), as ONNX Runtime. */
#include "op.h"

static pz_status gather_nd_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_gather_nd_params *p = params;
    int64_t b;
    if (op_attr_int(n, "batch_dims", 0, &b, err)) return err->code;
    if (b < 0 || b >= IR_MAX_RANK) return op_err_attr(err, n, "batch_dims", "%lld is out of "
                                                       "range", (long long)b);
    p->batch_dims = (int)b;
    return PZ_OK;
}

static pz_status gather_nd_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_gather_nd_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *idx = op_in(g, n, 1);
    int b = p->batch_dims, q = idx->rank;
    if (idx->dtype != IR_I64 && idx->dtype != IR_I32)
        return op_err(err, n, "indices must be int64 or int32, got %s", ir_dtype_name(idx->dtype));
    if (!ir_dtype_size(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (GatherND): input data has type "
                       "%s, not supported", n->name, ir_dtype_name(x->dtype));
    if (q < 1 || b >= q || b >= x->rank)
        return op_err_attr(err, n, "batch_dims", "%d must be below the ranks of data (%d) and "
                           "indices (%d)", b, x->rank, q);
    int64_t k = idx->dims[q - 1];
    if (k < 1 || b + k > x->rank)
        return op_err(err, n, "indices' last dim is %lld, data has %d dims after batch_dims",
                      (long long)k, x->rank - b);
    for (int i = 0; i < b; i++)
        if (x->dims[i] != idx->dims[i])
            return op_err(err, n, "batch dim %d: data has %lld, indices %lld", i,
                          (long long)x->dims[i], (long long)idx->dims[i]);
    int64_t dims[2 * IR_MAX_RANK];
    int rank = 0;
    for (int i = 0; i < q - 1; i++) dims[rank++] = idx->dims[i];
    for (int i = b + (int)k; i < x->rank; i++) dims[rank++] = x->dims[i];
    if (rank > IR_MAX_RANK)
        return op_err(err, n, "the output would have rank %d, above %d", rank, IR_MAX_RANK);
    if (op_check_indices(g, n, idx, (int)k, x->dims + b, b, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, rank, dims);
    return PZ_OK;
}

static pz_status gather_nd_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_GATHER_ND, n->params, sizeof(pz_gather_nd_params));
    return PZ_OK;
}

const op_def op_gather_nd = {
    .name = "GatherND",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_gather_nd_params),
    .parse = gather_nd_parse,
    .infer = gather_nd_infer,
    .lower = gather_nd_lower,
};
