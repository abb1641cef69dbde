/* reduce_mean.c - the REDUCE_MEAN layer. keepdims only changes Y's shape,
 * not its elements: Y has the kept axes' elements, in order. */
#include "rt/ops/ops.h"

static int reduce_mean_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_reduce_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (x->rank < 32 && (p->axes_mask >> x->rank) != 0)
        return pz_layer_fail(l, err, n, "axes mask 0x%x beyond rank %d", p->axes_mask, x->rank);
    int64_t kept = 1;
    for (int i = 0; i < x->rank; i++)
        if (!(p->axes_mask >> i & 1)) kept *= x->dims[i];
    if (pz_numel(y) != kept)
        return pz_layer_fail(l, err, n, "Y has %lld elements, expected %lld",
                             (long long)pz_numel(y), (long long)kept);
    return 0;
}

static void reduce_mean_run(const pz_layer *l, int ith, int nth)
{
    const pz_reduce_params *p = l->params;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    if (x->dtype == PZ_F32)
        pz_f32_reduce_mean__ref(p->axes_mask, x->rank, x->dims, x->data, y->data, ith, nth);
    else
        pz_any_reduce_mean__ref(p->axes_mask, x->dtype, x->rank, x->dims, x->data, y->data,
                                ith, nth);
}

const pz_rt_op pz_rt_op_reduce_mean = {
    .name = "REDUCE_MEAN", .params_size = sizeof(pz_reduce_params),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = reduce_mean_prepare, .run = reduce_mean_run,
};
