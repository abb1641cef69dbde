/* nonzero.c - the NONZERO layer (ONNX NonZero): X (any type) -> Y int64
 * [rank, nnz], the coordinates of X's nonzero elements. Y is planned at its
 * bound [rank, numel(X)]; run sets dims[1] to nnz (a run-time shape, Y
 * packed at it). One worker. */
#include "rt/ops/ops.h"

static int nonzero_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, PZ_I64)) return 1;
    int64_t rank = x->rank ? x->rank : 1;
    if (y->rank != 2 || y->dims[0] != rank || y->dims[1] != pz_numel(x)) {
        char bx[96], by[96];
        return pz_layer_fail(l, err, n, "Y %s is not [rank, numel] of X %s",
                             pz_shape_str(y, by, sizeof by), pz_shape_str(x, bx, sizeof bx));
    }
    l->nth = 1;
    return 0;
}

static void nonzero_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    l->out[0]->dims[1] = pz_any_nonzero__ref(x->dtype, x->rank, x->dims, x->data, l->out[0]->data);
}

/* A dynamic region (X's shape the run's): run counts at X's run dims and
 * sets Y's; the rank is X's, as planned. */
static void nonzero_run_shape(const pz_layer *l)
{
    l->out[0]->dims[1] = 0;
}

const pz_rt_op pz_rt_op_nonzero = {
    .name = "NONZERO",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = nonzero_prepare, .run = nonzero_run,
    .dyn_out = 1, .run_shape = nonzero_run_shape,
};
