/* gather_elements.c - the GATHER_ELEMENTS layer: X, indices -> Y of the
 * indices' shape, Y[c] = X[c with c[axis] = indices[c]], any type. */
#include "rt/kernels/bcast_fast.h"
#include "rt/ops/ops.h"

static int gather_elements_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_axis_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *ix = pz_in(l, 1), *y = pz_out(l, 0);
    char bx[96], bi[96], by[96];
    if (pz_index_layer_check(l, err, n)) return 1;
    if (x->rank < 1 || p->axis < 0 || p->axis >= x->rank)
        return pz_layer_fail(l, err, n, "axis %d out of range for rank %d", p->axis, x->rank);
    /* indices no larger than X off the axis; Y of the indices' shape */
    bool ok = ix->rank == x->rank && y->rank == x->rank;
    for (int i = 0; ok && i < x->rank; i++)
        ok = y->dims[i] == ix->dims[i] && (i == p->axis || ix->dims[i] <= x->dims[i]);
    if (!ok)
        return pz_layer_fail(l, err, n, "X %s, indices %s, Y %s do not fit along axis %d",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(ix, bi, sizeof bi),
                             pz_shape_str(y, by, sizeof by), p->axis);
    return pz_index_run_prepare(l, ix, err, n);   /* run-time indices: checked each run */
}

static void gather_elements_run(const pz_layer *l, int ith, int nth)
{
    const pz_axis_params *p = l->params;
    const pz_tensor *x = l->in[0], *ix = l->in[1];
    int64_t xs[PZ_MAX_RANK], acc = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        xs[d] = acc;
        acc *= x->dims[d];
    }
    if (ith == 0 && l->run_err) pz_index_run_check(l, ix, 1, x->dims + p->axis, p->axis);
    (l->isa == PZ_ISA_REF ? pz_any_gather_elements__ref : pz_any_gather_elements__fast)(
        pz_dtype_size(x->dtype), ix->rank, ix->dims, xs, p->axis,
                                x->dims[p->axis], ix->dtype, ix->data, x->data, l->out[0]->data,
                                ith, nth);
}

const pz_rt_op pz_rt_op_gather_elements = {
    .name = "GATHER_ELEMENTS", PZ_OP_PARAMS(pz_axis_params, pz_axis_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = gather_elements_prepare, .run = gather_elements_run,
};
