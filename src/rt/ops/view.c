/* view.c - the VIEW layer: Y is X read through a strided view (Expand,
 * Tile, DepthToSpace, SpaceToDepth, CenterCropPad), any element type.
 * prepare plans the view from the shapes (pz_view_plan); run copies rows. */
#include "rt/ops/ops.h"

static const char *const view_func_names[] = {
    "PZ_VIEW_EXPAND", "PZ_VIEW_TILE", "PZ_VIEW_DEPTH_TO_SPACE", "PZ_VIEW_SPACE_TO_DEPTH",
    "PZ_VIEW_CROP_PAD",
};


static int view_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    char bx[96], by[96];
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    pz_view_desc *d = calloc(1, sizeof *d);
    if (!d) return pz_layer_fail(l, err, n, "out of memory");
    l->state = d;
    const char *why = "";
    if (pz_view_plan(l->params, x->rank, x->dims, y->rank, y->dims, d, &why))
        return pz_layer_fail(l, err, n, "X %s, Y %s: %s", pz_shape_str(x, bx, sizeof bx),
                             pz_shape_str(y, by, sizeof by), why);
    return 0;
}

static void view_run(const pz_layer *l, int ith, int nth)
{
    pz_any_view__ref(l->state, pz_dtype_size(l->in[0]->dtype), l->in[0]->data, l->out[0]->data,
                     ith, nth);
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
    .prepare = view_prepare, .run = view_run,
};
