/* shape.c - the SHAPE layer (ONNX Shape of a tensor with a run-time shape,
 * in a dynamic region): Y int64 [end - start] = X's actual dims [start,
 * end) as the run set them. Any other Shape folds at compile time. */
#include "rt/ops/ops.h"

static int shape_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_shape_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, PZ_I64)) return 1;
    if (p->start < 0 || p->end < p->start || p->end > x->rank || y->rank != 1 ||
        y->dims[0] != p->end - p->start)
        return pz_layer_fail(l, err, n, "dims [%d, %d) of rank %d do not fit Y", p->start, p->end,
                             x->rank);
    l->nth = 1;
    return 0;
}

static void shape_run(const pz_layer *l, int ith, int nth)
{
    const pz_shape_params *p = l->params;
    int64_t *y = l->out[0]->data;
    for (int d = p->start; d < p->end; d++) y[d - p->start] = l->in[0]->dims[d];
}

/* The output's shape is the planned one: nothing to set. */
static void shape_run_shape(const pz_layer *l)
{
}

static const pz_param_field shape_fields[] = {
    PZ_FIELD(pz_shape_params, start, PZ_F_INT),
    PZ_FIELD(pz_shape_params, end, PZ_F_INT),
};

const pz_rt_op pz_rt_op_shape = {
    .name = "SHAPE", PZ_OP_PARAMS(pz_shape_params, shape_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = shape_prepare, .run = shape_run,
    .run_shape = shape_run_shape, .dyn_stops = 1,
};
