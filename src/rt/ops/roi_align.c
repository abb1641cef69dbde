/* roi_align.c - the ROI_ALIGN layer (ONNX RoiAlign): X [N, C, H, W], rois
 * [R, 4] of X's type, batch_indices int64 [R] -> Y [R, C, oh, ow]. R may be
 * the run's (run_shape). */
#include "rt/ops/ops.h"

static int roi_align_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_roi_align_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *r = pz_in(l, 1), *b = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !r || !b || !y) return pz_layer_fail(l, err, n, "needs X, rois, batch_indices, Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "rois", r, x->dtype) ||
        pz_layer_want_dtype(l, err, n, "batch_indices", b, PZ_I64) ||
        pz_layer_want_dtype(l, err, n, "Y", y, x->dtype))
        return 1;
    if (x->rank != 4 || r->rank != 2 || r->dims[1] != 4 || b->rank != 1 ||
        b->dims[0] != r->dims[0] || y->rank != 4 || y->dims[0] != r->dims[0] ||
        y->dims[1] != x->dims[1] || y->dims[2] != p->output_height ||
        y->dims[3] != p->output_width)
        return pz_layer_fail(l, err, n, "expected X [N,C,H,W], rois [R,4], batch_indices [R], "
                             "Y [R,C,%lld,%lld]", (long long)p->output_height,
                             (long long)p->output_width);
    if (p->output_height < 1 || p->output_width < 1 || p->sampling_ratio < 0 ||
        x->dims[2] < 1 || x->dims[3] < 1)
        return pz_layer_fail(l, err, n, "output size, sampling_ratio or X's size out of range");
    return pz_index_run_prepare(l, b, err, n);   /* run-time batch_indices: checked each run */
}

static void roi_align_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *r = l->in[1];
    /* run_shape's failure: not run (exec.c). A batch index outside [0, N)
     * fails the run, as ONNX Runtime 1.30 (the kernel gives NaN for it) */
    if (ith == 0 && l->run_err) pz_run_check_span(l, l->in[2], "batch_indices", 0, x->dims[0] - 1);
    pz_any_roi_align__ref(l->params, x->dtype, x->dims, r->dims[0], x->data, r->data,
                          l->in[2]->data, l->out[0]->data, ith, nth);
}

/* A dynamic region (rois and batch_indices of the run's count R, at most
 * the planned: a detector's proposals): Y [R, C, oh, ow]; they must still
 * be [R, 4] and [R], else the run fails naming the layer (Y empty). */
static void roi_align_run_shape(const pz_layer *l)
{
    const pz_roi_align_params *p = l->params;
    const pz_tensor *x = l->in[0], *r = l->in[1], *b = l->in[2];
    pz_tensor *y = l->out[0];
    y->dims[0] = 0;
    y->dims[1] = x->dims[1];
    y->dims[2] = p->output_height;
    y->dims[3] = p->output_width;
    if (x->rank != 4 || r->rank != 2 || r->dims[1] != 4 || b->rank != 1 ||
        b->dims[0] != r->dims[0]) {
        char sr[96], sb[96];
        pz_layer_run_fail(l, "rois %s and batch_indices %s are not [R, 4] and [R]",
                          pz_shape_str(r, sr, sizeof sr), pz_shape_str(b, sb, sizeof sb));
        return;
    }
    y->dims[0] = r->dims[0];
}

static const pz_param_field roi_align_fields[] = {
    PZ_FIELD(pz_roi_align_params, mode_max, PZ_F_INT),
    PZ_FIELD(pz_roi_align_params, half_pixel, PZ_F_INT),
    PZ_FIELD(pz_roi_align_params, output_height, PZ_F_I64),
    PZ_FIELD(pz_roi_align_params, output_width, PZ_F_I64),
    PZ_FIELD(pz_roi_align_params, sampling_ratio, PZ_F_I64),
    PZ_FIELD(pz_roi_align_params, spatial_scale, PZ_F_F32),
};

const pz_rt_op pz_rt_op_roi_align = {
    .name = "ROI_ALIGN", PZ_OP_PARAMS(pz_roi_align_params, roi_align_fields),
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = roi_align_prepare, .run = roi_align_run,
    .run_shape = roi_align_run_shape,
};
