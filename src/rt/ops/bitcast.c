/* bitcast.c - the BITCAST layer (ONNX BitCast): Y of another type of the
 * same width and X's shape holds X's bytes unchanged. */
#include "rt/ops/ops.h"

static int bitcast_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_dtype_size(x->dtype) == 0 || pz_dtype_size(x->dtype) != pz_dtype_size(y->dtype))
        return pz_layer_fail(l, err, n, "X (%s) and Y (%s) must have the same width",
                             pz_dtype_name(x->dtype), pz_dtype_name(y->dtype));
    return pz_layer_want_same_shape(l, err, n, "Y", y, x);
}

static void bitcast_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    pz_any_copy__ref((size_t)pz_numel(x) * pz_dtype_size(x->dtype), x->data, l->out[0]->data,
                     ith, nth);
}

const pz_rt_op pz_rt_op_bitcast = {
    .name = "BITCAST", .params_size = 0,
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = bitcast_prepare, .run = bitcast_run,
};
