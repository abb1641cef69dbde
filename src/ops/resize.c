/* resize.c - Resize: nearest, (bi/tri)linear or cubic resampling.
 *   opset 10:  X, scales
 *   opset 11+: X, roi (optional), scales (optional), sizes (optional)
 *   -> Y, with out = floor(in * scale) per dim, or out = sizes.
 * Exactly one of scales and sizes is given (an empty tensor counts as
 * absent); both must be constants. From opset 18 they may cover only the
 * dims in `axes` (the others keep their size), and keep_aspect_ratio_policy
 * not_larger / not_smaller turns sizes into one common scale:
 *   scale = min (or max) over axes of sizes[i] / in[axes[i]],
 *   out[axes[i]] = round(scale * in[axes[i]]). */
#include <math.h>
#include <string.h>

#include "fold.h"

typedef enum { RESIZE_NEAREST, RESIZE_LINEAR, RESIZE_CUBIC } resize_mode;
typedef enum {
    RESIZE_HALF_PIXEL, RESIZE_HALF_PIXEL_SYMMETRIC, RESIZE_PYTORCH_HALF_PIXEL,
    RESIZE_ALIGN_CORNERS, RESIZE_ASYMMETRIC, RESIZE_TF_HALF_PIXEL_FOR_NEAREST,
    RESIZE_TF_CROP_AND_RESIZE,
} resize_coord;
typedef enum {
    RESIZE_ROUND_PREFER_FLOOR, RESIZE_ROUND_PREFER_CEIL, RESIZE_FLOOR, RESIZE_CEIL,
} resize_nearest;
typedef enum { RESIZE_STRETCH, RESIZE_NOT_LARGER, RESIZE_NOT_SMALLER } resize_policy;

typedef struct {
    resize_mode mode;
    resize_coord coord;
    resize_nearest nearest;
    resize_policy policy;
    float cubic_coeff_a, extrapolation_value;
    int64_t exclude_outside, antialias;
    int n_axes;                 /* -1: all dims */
    int64_t axes[IR_MAX_RANK];
} resize_params;

/* Index of s in names[count], or an error naming the attribute. */
static pz_status pick(const ir_node *n, const char *attr, const char *def,
                      const char *const *names, int count, int *out, pz_err *err)
{
    const char *s;
    if (op_attr_string(n, attr, def, &s, err)) return err->code;
    for (int i = 0; i < count; i++)
        if (!strcmp(s, names[i])) { *out = i; return PZ_OK; }
    char list[256] = "";
    for (int i = 0; i < count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return op_err_attr(err, n, attr, "is \"%s\", expected one of %s", s, list);
}

static pz_status resize_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    static const char *const coords[] = {"half_pixel", "half_pixel_symmetric",
                                         "pytorch_half_pixel", "align_corners", "asymmetric",
                                         "tf_half_pixel_for_nearest", "tf_crop_and_resize"};
    static const char *const nearests[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                           "ceil"};
    static const char *const policies[] = {"stretch", "not_larger", "not_smaller"};
    resize_params *p = params;
    int v;
    /* opset 10 has no cubic mode and always maps coordinates asymmetrically */
    if (pick(n, "mode", "nearest", modes, g->opset < 11 ? 2 : 3, &v, err)) return err->code;
    p->mode = (resize_mode)v;
    if (pick(n, "coordinate_transformation_mode", g->opset < 11 ? "asymmetric" : "half_pixel",
             coords, PZ_ARRAY_LEN(coords), &v, err))
        return err->code;
    p->coord = (resize_coord)v;
    if (pick(n, "nearest_mode", "round_prefer_floor", nearests, PZ_ARRAY_LEN(nearests), &v, err))
        return err->code;
    p->nearest = (resize_nearest)v;
    if (pick(n, "keep_aspect_ratio_policy", "stretch", policies, PZ_ARRAY_LEN(policies), &v, err))
        return err->code;
    p->policy = (resize_policy)v;
    if (op_attr_float(n, "cubic_coeff_a", -0.75f, &p->cubic_coeff_a, err) ||
        op_attr_float(n, "extrapolation_value", 0.0f, &p->extrapolation_value, err) ||
        op_attr_int(n, "exclude_outside", 0, &p->exclude_outside, err) ||
        op_attr_int(n, "antialias", 0, &p->antialias, err) ||
        op_attr_ints(n, "axes", p->axes, IR_MAX_RANK, &p->n_axes, err))
        return err->code;
    if (p->exclude_outside != 0 && p->exclude_outside != 1)
        return op_err_attr(err, n, "exclude_outside", "is %lld, must be 0 or 1",
                           (long long)p->exclude_outside);
    if (p->antialias != 0 && p->antialias != 1)
        return op_err_attr(err, n, "antialias", "is %lld, must be 0 or 1",
                           (long long)p->antialias);
    return PZ_OK;
}

