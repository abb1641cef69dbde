/* lpnorm.c - the LPNORM layer: LpNormalization, Y = X / ||X||_p along one
 * axis (p 1 or 2), floats; Y of X's type and shape. */
#include "rt/ops/ops.h"

static int lpnorm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_lpnorm_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (p->p != 1 && p->p != 2) return pz_layer_fail(l, err, n, "p is %d, not 1 or 2", p->p);
    if (p->axis < 0 || p->axis >= x->rank)
        return pz_layer_fail(l, err, n, "axis %d is out of range for rank %d", p->axis, x->rank);
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    return pz_layer_want_same_shape(l, err, n, "Y", y, x);
}

static void lpnorm_run(const pz_layer *l, int ith, int nth)
{
    const pz_lpnorm_params *p = l->params;
    const pz_tensor *x = l->in[0];
    pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, p->axis, 0);
    pz_any_lpnorm__ref(p->p, x->dtype, &s, x->data, l->out[0]->data, ith, nth);
}

static const pz_param_field lpnorm_fields[] = {
    PZ_FIELD(pz_lpnorm_params, axis, PZ_F_INT),
    PZ_FIELD(pz_lpnorm_params, p, PZ_F_INT),
};

const pz_rt_op pz_rt_op_lpnorm = {
    .name = "LPNORM", PZ_OP_PARAMS(pz_lpnorm_params, lpnorm_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = lpnorm_prepare, .run = lpnorm_run,
};
