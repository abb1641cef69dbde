/* copy.c - the COPY layer: Identity, Dropout (inference), Reshape, Flatten,
 * Squeeze, Unsqueeze. Same elements, another shape. */
#include "rt/ops/ops.h"

static int copy_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (pz_numel(x) != pz_numel(y))
        return pz_layer_fail(l, err, n, "X has %lld elements, Y %lld", (long long)pz_numel(x),
                             (long long)pz_numel(y));
    return 0;
}

static void copy_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    pz_any_copy__ref((size_t)pz_numel(x) * pz_dtype_size(x->dtype), x->data, l->out[0]->data,
                     ith, nth);
}

const pz_rt_op pz_rt_op_copy = {
    .name = "COPY", .params_size = 0,
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = copy_prepare, .run = copy_run,
};