/* Input i if given and not an empty tensor (how exporters omit it), else NULL. */
static const ir_tensor *given(const ir_graph *g, const ir_node *n, int i)
{
    const ir_tensor *t = op_in(g, n, i);
    return t && ir_tensor_numel(t) > 0 ? t : NULL;
}

/* The resized axes: `axes` (opset 18+) normalised, or every dim. */
static pz_status resize_axes(const ir_graph *g, const ir_node *n, int *ax, int *n_axes,
                             pz_err *err)
{
    const resize_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    *n_axes = p->n_axes;
    if (*n_axes >= 0) {
        if (g->opset < 18)
            return op_err_attr(err, n, "axes", "exists from opset 18 (the model uses %d)",
                               g->opset);
        return op_axes_list(n, "axes", p->axes, *n_axes, x->rank, ax, err);
    }
    *n_axes = x->rank;
    for (int k = 0; k < x->rank; k++) ax[k] = k;
    return PZ_OK;
}

/* Input i (roi, scales, sizes) read at run time: given, not a constant,
 * g->rt_shapes, a vector of a compile-time length (op_rt_ints' rule). */
static int rt_input(const ir_graph *g, const ir_node *n, int i)
{
    const ir_tensor *t = given(g, n, i);
    return t && !t->data && g->rt_shapes && !g->values[n->in[i]].dyn && t->rank == 1 &&
           ir_tensor_numel(t) <= 2 * IR_MAX_RANK;
}

/* Whether the node reads scales, sizes or roi at run time (opset 11+), or
 * X is allocated at run time: Y has no compile-time bound (RESIZE with
 * inputs 1-3, rt/ops/resize.c). */
static int resize_at_run_time(const ir_graph *g, const ir_node *n)
{
    if (g->opset < 11) return 0;
    if (g->values[n->in[0]].dyn) return 1;
    for (int i = 1; i < 4; i++)
        if (rt_input(g, n, i)) return 1;
    return 0;
}

/* The output dims, and the scale per dim as the coordinate mapping uses it:
 * scales[i] when scales is given; out/in per dim with sizes (stretch); the
 * common scale on the listed axes with keep_aspect_ratio_policy. Dims not
 * resized get 1. */
