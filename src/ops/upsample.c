/* upsample.c - Upsample (deprecated by Resize in opset 10): nearest or
 * (bi)linear upsampling by per-dim scales.
 *   X [d...] -> Y [floor(d * scale)...]
 * The scales come from the `scales` attribute (opsets 7-8), the constant
 * input 1 (opsets 9-10), or `height_scale`/`width_scale` on the last two dims
 * of a 4-D input (opsets 1-6). */
#include <string.h>

#include "fold.h"

typedef enum { UPSAMPLE_NEAREST, UPSAMPLE_LINEAR } upsample_mode;

typedef struct {
    upsample_mode mode;
} upsample_params;

static pz_status upsample_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    upsample_params *p = params;
    const char *mode;
    if (op_attr_string(n, "mode", "nearest", &mode, err)) return err->code;
    if (!strcmp(mode, "nearest")) p->mode = UPSAMPLE_NEAREST;
    else if (!strcmp(mode, "linear") || (g->opset < 7 && !strcmp(mode, "bilinear")))
        p->mode = UPSAMPLE_LINEAR;
    else
        return op_err_attr(err, n, "mode", "is \"%s\", expected nearest or %s", mode,
                           g->opset < 7 ? "bilinear" : "linear");
    return PZ_OK;
}

/* The scale of each dim, from the attributes or input 1 by opset. */
static pz_status upsample_scales(const ir_graph *g, const ir_node *n, double *scales,
                                 pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int count;
    if (g->opset < 7) {
        float h, w;
        if (!op_attr(n, "height_scale") || !op_attr(n, "width_scale"))
            return op_err(err, n, "attributes height_scale and width_scale are required");
        if (op_attr_float(n, "height_scale", 1, &h, err) ||
            op_attr_float(n, "width_scale", 1, &w, err))
            return err->code;
        if (x->rank != 4) return op_err(err, n, "input X must be 4-D, got rank %d", x->rank);
        count = 4;
        scales[0] = scales[1] = 1;
        scales[2] = h;
        scales[3] = w;
    } else if (g->opset < 9) {
        float f[IR_MAX_RANK];
        if (op_attr_floats(n, "scales", f, IR_MAX_RANK, &count, err)) return err->code;
        if (count < 0) return op_err_attr(err, n, "scales", "is required");
        for (int i = 0; i < count; i++) scales[i] = f[i];
    } else {
        if (op_attr(n, "scales"))
            return op_err_attr(err, n, "scales", "is not an attribute from opset 9, where scales "
                               "is input 1 (the model uses opset %d)", g->opset);
        if (op_const_floats(g, n, 1, "scales", scales, IR_MAX_RANK, &count, err))
            return err->code;
    }
    if (count != x->rank)
        return op_err(err, n, "scales has %d entries, the input has rank %d", count, x->rank);
    return PZ_OK;
}

static pz_status upsample_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    double scales[IR_MAX_RANK];
    if (upsample_scales(g, n, scales, err)) return err->code;
    int64_t dims[IR_MAX_RANK];
    for (int k = 0; k < x->rank; k++)
        if (op_scale_dim(n, "scales", x->dims[k], scales[k], &dims[k], err)) return err->code;
    if (op_check_dims(n, x->rank, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

/* RESIZE of X alone with asymmetric coordinates (x = o / scale), as ONNX
 * Runtime runs Upsample: nearest takes floor(x) (ceil(x) when shrinking),
 * linear interpolates with the edge repeated. */
static pz_status upsample_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                pz_err *err)
{
    const upsample_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    double scales[IR_MAX_RANK];
    if (upsample_scales(g, n, scales, err)) return err->code;
    pz_resize_params rp;
    memset(&rp, 0, sizeof rp);
    rp.mode = p->mode == UPSAMPLE_LINEAR ? PZ_RESIZE_LINEAR : PZ_RESIZE_NEAREST;
    rp.coord = PZ_CT_ASYMMETRIC;
    rp.cubic_coeff_a = -0.75f;
    if (rp.mode == PZ_RESIZE_NEAREST &&
        op_upsample_nearest(n, x->rank, scales, &rp.nearest, err))
        return err->code;
    for (int k = 0; k < x->rank; k++) {
        rp.scale[k] = (float)scales[k];
        rp.roi_end[k] = 1;
    }
    op_lowered_init(out, n, PZ_OP_RESIZE, &rp, sizeof rp);
    out->n_in = 1;
    return PZ_OK;
}

const op_def op_upsample = {
    .name = "Upsample",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(upsample_params),
    .parse = upsample_parse,
    .infer = upsample_infer,
    .cost = NULL,
    .lower = upsample_lower,
};
