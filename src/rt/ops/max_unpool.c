/* max_unpool.c - the MAX_UNPOOL layer (ONNX MaxUnpool): X and I (int64, X's
 * shape; flat indices into Y, or into the default output that Y pads at the
 * end of each dim when output_shape asks for more) -> Y of the shape the
 * compiler resolved. Any element type. */
#include "rt/ops/ops.h"

static int max_unpool_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_max_unpool_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *i = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !i || !y) return pz_layer_fail(l, err, n, "needs X, I and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "I", i, PZ_I64) ||
        pz_layer_want_same_shape(l, err, n, "I", i, x) ||
        pz_layer_want_dtype(l, err, n, "Y", y, x->dtype))
        return 1;
    if (pz_index_run_prepare(l, i, err, n)) return 1;   /* run-time I: checked each run */
    if (p->rank != 0 && p->rank != y->rank)
        return pz_layer_fail(l, err, n, "the index space has rank %d, Y %d", p->rank, y->rank);
    for (int k = 0; k < p->rank; k++)
        if (p->dims[k] < 0 || p->dims[k] > y->dims[k])
            return pz_layer_fail(l, err, n, "the index space's dim %d (%lld) is beyond Y's "
                                 "(%lld)", k, (long long)p->dims[k], (long long)y->dims[k]);
    return 0;
}

static void max_unpool_run(const pz_layer *l, int ith, int nth)
{
    const pz_max_unpool_params *p = l->params;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    /* an index outside the index space fails the run, as ONNX Runtime (the
     * kernel skips it, never writes outside Y) */
    if (ith == 0 && l->run_err)
        pz_run_check_span(l, l->in[1], "I", 0,
                          (p->rank ? pz_prod(p->dims, p->rank) : pz_numel(y)) - 1);
    pz_any_max_unpool__ref(l->params, y->rank, y->dims, pz_dtype_size(x->dtype), pz_numel(x),
                           x->data, l->in[1]->data, y->data, ith, nth);
}

static const pz_param_field max_unpool_fields[] = {
    PZ_FIELD(pz_max_unpool_params, rank, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_max_unpool_params, dims, PZ_F_I64),
};

const pz_rt_op pz_rt_op_max_unpool = {
    .name = "MAX_UNPOOL", PZ_OP_PARAMS(pz_max_unpool_params, max_unpool_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = max_unpool_prepare, .run = max_unpool_run,
};