static pz_status resize_plan(const ir_graph *g, const ir_node *n, int64_t *dims, double *scale,
                             pz_err *err)
{
    const resize_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int scales_at = g->opset < 11 ? 1 : 2, sizes_at = g->opset < 11 ? -1 : 3;
    if (g->opset < 11 && n->n_in > 2)
        return op_err(err, n, "takes inputs X and scales in opset 10 (the node has %d inputs)",
                      n->n_in);
    const ir_tensor *scales_t = given(g, n, scales_at);
    const ir_tensor *sizes_t = sizes_at >= 0 ? given(g, n, sizes_at) : NULL;
    if (scales_t && sizes_t) return op_err(err, n, "scales and sizes are both given; give one");
    if (!scales_t && !sizes_t)
        return op_err(err, n, "%s", g->opset < 11 ? "scales is required"
                                                  : "one of scales (input 2) and sizes "
                                                    "(input 3) is required");

    int ax[IR_MAX_RANK], n_axes;
    if (resize_axes(g, n, ax, &n_axes, err)) return err->code;

    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    for (int k = 0; k < x->rank; k++) scale[k] = 1;
    if (resize_at_run_time(g, n)) return PZ_OK;   /* X's dims and scale 1 stand in */
    int count;
    if (scales_t) {
        double scales[IR_MAX_RANK];
        if (op_const_floats(g, n, scales_at, "scales", scales, IR_MAX_RANK, &count, err))
            return err->code;
        if (count != n_axes)
            return op_err(err, n, "scales has %d entries, expected %d", count, n_axes);
        for (int i = 0; i < count; i++) {
            if (op_scale_dim(n, "scales", x->dims[ax[i]], scales[i], &dims[ax[i]], err))
                return err->code;
            scale[ax[i]] = scales[i];
        }
    } else {
        int64_t sizes[IR_MAX_RANK];
        if (op_const_ints(g, n, sizes_at, "sizes", sizes, IR_MAX_RANK, &count, err))
            return err->code;
        if (count != n_axes)
            return op_err(err, n, "sizes has %d entries, expected %d", count, n_axes);
        for (int i = 0; i < count; i++)
            if (sizes[i] < 0)
                return op_err(err, n, "sizes[%d] is %lld, must be >= 0", i, (long long)sizes[i]);
        if (p->policy == RESIZE_STRETCH) {
            for (int i = 0; i < count; i++) {
                int64_t in = x->dims[ax[i]];
                dims[ax[i]] = sizes[i];
                scale[ax[i]] = in ? (double)sizes[i] / (double)in : 1;
            }
        } else {
            double common = 0;
            for (int i = 0; i < count; i++) {
                if (!x->dims[ax[i]])
                    return op_err_attr(err, n, "keep_aspect_ratio_policy", "dim %d is empty: "
                                       "no aspect ratio to keep", ax[i]);
                double s = (double)sizes[i] / (double)x->dims[ax[i]];
                if (i == 0 || (p->policy == RESIZE_NOT_LARGER ? s < common : s > common))
                    common = s;
            }
            for (int i = 0; i < count; i++) {
                double v = floor((double)x->dims[ax[i]] * common + 0.5);   /* round half up */
                if (!(v < 0x1p62))
                    return op_err(err, n, "sizes: dim %d would be too large", ax[i]);
                dims[ax[i]] = (int64_t)v;
                scale[ax[i]] = common;
            }
        }
    }
    return op_check_dims(n, x->rank, dims, err);
}

/* The crop window of tf_crop_and_resize per dim, as fractions of the input:
 * roi (input 1, constant: the runtime takes X alone) holds the starts, then
 * the ends, of the resized axes; other dims and other modes get 0 to 1. */
static pz_status resize_roi(const ir_graph *g, const ir_node *n, float *start, float *end,
                            pz_err *err)
{
    const resize_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    for (int k = 0; k < x->rank; k++) {
        start[k] = 0;
        end[k] = 1;
    }
    if (p->coord != RESIZE_TF_CROP_AND_RESIZE || g->opset < 11 || !given(g, n, 1) ||
        resize_at_run_time(g, n))
        return PZ_OK;
    int ax[IR_MAX_RANK], n_axes, count;
    double roi[2 * IR_MAX_RANK];
    if (resize_axes(g, n, ax, &n_axes, err)) return err->code;
    if (op_const_floats(g, n, 1, "roi", roi, 2 * IR_MAX_RANK, &count, err)) return err->code;
    if (count != 2 * n_axes)
        return op_err(err, n, "roi has %d entries, expected %d (starts and ends of %d axes)",
                      count, 2 * n_axes, n_axes);
    for (int i = 0; i < n_axes; i++) {
        start[ax[i]] = (float)roi[i];
        end[ax[i]] = (float)roi[n_axes + i];
    }
    return PZ_OK;
}

