/* view.c - the VIEW layer: Y is X read through a strided view (Expand,
 * Tile, DepthToSpace, SpaceToDepth, CenterCropPad), any element type.
 * prepare plans the view from the shapes (pz_view_plan); run copies rows. */
#include <string.h>

#include "rt/ops/ops.h"

static const char *const view_func_names[] = {
    "PZ_VIEW_EXPAND", "PZ_VIEW_TILE", "PZ_VIEW_DEPTH_TO_SPACE", "PZ_VIEW_SPACE_TO_DEPTH",
    "PZ_VIEW_CROP_PAD",
};

/* The view, and the planned dims it was made from (a dynamic region's). */
typedef struct {
    pz_view_desc d;
    int64_t xb[PZ_MAX_RANK], yb[PZ_MAX_RANK];
} view_state;

static int view_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    char bx[96], by[96];
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    const pz_view_params *p = l->params;
    if (l->dyn && p->func != PZ_VIEW_EXPAND && p->func != PZ_VIEW_TILE)
        return pz_layer_fail(l, err, n, "in a dynamic region only Expand and Tile run");
    view_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    const char *why = "";
    if (pz_view_plan(p, x->rank, x->dims, y->rank, y->dims, &st->d, &why))
        return pz_layer_fail(l, err, n, "X %s, Y %s: %s", pz_shape_str(x, bx, sizeof bx),
                             pz_shape_str(y, by, sizeof by), why);
    for (int a = 0; a < x->rank; a++) st->xb[a] = x->dims[a];
    for (int a = 0; a < y->rank; a++) st->yb[a] = y->dims[a];
    return 0;
}

static void view_run(const pz_layer *l, int ith, int nth)
{
    const view_state *st = l->state;
    pz_any_view__ref(&st->d, pz_dtype_size(l->in[0]->dtype), l->in[0]->data, l->out[0]->data,
                     ith, nth);
}

/* A dynamic region, from the planned (bound) dims: Expand takes X's run dim
 * where X had Y's dim, else Y's (a unit axis broadcast, or one X lacks);
 * Tile repeats each axis as planned. The view is planned again at the
 * run's dims (run_shape runs alone, before run); dims that do not
 * broadcast fail the run (pz_layer_run_fail), Y empty. */
static void view_run_shape(const pz_layer *l)
{
    const pz_view_params *p = l->params;
    view_state *st = l->state;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    for (int k = 0; k < y->rank; k++) {
        const int kx = k - (y->rank - x->rank);
        if (p->func == PZ_VIEW_TILE)
            y->dims[k] = st->xb[k] ? x->dims[k] * (st->yb[k] / st->xb[k]) : 0;
        else
            y->dims[k] = kx >= 0 && st->xb[kx] == st->yb[k] ? x->dims[kx] : st->yb[k];
    }
    const char *why = "";
    if (pz_view_plan(p, x->rank, x->dims, y->rank, y->dims, &st->d, &why)) {
        if (y->rank) y->dims[0] = 0;
        pz_layer_run_fail(l, "%s", why[0] ? why : "the run's dims do not fit the view");
        memset(&st->d, 0, sizeof st->d);
        st->d.rank = 1;   /* no rows */
    }
}

static const pz_param_field view_fields[] = {
    PZ_FIELD_ENUM(pz_view_params, func, view_func_names),
    PZ_FIELD(pz_view_params, blocksize, PZ_F_INT),
    PZ_FIELD(pz_view_params, crd, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_view_params, start, PZ_F_I64),
};

const pz_rt_op pz_rt_op_view = {
    .name = "VIEW", PZ_OP_PARAMS(pz_view_params, view_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = view_prepare, .run = view_run, .run_shape = view_run_shape,
};
