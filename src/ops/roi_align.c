/* roi_align.c - RoiAlign (opsets 10, 16):
 *   X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices int64 [R]
 *   -> Y [R, C, output_height, output_width].
 * mode avg or max; coordinate_transformation_mode half_pixel (opset 16's
 * default) or output_half_pixel (opset 10's rule); sampling_ratio (0:
 * adaptive), spatial_scale. No MACs. Runs as ROI_ALIGN (rt/ops/roi_align.c). */
#include <string.h>

#include "op.h"

static pz_status roi_align_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_roi_align_params *p = params;
    const char *mode, *ctm;
    if (op_attr_string(n, "mode", "avg", &mode, err) ||
        op_attr_string(n, "coordinate_transformation_mode",
                       g->opset >= 16 ? "half_pixel" : "output_half_pixel", &ctm, err) ||
        op_attr_int(n, "output_height", 1, &p->output_height, err) ||
        op_attr_int(n, "output_width", 1, &p->output_width, err) ||
        op_attr_int(n, "sampling_ratio", 0, &p->sampling_ratio, err) ||
        op_attr_float(n, "spatial_scale", 1.0f, &p->spatial_scale, err))
        return err->code;
    if (!strcmp(mode, "max")) p->mode_max = 1;
    else if (strcmp(mode, "avg"))
        return op_err_attr(err, n, "mode", "is \"%s\", expected avg or max", mode);
    if (!strcmp(ctm, "half_pixel")) p->half_pixel = 1;
    else if (strcmp(ctm, "output_half_pixel"))
        return op_err_attr(err, n, "coordinate_transformation_mode", "is \"%s\", expected "
                           "half_pixel or output_half_pixel", ctm);
    if (p->output_height < 1 || p->output_height > 1 << 20)
        return op_err_attr(err, n, "output_height", "is out of range");
    if (p->output_width < 1 || p->output_width > 1 << 20)
        return op_err_attr(err, n, "output_width", "is out of range");
    if (p->sampling_ratio < 0 || p->sampling_ratio > 1 << 20)
        return op_err_attr(err, n, "sampling_ratio", "is out of range");
    return PZ_OK;
}

static pz_status roi_align_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_roi_align_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *r = op_in(g, n, 1), *b = op_in(g, n, 2);
    if (!x || !r || !b) return op_err(err, n, "needs the inputs X, rois and batch_indices");
    if (!ir_dtype_is_float(x->dtype) || r->dtype != x->dtype)
        return op_err(err, n, "inputs X (%s) and rois (%s) must be of one float type",
                      ir_dtype_name(x->dtype), ir_dtype_name(r->dtype));
    if (b->dtype != IR_I64)
        return op_err(err, n, "input batch_indices has type %s, expected int64",
                      ir_dtype_name(b->dtype));
    if (x->rank != 4 || r->rank != 2 || r->dims[1] != 4 || b->rank != 1 ||
        b->dims[0] != r->dims[0])
        return op_err(err, n, "expected X [N,C,H,W], rois [R,4] and batch_indices [R]");
    /* constant batch indices in [0, N) (as ONNX Runtime 1.30; the run checks others) */
    if (op_check_span(g, n, b, "batch_indices", 0, x->dims[0] - 1, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, 4,
               (int64_t[]){r->dims[0], x->dims[1], p->output_height, p->output_width});
    return PZ_OK;
}

static pz_status roi_align_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                 pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_ROI_ALIGN, n->params, sizeof(pz_roi_align_params));
    return PZ_OK;
}

const op_def op_roi_align = {
    .name = "RoiAlign",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_roi_align_params),
    .parse = roi_align_parse,
    .infer = roi_align_infer,
    .lower = roi_align_lower,
};