static pz_status resize_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t dims[IR_MAX_RANK];
    double scale[IR_MAX_RANK];
    float roi_start[IR_MAX_RANK], roi_end[IR_MAX_RANK];
    if (resize_plan(g, n, dims, scale, err)) return err->code;
    /* checked here: the crop window is compiled in, like the scales */
    if (resize_roi(g, n, roi_start, roi_end, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    if (resize_at_run_time(g, n)) op_set_rt_alloc(g, n, 0);
    return PZ_OK;
}

/* RESIZE of X alone: the modes, the per-dim scale of resize_plan and, for
 * tf_crop_and_resize, the roi (default 0 to 1 on every dim). roi, scales and
 * sizes (constants) are dropped. */
static pz_status resize_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const resize_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    static const pz_resize_mode modes[] = {
        [RESIZE_NEAREST] = PZ_RESIZE_NEAREST, [RESIZE_LINEAR] = PZ_RESIZE_LINEAR,
        [RESIZE_CUBIC] = PZ_RESIZE_CUBIC,
    };
    static const pz_resize_coord coords[] = {
        [RESIZE_HALF_PIXEL] = PZ_CT_HALF_PIXEL,
        [RESIZE_HALF_PIXEL_SYMMETRIC] = PZ_CT_HALF_PIXEL_SYMMETRIC,
        [RESIZE_PYTORCH_HALF_PIXEL] = PZ_CT_PYTORCH_HALF_PIXEL,
        [RESIZE_ALIGN_CORNERS] = PZ_CT_ALIGN_CORNERS,
        [RESIZE_ASYMMETRIC] = PZ_CT_ASYMMETRIC,
        [RESIZE_TF_CROP_AND_RESIZE] = PZ_CT_TF_CROP_AND_RESIZE,
    };
    static const pz_resize_nearest nearests[] = {
        [RESIZE_ROUND_PREFER_FLOOR] = PZ_NEAREST_ROUND_PREFER_FLOOR,
        [RESIZE_ROUND_PREFER_CEIL] = PZ_NEAREST_ROUND_PREFER_CEIL,
        [RESIZE_FLOOR] = PZ_NEAREST_FLOOR, [RESIZE_CEIL] = PZ_NEAREST_CEIL,
    };
    if (p->coord == RESIZE_TF_HALF_PIXEL_FOR_NEAREST)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Resize): attribute "
                       "'coordinate_transformation_mode': tf_half_pixel_for_nearest is not "
                       "supported by the runtime", n->name);
    int64_t dims[IR_MAX_RANK];
    double scale[IR_MAX_RANK];
    if (resize_plan(g, n, dims, scale, err)) return err->code;

    pz_resize_params rp;
    memset(&rp, 0, sizeof rp);
    rp.mode = modes[p->mode];
    rp.coord = coords[p->coord];
    rp.nearest = nearests[p->nearest];
    rp.cubic_coeff_a = p->cubic_coeff_a;
    rp.exclude_outside = (int)p->exclude_outside;
    rp.extrapolation_value = p->extrapolation_value;
    rp.antialias = (int)p->antialias;   /* linear and cubic only; nearest ignores it */
    for (int k = 0; k < x->rank; k++) rp.scale[k] = (float)scale[k];
    /* Resize-10 maps asymmetrically (parse's default) and has no
     * nearest_mode: it rounds like Upsample (ONNX Runtime's rule) */
    if (g->opset < 11 && p->mode == RESIZE_NEAREST &&
        op_upsample_nearest(n, x->rank, scale, &rp.nearest, err))
        return err->code;
    if (resize_roi(g, n, rp.roi_start, rp.roi_end, err)) return err->code;
    if (resize_at_run_time(g, n)) {   /* roi, scales, sizes: inputs 1-3 */
        int ax[IR_MAX_RANK];
        if (resize_axes(g, n, ax, &rp.n_rt_axes, err)) return err->code;
        for (int i = 0; i < rp.n_rt_axes; i++) rp.rt_axes[i] = ax[i];
        rp.rt_policy = (int)p->policy;
        op_lowered_init(out, n, PZ_OP_RESIZE, &rp, sizeof rp);
        return PZ_OK;
    }
    op_lowered_init(out, n, PZ_OP_RESIZE, &rp, sizeof rp);
    out->n_in = 1;
    return PZ_OK;
}

const op_def op_resize = {
    .name = "Resize",
    .min_in = 1, .max_in = 4, .min_out = 1, .max_out = 1,
    .params_size = sizeof(resize_params),
    .parse = resize_parse,
    .infer = resize_infer,
    .cost = NULL,
    .lower = resize_lower,
};
