/* scatter.c - the SCATTER layer: data, indices, updates -> Y = data with
 * the updates written or combined (ScatterElements, Scatter, ScatterND),
 * any type. One worker: indices may repeat, and the order of the updates
 * decides the result. */
#include "rt/ops/ops.h"

static const char *const scatter_red_names[] = {
    "PZ_SCATTER_NONE", "PZ_SCATTER_ADD", "PZ_SCATTER_MUL", "PZ_SCATTER_MAX", "PZ_SCATTER_MIN",
};

/* Whether indices ix and updates u fit data x under p. */
static bool scatter_fits(const pz_scatter_params *p, const pz_tensor *x, const pz_tensor *ix,
                         const pz_tensor *u)
{
    bool ok;
    if (!p->nd) {   /* indices and updates one shape, within data off the axis */
        ok = p->axis >= 0 && p->axis < x->rank && ix->rank == x->rank && u->rank == x->rank;
        for (int i = 0; ok && i < x->rank; i++)
            ok = ix->dims[i] == u->dims[i] && (i == p->axis || u->dims[i] <= x->dims[i]);
    } else {        /* updates = indices.shape[:-1] + data.shape[k:] */
        int q = ix->rank;
        int64_t k = q ? ix->dims[q - 1] : -1;
        ok = q >= 1 && k >= 0 && k <= x->rank && u->rank == q - 1 + x->rank - k;
        for (int i = 0; ok && i < u->rank; i++)
            ok = u->dims[i] == (i < q - 1 ? ix->dims[i] : x->dims[i - (q - 1) + k]);
    }
    return ok;
}

static int scatter_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_scatter_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *ix = pz_in(l, 1), *u = pz_in(l, 2), *y = pz_out(l, 0);
    char bx[96], bi[96], bu[96];
    if (pz_index_layer_check(l, err, n)) return 1;
    if (!u) return pz_layer_fail(l, err, n, "needs updates");
    if (pz_layer_want_dtype(l, err, n, "updates", u, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x))
        return 1;
    if (!l->dyn && !scatter_fits(p, x, ix, u))   /* dynamic: run_shape checks */
        return pz_layer_fail(l, err, n, "data %s, indices %s, updates %s do not fit",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(ix, bi, sizeof bi),
                             pz_shape_str(u, bu, sizeof bu));
    l->nth = 1;
    return pz_index_run_prepare(l, ix, err, n);   /* run-time indices: checked each run */
}

static void scatter_run(const pz_layer *l, int ith, int nth)
{
    const pz_scatter_params *p = l->params;
    const pz_tensor *x = l->in[0], *ix = l->in[1], *u = l->in[2];
    if (ith != 0 || (l->run_err && l->run_err[0])) return;
    int64_t nd[3];
    if (p->nd) {
        int q = ix->rank, k = (int)ix->dims[q - 1];
        nd[0] = pz_prod(ix->dims, q - 1);
        nd[1] = k;
        nd[2] = pz_prod(x->dims + k, x->rank - k);
    }
    /* an index out of range fails the run before anything is written (the
     * kernel drops such an update, never writes outside Y) */
    if (l->run_err && (p->nd ? pz_index_run_check(l, ix, (int)nd[1], x->dims, 0)
                             : pz_index_run_check(l, ix, 1, x->dims + p->axis, p->axis)))
        return;
    pz_any_scatter__ref(x->dtype, p, x->rank, x->dims, p->nd ? nd : u->dims, ix->dtype, ix->data,
                        x->data, u->data, l->out[0]->data);
}

/* A dynamic region (indices and updates of the run's count: torchvision's
 * RoI pooler scatters each level's RoIs): Y has data's shape; indices and
 * updates must fit it, else the run fails naming the layer (Y empty). */
static void scatter_run_shape(const pz_layer *l)
{
    const pz_tensor *x = l->in[0], *ix = l->in[1], *u = l->in[2];
    pz_tensor *y = l->out[0];
    y->rank = x->rank;
    for (int i = 0; i < x->rank; i++) y->dims[i] = x->dims[i];
    if (!scatter_fits(l->params, x, ix, u)) {
        char bx[96], bi[96], bu[96];
        y->dims[0] = 0;
        pz_layer_run_fail(l, "data %s, indices %s, updates %s do not fit",
                          pz_shape_str(x, bx, sizeof bx), pz_shape_str(ix, bi, sizeof bi),
                          pz_shape_str(u, bu, sizeof bu));
    }
}

static const pz_param_field scatter_fields[] = {
    PZ_FIELD(pz_scatter_params, nd, PZ_F_INT),
    PZ_FIELD(pz_scatter_params, axis, PZ_F_INT),
    PZ_FIELD_ENUM(pz_scatter_params, reduction, scatter_red_names),
};

const pz_rt_op pz_rt_op_scatter = {
    .name = "SCATTER", PZ_OP_PARAMS(pz_scatter_params, scatter_fields),
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = scatter_prepare, .run = scatter_run,
    .run_shape = scatter_run_shape,
};
