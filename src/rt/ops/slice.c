/* slice.c - the SLICE layer: per-axis start and step (clamped, final, from
 * the compiler); Y's shape gives the count on each axis. */
#include "rt/ops/ops.h"

static int slice_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_slice_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (y->rank != x->rank)
        return pz_layer_fail(l, err, n, "X has rank %d, Y %d", x->rank, y->rank);
    if (pz_numel(y) == 0) return 0;
    for (int a = 0; a < x->rank; a++) {
        int64_t s = p->start[a], st = p->step[a], last = s + (y->dims[a] - 1) * st;
        if (st == 0 || s < 0 || s >= x->dims[a] || last < 0 || last >= x->dims[a])
            return pz_layer_fail(l, err, n, "axis %d: start %lld, step %lld, %lld elements "
                                 "leave [0, %lld)", a, (long long)s, (long long)st,
                                 (long long)y->dims[a], (long long)x->dims[a]);
    }
    return 0;
}

static void slice_run(const pz_layer *l, int ith, int nth)
{
    const pz_slice_params *p = l->params;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    if (pz_numel(y) == 0) return;
    pz_any_slice__ref(pz_dtype_size(x->dtype), x->rank, x->dims, y->dims, p->start, p->step,
                      x->data, y->data, ith, nth);
}

const pz_rt_op pz_rt_op_slice = {
    .name = "SLICE", .params_size = sizeof(pz_slice_params),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = slice_prepare, .run = slice_run,
};
