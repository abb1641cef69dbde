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

static pz_status resize_infer(ir_graph *g, ir_node *n, pz_err *err)
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

    int ax[IR_MAX_RANK], n_axes = p->n_axes;
    if (n_axes >= 0) {
        if (g->opset < 18)
            return op_err_attr(err, n, "axes", "exists from opset 18 (the model uses %d)",
                               g->opset);
        if (op_axes_list(n, "axes", p->axes, n_axes, x->rank, ax, err)) return err->code;
    } else {
        n_axes = x->rank;
        for (int k = 0; k < n_axes; k++) ax[k] = k;
    }

    int64_t dims[IR_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    int count;
    if (scales_t) {
        double scales[IR_MAX_RANK];
        if (op_const_floats(g, n, scales_at, "scales", scales, IR_MAX_RANK, &count, err))
            return err->code;
        if (count != n_axes)
            return op_err(err, n, "scales has %d entries, expected %d", count, n_axes);
        for (int i = 0; i < count; i++)
            if (op_scale_dim(n, "scales", x->dims[ax[i]], scales[i], &dims[ax[i]], err))
                return err->code;
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
            for (int i = 0; i < count; i++) dims[ax[i]] = sizes[i];
        } else {
            double scale = 0;
            for (int i = 0; i < count; i++) {
                if (!x->dims[ax[i]])
                    return op_err_attr(err, n, "keep_aspect_ratio_policy", "dim %d is empty: "
                                       "no aspect ratio to keep", ax[i]);
                double s = (double)sizes[i] / (double)x->dims[ax[i]];
                if (i == 0 || (p->policy == RESIZE_NOT_LARGER ? s < scale : s > scale)) scale = s;
            }
            for (int i = 0; i < count; i++) {
                double v = floor((double)x->dims[ax[i]] * scale + 0.5);   /* round half up */
                if (!(v < 0x1p62))
                    return op_err(err, n, "sizes: dim %d would be too large", ax[i]);
                dims[ax[i]] = (int64_t)v;
            }
        }
    }
    if (op_check_dims(n, x->rank, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

const op_def op_resize = {
    .name = "Resize",
    .min_in = 1, .max_in = 4, .min_out = 1, .max_out = 1,
    .params_size = sizeof(resize_params),
    .parse = resize_parse,
    .infer = resize_infer,
    .cost = NULL,
};
