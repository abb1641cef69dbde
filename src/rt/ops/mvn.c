/* mvn.c - the MVN layer (ONNX MeanVarianceNormalization): X of a float
 * type -> Y, X's type and shape, normalised over the axes of axes_mask. */
#include "rt/ops/ops.h"

static int mvn_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_mvn_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (p->axes_mask < 0 || p->axes_mask >> x->rank)
        return pz_layer_fail(l, err, n, "axes_mask 0x%x has an axis beyond rank %d",
                             (unsigned)p->axes_mask, x->rank);
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    return pz_layer_want_same_shape(l, err, n, "Y", y, x);
}

static void mvn_run(const pz_layer *l, int ith, int nth)
{
    const pz_mvn_params *p = l->params;
    const pz_tensor *x = l->in[0];
    pz_any_mvn__ref(x->dtype, x->rank, x->dims, p->axes_mask, x->data, l->out[0]->data, ith,
                    nth);
}

static const pz_param_field mvn_fields[] = {
    PZ_FIELD(pz_mvn_params, axes_mask, PZ_F_INT),
};

const pz_rt_op pz_rt_op_mvn = {
    .name = "MVN", PZ_OP_PARAMS(pz_mvn_params, mvn_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = mvn_prepare, .run = mvn_run,
};
