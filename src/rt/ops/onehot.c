/* onehot.c - the ONEHOT layer (ONNX OneHot): indices (any numeric type)
 * and values [off, on] -> Y of values' type, indices' shape with depth
 * inserted at axis: the compiler's constant, or (depth -1) the one number
 * of input 2 read at run time, Y then allocated by the net (dyn_alloc). */
#include <math.h>

#include "rt/ops/ops.h"
#include "rt/elem.h"

static int onehot_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_onehot_params *p = l->params;
    const pz_tensor *ind = pz_in(l, 0), *v = pz_in(l, 1), *y = pz_out(l, 0);
    if (!ind || !v || !y) return pz_layer_fail(l, err, n, "needs indices, values and Y");
    if (!pz_dtype_is_float(ind->dtype) && !pz_dtype_is_int(ind->dtype))
        return pz_layer_fail(l, err, n, "indices have type %s, expected a number type",
                             pz_dtype_name(ind->dtype));
    if (pz_numel(v) != 2 || pz_dtype_size(v->dtype) == 0)
        return pz_layer_fail(l, err, n, "values must be two elements [off, on]");
    const pz_tensor *dt = p->depth < 0 ? pz_in(l, 2) : NULL;
    if (p->depth < 0 && (!dt || pz_numel(dt) != 1 ||
                         (!pz_dtype_is_float(dt->dtype) && !pz_dtype_is_int(dt->dtype))))
        return pz_layer_fail(l, err, n, "depth -1 (the run's) needs input 2, one number");
    if (p->axis < 0 || p->axis > ind->rank || p->depth < -1)
        return pz_layer_fail(l, err, n, "axis %d, depth %lld for indices of rank %d", p->axis,
                             (long long)p->depth, ind->rank);
    if (pz_layer_want_dtype(l, err, n, "Y", y, v->dtype)) return 1;
    int ok = y->rank == ind->rank + 1;
    for (int a = 0; ok && a < y->rank; a++)
        ok = (a == p->axis && p->depth < 0) ||
             y->dims[a] == (a < p->axis ? ind->dims[a] : a == p->axis ? p->depth
                                                                        : ind->dims[a - 1]);
    if (!ok) return pz_layer_fail(l, err, n, "Y is not indices' shape with depth at axis");
    return 0;
}

static void onehot_run(const pz_layer *l, int ith, int nth)
{
    const pz_onehot_params *p = l->params;
    const pz_tensor *ind = l->in[0], *v = l->in[1];
    const int64_t outer = pz_prod(ind->dims, p->axis);
    const int64_t inner = pz_numel(ind) / (outer ? outer : 1);
    pz_any_onehot__ref(ind->dtype, ind->data, outer, l->out[0]->dims[p->axis], outer ? inner : 0,
                       pz_dtype_size(v->dtype), v->data, l->out[0]->data, ith, nth);
}

/* depth read at run time (input 2): truncated to an integer, it must be a
 * positive count (ONNX), else the run fails (pz_layer_run_fail), Y empty;
 * Y is indices' shape with it at axis. A dynamic region's indices: their
 * run's shape. */
static void onehot_run_shape(const pz_layer *l)
{
    const pz_onehot_params *p = l->params;
    const pz_tensor *ind = l->in[0];
    pz_tensor *y = l->out[0];
    double d = p->depth < 0 ? trunc(pz_load_f64(l->in[2]->data, l->in[2]->dtype, 0))
                            : (double)p->depth;
    if (!(d >= 1 && d <= 1e12)) {
        pz_layer_run_fail(l, "depth is %g, must be a positive count", d);
        d = 0;
    }
    y->rank = ind->rank + 1;
    for (int a = 0; a < y->rank; a++)
        y->dims[a] = a < p->axis ? ind->dims[a] : a == p->axis ? (int64_t)d : ind->dims[a - 1];
    if (d == 0 && y->rank) y->dims[0] = 0;
}

static int onehot_dyn_alloc(const pz_layer *l)
{
    return ((const pz_onehot_params *)l->params)->depth < 0;
}

static const pz_param_field onehot_fields[] = {
    PZ_FIELD(pz_onehot_params, axis, PZ_F_INT),
    PZ_FIELD(pz_onehot_params, depth, PZ_F_I64),
};

const pz_rt_op pz_rt_op_onehot = {
    .name = "ONEHOT", PZ_OP_PARAMS(pz_onehot_params, onehot_fields),
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = onehot_prepare, .run = onehot_run,
    .run_shape = onehot_run_shape, .dyn_alloc = onehot_dyn_alloc,
};
