/* affine_grid.c - the AFFINE_GRID layer (ONNX AffineGrid): theta [N, r, r+1]
 * -> grid [N, size..., r]; the size is a param (the compiler reads it from
 * the constant input). */
#include "rt/ops/ops.h"

static int affine_grid_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_affine_grid_params *p = l->params;
    const pz_tensor *t = pz_in(l, 0), *y = pz_out(l, 0);
    if (!t || !y) return pz_layer_fail(l, err, n, "needs theta and grid");
    if (!pz_dtype_is_float(t->dtype))
        return pz_layer_fail(l, err, n, "theta has type %s", pz_dtype_name(t->dtype));
    if (pz_layer_want_dtype(l, err, n, "grid", y, t->dtype)) return 1;
    int r = p->nsp;
    if (r < 2 || r > 3 || t->rank != 3 || t->dims[1] != r || t->dims[2] != r + 1 ||
        y->rank != r + 2 || y->dims[0] != t->dims[0] || y->dims[r + 1] != r)
        return pz_layer_fail(l, err, n, "theta must be [N, %d, %d] and grid [N, size..., %d]", r,
                             r + 1, r);
    for (int i = 0; i < r; i++)
        if (y->dims[1 + i] != p->size[i])
            return pz_layer_fail(l, err, n, "grid's dim %d is not size %lld", 1 + i,
                                 (long long)p->size[i]);
    return 0;
}

static void affine_grid_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *t = l->in[0];
    pz_any_affine_grid__ref(l->params, t->dtype, t->dims[0], t->data, l->out[0]->data, ith, nth);
}

static const pz_param_field affine_grid_fields[] = {
    PZ_FIELD(pz_affine_grid_params, nsp, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_affine_grid_params, size, PZ_F_I64),
    PZ_FIELD(pz_affine_grid_params, align_corners, PZ_F_INT),
};

const pz_rt_op pz_rt_op_affine_grid = {
    .name = "AFFINE_GRID", PZ_OP_PARAMS(pz_affine_grid_params, affine_grid_fields),
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = affine_grid_prepare, .run = affine_grid_run,
};
