/* gather.c - the GATHER layer: X, indices -> Y, along one axis, any type. */
#include "rt/kernels/bcast_fast.h"
#include "rt/ops/ops.h"

/* A float Gather along channels of a blocked rank-4 tensor by constant
 * indices (ShuffleNetV2's channel shuffle, as the graph passes rewrite it):
 * a channel gather on NCHW16c. NULL when it does not apply. */
static pz_chg_state *gather_channels(pz_layer *l)
{
    const pz_axis_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *ix = pz_in(l, 1), *y = pz_out(l, 0);
    if (l->isa == PZ_ISA_REF || l->in_have[0] != 16 || x->dtype != PZ_F32 ||
        x->rank != 4 || p->axis != 1 || ix->rank != 1 || !ix->data || pz_numel(y) == 0)
        return NULL;
    int64_t c = y->dims[1];
    int *src_in = calloc((size_t)c, sizeof *src_in);
    int64_t *src_ch = malloc((size_t)c * sizeof *src_ch);
    pz_chg_state *st = NULL;
    bool ok = src_in && src_ch;
    for (int64_t k = 0; ok && k < c; k++) {
        int64_t i = ix->dtype == PZ_I64 ? ((const int64_t *)ix->data)[k]
                                        : ((const int32_t *)ix->data)[k];
        if (i < 0) i += x->dims[1];
        ok = i >= 0 && i < x->dims[1];
        src_ch[k] = i;
    }
    if (ok) st = pz_chg_plan_layer(l, 1, src_in, src_ch);
    free(src_in);
    free(src_ch);
    return st;
}

static void gather_release(pz_layer *l)
{
    pz_chg_release(l->state);
}

static int gather_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_axis_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *ix = pz_in(l, 1), *y = pz_out(l, 0);
    char bx[96], bi[96], by[96];
    if (!x || !ix || !y) return pz_layer_fail(l, err, n, "needs X, indices and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (ix->dtype != PZ_I32 && ix->dtype != PZ_I64)
        return pz_layer_fail(l, err, n, "indices have type %s, expected int32 or int64",
                             pz_dtype_name(ix->dtype));
    if (x->rank < 1 || p->axis < 0 || p->axis >= x->rank)
        return pz_layer_fail(l, err, n, "axis %d out of range for rank %d", p->axis, x->rank);
    /* Y = X[:axis] + indices.shape + X[axis+1:] */
    bool ok = y->rank == x->rank - 1 + ix->rank;
    for (int i = 0; ok && i < y->rank; i++) {
        int64_t want = i < p->axis ? x->dims[i]
                     : i < p->axis + ix->rank ? ix->dims[i - p->axis]
                     : x->dims[i - ix->rank + 1];
        if (y->dims[i] != want) ok = false;
    }
    if (!ok)
        return pz_layer_fail(l, err, n, "X %s gathered by %s along axis %d is not Y %s",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(ix, bi, sizeof bi),
                             p->axis, pz_shape_str(y, by, sizeof by));
    if (!l->dyn) l->state = gather_channels(l);
    /* indices known only at run time are checked each run (the kernels
     * read zeros for one out of range, never outside X) */
    return pz_index_run_prepare(l, ix, err, n);
}

static void gather_run(const pz_layer *l, int ith, int nth)
{
    const pz_axis_params *p = l->params;
    const pz_tensor *x = l->in[0], *ix = l->in[1];
    if (l->state) {
        pz_chg_run(l->state, l, ith, nth);
        return;
    }
    if (ith == 0 && l->run_err) pz_index_run_check(l, ix, 1, x->dims + p->axis, p->axis);
    /* the reference twin only under PZ_ISA=ref */
    (l->isa == PZ_ISA_REF ? pz_any_gather__ref : pz_any_gather__fast)(
        pz_dtype_size(x->dtype), pz_prod(x->dims, p->axis), x->dims[p->axis],
        pz_prod(x->dims + p->axis + 1, x->rank - p->axis - 1), ix->dtype, ix->data, pz_numel(ix),
        x->data, l->out[0]->data, ith, nth);
}

/* A dynamic region: Y = X[:axis] + indices.shape + X[axis+1:], the run's. */
static void gather_run_shape(const pz_layer *l)
{
    const pz_axis_params *p = l->params;
    const pz_tensor *x = l->in[0], *ix = l->in[1];
    pz_tensor *y = l->out[0];
    y->rank = x->rank - 1 + ix->rank;
    for (int i = 0; i < y->rank; i++)
        y->dims[i] = i < p->axis ? x->dims[i]
                   : i < p->axis + ix->rank ? ix->dims[i - p->axis]
                   : x->dims[i - ix->rank + 1];
}

const pz_rt_op pz_rt_op_gather = {
    .name = "GATHER", PZ_OP_PARAMS(pz_axis_params, pz_axis_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = gather_prepare, .run = gather_run, .release = gather_release,
    .run_shape = gather_run_shape,
};
