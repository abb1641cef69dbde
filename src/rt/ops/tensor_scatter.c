/* tensor_scatter.c - the TENSOR_SCATTER layer (ONNX TensorScatter):
 * past_cache [B, ..., M, ...], update (past's shape but S <= M along axis),
 * write_indices? int64 [B] -> Y, past's type and shape. */
#include "rt/ops/ops.h"

static int tensor_scatter_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor_scatter_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *u = pz_in(l, 1), *wi = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !u || !y) return pz_layer_fail(l, err, n, "needs past_cache, update and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "past_cache has type %s", pz_dtype_name(x->dtype));
    if (x->rank < 2 || p->axis < 1 || p->axis >= x->rank)
        return pz_layer_fail(l, err, n, "axis %d for rank %d (not the batch axis)", p->axis,
                             x->rank);
    if (pz_layer_want_dtype(l, err, n, "update", u, x->dtype)) return 1;
    int ok = u->rank == x->rank;
    for (int a = 0; ok && a < x->rank; a++)
        ok = a == p->axis ? u->dims[a] <= x->dims[a] : u->dims[a] == x->dims[a];
    if (!ok) return pz_layer_fail(l, err, n, "update must be past_cache's shape, at most as "
                                  "long along axis %d", p->axis);
    if (wi && (pz_layer_want_dtype(l, err, n, "write_indices", wi, PZ_I64) ||
               (wi->rank != 1 || wi->dims[0] != x->dims[0])))
        return pz_layer_fail(l, err, n, "write_indices must be int64 [%lld]",
                             (long long)x->dims[0]);
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x))
        return 1;
    return wi ? pz_index_run_prepare(l, wi, err, n) : 0;   /* run-time indices: checked */
}

static void tensor_scatter_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor_scatter_params *p = l->params;
    const pz_tensor *x = l->in[0], *u = l->in[1], *wi = pz_in(l, 2);
    /* as ONNX Runtime 1.30: a write index is >= 0, and linear leaves room
     * for the update (circular wraps a larger one); the kernel never writes
     * outside Y either way */
    if (ith == 0 && wi && l->run_err)
        pz_run_check_span(l, wi, "write_indices", 0,
                          p->circular ? INT64_MAX : x->dims[p->axis] - u->dims[p->axis]);
    pz_any_tensor_scatter__ref(pz_dtype_size(x->dtype), x->rank, x->dims, u->dims, p->axis,
                               p->circular, x->data, u->data, wi ? wi->data : NULL,
                               l->out[0]->data, ith, nth);
}

static const pz_param_field tensor_scatter_fields[] = {
    PZ_FIELD(pz_tensor_scatter_params, axis, PZ_F_INT),
    PZ_FIELD(pz_tensor_scatter_params, circular, PZ_F_INT),
};

const pz_rt_op pz_rt_op_tensor_scatter = {
    .name = "TENSOR_SCATTER", PZ_OP_PARAMS(pz_tensor_scatter_params, tensor_scatter_fields),
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = tensor_scatter_prepare, .run = tensor_scatter_run,
};
