/* gather_nd.c - the GATHER_ND layer: data, indices -> Y, any type.
 *   data [B..., D0..D(r-b-1)] (b = batch_dims), indices [B..., Q..., k]
 *   -> Y [B..., Q..., D(k)..D(r-b-1)]: each k-tuple picks a slice of data. */
#include "rt/kernels/bcast_fast.h"
#include "rt/ops/ops.h"

static int gather_nd_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_gather_nd_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *ix = pz_in(l, 1), *y = pz_out(l, 0);
    char bx[96], bi[96], by[96];
    if (pz_index_layer_check(l, err, n)) return 1;
    int b = p->batch_dims, q = ix->rank;
    int64_t k = q ? ix->dims[q - 1] : -1;
    bool ok = q >= 1 && b >= 0 && b < q && b + k <= x->rank && y->rank == q - 1 + x->rank - b - k;
    for (int i = 0; ok && i < b; i++) ok = x->dims[i] == ix->dims[i];
    for (int i = 0; ok && i < q - 1; i++) ok = y->dims[i] == ix->dims[i];
    for (int i = q - 1; ok && i < y->rank; i++) ok = y->dims[i] == x->dims[i - (q - 1) + b + k];
    if (!ok)
        return pz_layer_fail(l, err, n, "data %s, indices %s, Y %s do not fit batch_dims %d",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(ix, bi, sizeof bi),
                             pz_shape_str(y, by, sizeof by), b);
    return pz_index_run_prepare(l, ix, err, n);   /* run-time indices: checked each run */
}

static void gather_nd_run(const pz_layer *l, int ith, int nth)
{
    const pz_gather_nd_params *p = l->params;
    const pz_tensor *x = l->in[0], *ix = l->in[1];
    int b = p->batch_dims, q = ix->rank, k = (int)ix->dims[q - 1];
    int64_t tuples = pz_prod(ix->dims, q - 1), batches = pz_prod(ix->dims, b);
    if (ith == 0 && l->run_err) pz_index_run_check(l, ix, k, x->dims + b, b);
    (l->isa == PZ_ISA_REF ? pz_any_gather_nd__ref : pz_any_gather_nd__fast)(
        pz_dtype_size(x->dtype), tuples, batches ? tuples / batches : 1, k,
                          x->dims + b, pz_prod(x->dims + b, x->rank - b),
                          pz_prod(x->dims + b + k, x->rank - b - k), ix->dtype, ix->data, x->data,
                          l->out[0]->data, ith, nth);
}

/* A dynamic region (indices of a run-time count, NonZero's): Y is the
 * indices' tuples, each a slice of data. run reads the dims as they are. */
static void gather_nd_run_shape(const pz_layer *l)
{
    const pz_gather_nd_params *p = l->params;
    const pz_tensor *x = l->in[0], *ix = l->in[1];
    pz_tensor *y = l->out[0];
    const int q = ix->rank, k = (int)ix->dims[q - 1];
    y->rank = q - 1 + x->rank - p->batch_dims - k;
    for (int i = 0; i < q - 1; i++) y->dims[i] = ix->dims[i];
    for (int i = q - 1; i < y->rank; i++) y->dims[i] = x->dims[i - (q - 1) + p->batch_dims + k];
}

static const pz_param_field gather_nd_fields[] = {
    PZ_FIELD(pz_gather_nd_params, batch_dims, PZ_F_INT),
};

const pz_rt_op pz_rt_op_gather_nd = {
    .name = "GATHER_ND", PZ_OP_PARAMS(pz_gather_nd_params, gather_nd_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = gather_nd_prepare, .run = gather_nd_run, .run_shape = gather_nd_run_shape,
};
