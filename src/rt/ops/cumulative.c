/* cumulative.c - the CUMULATIVE layer: CumSum and CumProd along one axis,
 * Y of X's type and shape. The axis is in the params, or (a second input)
 * a scalar int32/int64 read at run time; one out of range there fails the
 * run naming the layer, as ONNX Runtime (Y zeros, never read outside X). */
#include <string.h>

#include "rt/ops/ops.h"

static int cumulative_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_cum_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *ax = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if ((unsigned)p->func >= PZ_CUM_COUNT_)
        return pz_layer_fail(l, err, n, "func %d is not CumSum or CumProd", (int)p->func);
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (x->rank < 1) return pz_layer_fail(l, err, n, "X is a scalar: it has no axis");
    if (ax && ((ax->dtype != PZ_I32 && ax->dtype != PZ_I64) || pz_numel(ax) != 1))
        return pz_layer_fail(l, err, n, "axis must be one int32 or int64");
    if (!ax && (p->axis < 0 || p->axis >= x->rank))
        return pz_layer_fail(l, err, n, "axis %d is out of range for rank %d", p->axis, x->rank);
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x))
        return 1;
    return ax ? pz_index_run_prepare(l, ax, err, n) : 0;   /* a run-time axis: checked */
}

static void cumulative_run(const pz_layer *l, int ith, int nth)
{
    const pz_cum_params *p = l->params;
    const pz_tensor *x = l->in[0], *ax = pz_in(l, 1), *y = l->out[0];
    int64_t axis = p->axis;
    if (ax) {
        axis = ax->dtype == PZ_I32 ? *(const int32_t *)ax->data : *(const int64_t *)ax->data;
        if (axis < 0) axis += x->rank;
        if (axis < 0 || axis >= x->rank) {
            if (ith == 0)
                pz_layer_run_fail(l, "axis is %lld: out of range for rank %d",
                                  (long long)(axis < 0 ? axis - x->rank : axis), x->rank);
            int64_t lo, hi, es = (int64_t)pz_dtype_size(y->dtype);
            pz_split(pz_numel(y), ith, nth, &lo, &hi);
            memset((char *)y->data + lo * es, 0, (size_t)((hi - lo) * es));
            return;
        }
    }
    pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, (int)axis, 0);
    pz_any_cumulative__ref(p, x->dtype, &s, x->data, y->data, ith, nth);
}

static const char *const CUM_FUNC[] = {"PZ_CUM_SUM", "PZ_CUM_PROD"};
_Static_assert(PZ_RT_LEN(CUM_FUNC) == PZ_CUM_COUNT_, "a name for each pz_cum_func");
static const pz_param_field cumulative_fields[] = {
    PZ_FIELD_ENUM(pz_cum_params, func, CUM_FUNC),
    PZ_FIELD(pz_cum_params, axis, PZ_F_INT),
    PZ_FIELD(pz_cum_params, exclusive, PZ_F_INT),
    PZ_FIELD(pz_cum_params, reverse, PZ_F_INT),
};

const pz_rt_op pz_rt_op_cumulative = {
    .name = "CUMULATIVE", PZ_OP_PARAMS(pz_cum_params, cumulative_fields),
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = cumulative_prepare, .run = cumulative_run,
    .run_shape = pz_run_shape_same,   /* run reads X's dims */
};
