/* arg.c - the ARG layer: ArgMax and ArgMin (Y int64, the index of the
 * extreme along axis; keepdims shows only in Y's shape) and Hardmax (Y of
 * X's type and shape, one-hot at the first maximum along axis). */
#include "rt/ops/ops.h"

static int arg_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_arg_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if ((unsigned)p->func >= PZ_ARG_COUNT_)
        return pz_layer_fail(l, err, n, "func %d is not ArgMax, ArgMin or Hardmax", (int)p->func);
    if (p->axis < 0 || p->axis >= x->rank)
        return pz_layer_fail(l, err, n, "axis %d is out of range for rank %d", p->axis, x->rank);
    const int hard = p->func == PZ_ARG_HARDMAX;
    if (hard ? !pz_dtype_is_float(x->dtype) : !pz_dtype_is_float(x->dtype) &&
                                                  !pz_dtype_is_int(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, hard ? x->dtype : PZ_I64)) return 1;
    pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, p->axis, hard && p->coerce_2d);
    if (!hard && s.n == 0)
        return pz_layer_fail(l, err, n, "axis %d has no elements to choose from", p->axis);
    int64_t want = hard ? pz_numel(x) : s.outer * s.inner;
    if (pz_numel(y) != want)
        return pz_layer_fail(l, err, n, "Y has %lld elements, expected %lld",
                             (long long)pz_numel(y), (long long)want);
    return 0;
}

static void arg_run(const pz_layer *l, int ith, int nth)
{
    const pz_arg_params *p = l->params;
    const pz_tensor *x = l->in[0];
    pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, p->axis,
                                       p->func == PZ_ARG_HARDMAX && p->coerce_2d);
    /* a dynamic region's empty axis: nothing to choose (ONNX Runtime fails) */
    if (l->dyn && (s.n == 0 || pz_numel(x) == 0)) return;
    pz_any_arg__ref(p, x->dtype, &s, x->data, l->out[0]->data, ith, nth);
}

/* A dynamic region: Hardmax keeps X's shape; ArgMax and ArgMin take axis
 * to 1 where Y was planned with X's rank (keepdims), else drop it. */
static void arg_run_shape(const pz_layer *l)
{
    const pz_arg_params *p = l->params;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    if (p->func == PZ_ARG_HARDMAX) {
        pz_run_shape_same(l);
        return;
    }
    const int keep = y->rank == x->rank;
    int64_t others = 1;   /* outputs: an empty axis leaves them nothing to choose */
    for (int i = 0; i < x->rank; i++)
        if (i != p->axis) others *= x->dims[i];
    if (x->dims[p->axis] == 0 && others)
        pz_layer_run_fail(l, "axis %d is empty: nothing to choose from", p->axis);
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (i != p->axis) y->dims[r++] = x->dims[i];
        else if (keep) y->dims[r++] = 1;
    y->rank = r;
}

static const char *const ARG_FUNC[] = {"PZ_ARG_MAX", "PZ_ARG_MIN", "PZ_ARG_HARDMAX"};
_Static_assert(PZ_RT_LEN(ARG_FUNC) == PZ_ARG_COUNT_, "a name for each pz_arg_func");
static const pz_param_field arg_fields[] = {
    PZ_FIELD_ENUM(pz_arg_params, func, ARG_FUNC),
    PZ_FIELD(pz_arg_params, axis, PZ_F_INT),
    PZ_FIELD(pz_arg_params, select_last, PZ_F_INT),
    PZ_FIELD(pz_arg_params, coerce_2d, PZ_F_INT),
};

const pz_rt_op pz_rt_op_arg = {
    .name = "ARG", PZ_OP_PARAMS(pz_arg_params, arg_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = arg_prepare, .run = arg_run, .run_shape = arg_run_shape,
};
