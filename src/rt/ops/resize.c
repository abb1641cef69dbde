/* resize.c - the RESIZE layer: X -> Y (Y's shape from the compiler; scales
 * and roi in the params). The per-axis taps are computed at compile time. */
#include "rt/ops/ops.h"

typedef struct {
    pz_resize_tap *taps[PZ_MAX_RANK];
    int64_t *idx[PZ_MAX_RANK];    /* the taps' (index, weight) pools */
    double *w[PZ_MAX_RANK];
} resize_state;

static void resize_release(pz_layer *l)
{
    resize_state *st = l->state;
    if (!st) return;
    for (int a = 0; a < PZ_MAX_RANK; a++) {
        free(st->taps[a]);
        free(st->idx[a]);
        free(st->w[a]);
    }
}

static int resize_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_resize_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype) && !pz_dtype_is_int(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (y->rank != x->rank || x->rank < 1)
        return pz_layer_fail(l, err, n, "X has rank %d, Y %d", x->rank, y->rank);
    if (p->mode < PZ_RESIZE_NEAREST || p->mode > PZ_RESIZE_CUBIC ||
        p->coord < PZ_CT_HALF_PIXEL || p->coord > PZ_CT_HALF_PIXEL_SYMMETRIC ||
        p->nearest < PZ_NEAREST_ROUND_PREFER_FLOOR || p->nearest > PZ_NEAREST_CEIL)
        return pz_layer_fail(l, err, n, "mode %d, coordinate mode %d, nearest mode %d",
                             (int)p->mode, (int)p->coord, (int)p->nearest);
    resize_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    for (int a = 0; a < x->rank; a++) {
        if (x->dims[a] < 1 && y->dims[a] > 0)
            return pz_layer_fail(l, err, n, "axis %d: resizing an empty axis", a);
        if (!(p->scale[a] > 0))
            return pz_layer_fail(l, err, n, "axis %d: scale %g", a, (double)p->scale[a]);
        size_t outs = (size_t)(y->dims[a] > 0 ? y->dims[a] : 1);
        int width = pz_resize_width(p, a, x->dims[a], y->dims[a]);
        if (width < 1 || (size_t)width > ((size_t)1 << 40) / outs)
            return pz_layer_fail(l, err, n, "axis %d: %d taps per output", a, width);
        st->taps[a] = calloc(outs, sizeof(pz_resize_tap));
        st->idx[a] = calloc(outs * (size_t)width, sizeof(int64_t));
        st->w[a] = calloc(outs * (size_t)width, sizeof(double));
        if (!st->taps[a] || !st->idx[a] || !st->w[a])
            return pz_layer_fail(l, err, n, "out of memory");
        pz_resize_taps(p, a, x->dims[a], y->dims[a], st->taps[a], st->idx[a], st->w[a]);
    }
    return 0;
}

static void resize_run(const pz_layer *l, int ith, int nth)
{
    const resize_state *st = l->state;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    if (pz_numel(y) == 0) return;
    pz_any_resize__ref(l->params, x->dtype, x->rank, x->dims, y->dims,
                       (const pz_resize_tap *const *)st->taps, x->data, y->data, ith, nth);
}

static const char *const RESIZE_MODE[] = {"PZ_RESIZE_NEAREST", "PZ_RESIZE_LINEAR",
                                          "PZ_RESIZE_CUBIC"};
static const char *const RESIZE_COORD[] = {"PZ_CT_HALF_PIXEL", "PZ_CT_ASYMMETRIC",
                                           "PZ_CT_PYTORCH_HALF_PIXEL", "PZ_CT_ALIGN_CORNERS",
                                           "PZ_CT_TF_CROP_AND_RESIZE", "PZ_CT_HALF_PIXEL_SYMMETRIC"};
static const char *const RESIZE_NEAREST[] = {"PZ_NEAREST_ROUND_PREFER_FLOOR",
                                             "PZ_NEAREST_ROUND_PREFER_CEIL", "PZ_NEAREST_FLOOR",
                                             "PZ_NEAREST_CEIL"};
static const pz_param_field resize_fields[] = {
    PZ_FIELD_ENUM(pz_resize_params, mode, RESIZE_MODE),
    PZ_FIELD_ENUM(pz_resize_params, coord, RESIZE_COORD),
    PZ_FIELD_ENUM(pz_resize_params, nearest, RESIZE_NEAREST),
    PZ_FIELD(pz_resize_params, cubic_coeff_a, PZ_F_F32),
    PZ_FIELD(pz_resize_params, exclude_outside, PZ_F_INT),
    PZ_FIELD(pz_resize_params, extrapolation_value, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_resize_params, scale, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_resize_params, roi_start, PZ_F_F32),
    PZ_FIELD_ARRAY(pz_resize_params, roi_end, PZ_F_F32),
    PZ_FIELD(pz_resize_params, antialias, PZ_F_INT),
};

/* Row-local when it keeps the rows' scale. */
static int resize_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    if (((const pz_resize_params *)l->params)->scale[2] != 1.0f) {
        m->why = "rescales the rows";
        return 0;
    }
    return 1;
}

const pz_rt_op pz_rt_op_resize = {
    .name = "RESIZE", PZ_OP_PARAMS(pz_resize_params, resize_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = resize_prepare, .run = resize_run, .release = resize_release,
    .row_rule = resize_row_rule,
};
