/* select_branch.c - the SELECT_BRANCH layer: Y = cond ? A : B, the whole
 * tensor (an If whose condition is known only at run time, whose branches
 * give one type and rank at different shapes: src/ops/select_branch.c).
 * Y is planned at the element-wise max of A's and B's bounds; run sets its
 * dims to the chosen input's (a run-time shape) and copies its bytes. */
#include "rt/ops/ops.h"

static int select_branch_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *c = pz_in(l, 0), *a = pz_in(l, 1), *b = pz_in(l, 2), *y = pz_out(l, 0);
    if (!c || !a || !b || !y) return pz_layer_fail(l, err, n, "needs cond, A, B and Y");
    if (c->dtype != PZ_BOOL || pz_numel(c) != 1)
        return pz_layer_fail(l, err, n, "cond must be one bool, got %s of %lld elements",
                             pz_dtype_name(c->dtype), (long long)pz_numel(c));
    if (b->dtype != a->dtype)
        return pz_layer_fail(l, err, n, "A has type %s, B %s: they must agree",
                             pz_dtype_name(a->dtype), pz_dtype_name(b->dtype));
    if (pz_dtype_size(a->dtype) == 0)
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(a->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, a->dtype)) return 1;
    /* Y holds either input: its rank, and at least each one's planned dims */
    int fits = a->rank == y->rank && b->rank == y->rank;
    for (int d = 0; fits && d < y->rank; d++)
        fits = a->dims[d] <= y->dims[d] && b->dims[d] <= y->dims[d];
    if (!fits) {
        char ba[96], bb[96], by[96];
        return pz_layer_fail(l, err, n, "Y %s does not hold A %s and B %s",
                             pz_shape_str(y, by, sizeof by), pz_shape_str(a, ba, sizeof ba),
                             pz_shape_str(b, bb, sizeof bb));
    }
    return 0;
}

/* Y's dims: the chosen input's. */
static void select_branch_run_shape(const pz_layer *l)
{
    const pz_tensor *x = *(const uint8_t *)l->in[0]->data ? l->in[1] : l->in[2];
    pz_tensor *y = l->out[0];
    for (int d = 0; d < y->rank; d++) y->dims[d] = x->dims[d];
}

static void select_branch_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = *(const uint8_t *)l->in[0]->data ? l->in[1] : l->in[2];
    if (ith == 0) select_branch_run_shape(l);
    pz_any_copy__ref((size_t)pz_numel(x) * pz_dtype_size(x->dtype), x->data, l->out[0]->data,
                     ith, nth);
}

const pz_rt_op pz_rt_op_select_branch = {
    .name = "SELECT_BRANCH",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = select_branch_prepare, .run = select_branch_run,
    .dyn_out = 1, .run_shape = select_branch_run_shape,
};
