/* grid_sample.c - the GRID_SAMPLE layer (ONNX GridSample): X [N, C, in...]
 * and grid [N, out..., nsp] of one float type -> Y [N, C, out...]. */
#include "rt/ops/ops.h"

static int grid_sample_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *g = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !g || !y) return pz_layer_fail(l, err, n, "needs X, grid and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "grid", g, x->dtype) ||
        pz_layer_want_dtype(l, err, n, "Y", y, x->dtype))
        return 1;
    int nsp = x->rank - 2;
    if (nsp < 1 || nsp > 3 || g->rank != x->rank || y->rank != x->rank ||
        g->dims[nsp + 1] != nsp || g->dims[0] != x->dims[0] || y->dims[0] != x->dims[0] ||
        y->dims[1] != x->dims[1])
        return pz_layer_fail(l, err, n, "X, grid and Y do not agree (X rank 3 to 5, grid "
                             "[N, out..., %d], Y [N, C, out...])", nsp);
    for (int i = 0; i < nsp; i++)
        if (y->dims[2 + i] != g->dims[1 + i])
            return pz_layer_fail(l, err, n, "Y's spatial dims are not grid's");
    return 0;
}

static void grid_sample_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    pz_any_grid_sample__ref(l->params, x->dtype, x->rank - 2, x->dims, l->out[0]->dims, x->data,
                            l->in[1]->data, l->out[0]->data, ith, nth);
}

static const char *const gs_modes[] = {"PZ_GS_LINEAR", "PZ_GS_NEAREST", "PZ_GS_CUBIC"};
static const char *const gs_paddings[] = {"PZ_GS_ZEROS", "PZ_GS_BORDER", "PZ_GS_REFLECTION"};
static const pz_param_field grid_sample_fields[] = {
    PZ_FIELD_ENUM(pz_grid_sample_params, mode, gs_modes),
    PZ_FIELD_ENUM(pz_grid_sample_params, padding, gs_paddings),
    PZ_FIELD(pz_grid_sample_params, align_corners, PZ_F_INT),
};

const pz_rt_op pz_rt_op_grid_sample = {
    .name = "GRID_SAMPLE", PZ_OP_PARAMS(pz_grid_sample_params, grid_sample_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = grid_sample_prepare, .run = grid_sample_run,
};
