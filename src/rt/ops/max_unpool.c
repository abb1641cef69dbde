/* max_unpool.c - the MAX_UNPOOL layer (ONNX MaxUnpool): X and I (int64, X's
 * shape; flat indices into Y) -> Y of the shape the compiler resolved
 * (from output_shape or the pooling geometry). Any element type. */
#include "rt/ops/ops.h"

static int max_unpool_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *i = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !i || !y) return pz_layer_fail(l, err, n, "needs X, I and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "I", i, PZ_I64) ||
        pz_layer_want_same_shape(l, err, n, "I", i, x) ||
        pz_layer_want_dtype(l, err, n, "Y", y, x->dtype))
        return 1;
    return 0;
}

static void max_unpool_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *y = l->out[0];
    pz_any_max_unpool__ref(pz_dtype_size(x->dtype), pz_numel(x), pz_numel(y), x->data,
                           l->in[1]->data, y->data, ith, nth);
}

const pz_rt_op pz_rt_op_max_unpool = {
    .name = "MAX_UNPOOL", .params_size = 0,
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = max_unpool_prepare, .run = max_unpool_run,
};
