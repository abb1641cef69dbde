/* copy.c - the COPY layer: Identity, Dropout (inference), Reshape, Flatten,
 * Squeeze, Unsqueeze. Same elements, another shape. */
#include <string.h>

#include "rt/ops/ops.h"

static int copy_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (pz_numel(x) != pz_numel(y))
        return pz_layer_fail(l, err, n, "X has %lld elements, Y %lld", (long long)pz_numel(x),
                             (long long)pz_numel(y));
    /* in a dynamic region an identity or a flatten to one dim (copy_run_shape):
     * any other reshape of a run-time shape needs its target at run time */
    if (l->dyn && y->rank != 1 && pz_layer_want_same_shape(l, err, n, "Y", y, x)) return 1;
    return 0;
}

static void copy_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    pz_any_copy__ref((size_t)pz_numel(x) * pz_dtype_size(x->dtype), x->data, l->out[0]->data,
                     ith, nth);
}

/* Row-local when the shape stays (a reshape moves elements across rows). */
static int copy_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_row_tensor *x = &l->in[0], *y = &l->out[0];
    if (x->rank != y->rank || memcmp(x->dims, y->dims, (size_t)y->rank * sizeof(int64_t))) {
        m->why = "changes the shape (a reshape is not row-local)";
        return 0;
    }
    return 1;
}

/* A dynamic region: X's shape, or its elements in one dim (prepare checks). */
static void copy_run_shape(const pz_layer *l)
{
    if (l->out[0]->rank == 1) l->out[0]->dims[0] = pz_numel(l->in[0]);
    else pz_run_shape_same(l);
}

const pz_rt_op pz_rt_op_copy = {
    .name = "COPY", .params_size = 0,
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = copy_prepare, .run = copy_run,
    .run_shape = copy_run_shape,
    .row_rule = copy_row_rule,
};
