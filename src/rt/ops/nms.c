/* nms.c - the NMS layer (ONNX NonMaxSuppression): boxes float32 [nb, nbox,
 * 4], scores float32 [nb, nc, nbox], iou_threshold? and score_threshold?
 * (float32 scalars, read at run time) -> selected int64 [count, 3].
 * max_output_boxes_per_class is the compiler's constant (params): selected
 * is planned at its bound min(nb * nc * max_out, nb * nc * nbox) and run sets
 * dims[0] to count (a run-time shape). One worker; scratch 3 * nbox int64. */
#include "rt/ops/ops.h"

static int nms_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_nms_params *p = l->params;
    const pz_tensor *b = pz_in(l, 0), *s = pz_in(l, 1), *y = pz_out(l, 0);
    if (!b || !s || !y) return pz_layer_fail(l, err, n, "needs boxes, scores and selected");
    if (pz_layer_want_dtype(l, err, n, "boxes", b, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "scores", s, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "selected_indices", y, PZ_I64))
        return 1;
    for (int k = 2; k < 4; k++) {
        const pz_tensor *t = pz_in(l, k);
        if (t && (pz_layer_want_dtype(l, err, n, k == 2 ? "iou_threshold" : "score_threshold", t,
                                      PZ_F32)))
            return 1;
        if (t && pz_numel(t) != 1)
            return pz_layer_fail(l, err, n, "%s must hold one value",
                                 k == 2 ? "iou_threshold" : "score_threshold");
    }
    if (b->rank != 3 || b->dims[2] != 4 || s->rank != 3 || s->dims[0] != b->dims[0] ||
        s->dims[2] != b->dims[1]) {
        char bb[96], bs[96];
        return pz_layer_fail(l, err, n, "boxes %s and scores %s are not [N, B, 4] and [N, C, B]",
                             pz_shape_str(b, bb, sizeof bb), pz_shape_str(s, bs, sizeof bs));
    }
    int64_t per = p->max_out < b->dims[1] ? p->max_out : b->dims[1];
    if (per < 0) per = 0;
    if (y->rank != 2 || y->dims[1] != 3 || y->dims[0] != s->dims[0] * s->dims[1] * per)
        return pz_layer_fail(l, err, n, "selected_indices is not [%lld, 3]",
                             (long long)(s->dims[0] * s->dims[1] * per));
    l->nth = 1;
    l->scratch_bytes = 3 * (size_t)(b->dims[1] ? b->dims[1] : 1) * sizeof(int64_t);
    l->scratch_run_only = 1;
    return 0;
}

static void nms_run(const pz_layer *l, int ith, int nth)
{
    const pz_nms_params *p = l->params;
    const pz_tensor *b = l->in[0], *s = l->in[1], *iou = pz_in(l, 2), *sth = pz_in(l, 3);
    float iou_th = iou ? *(const float *)iou->data : 0.0f;
    float score_th = sth ? *(const float *)sth->data : 0.0f;
    if (l->run_err && l->run_err[0]) return;   /* run_shape's: selected stays empty */
    l->out[0]->dims[0] = pz_f32_nms__ref(p, b->dims[0], s->dims[1], b->dims[1], b->data, s->data,
                                         iou_th, score_th, sth != NULL, l->out[0]->data,
                                         l->scratch);
}

/* A dynamic region (boxes and scores of the run's shapes, at most the
 * planned ones: torchvision's detectors keep the boxes a score threshold
 * passed): run counts at those dims; they must still be [N, B, 4] and
 * [N, C, B], else the run fails naming the layer (selected empty). */
static void nms_run_shape(const pz_layer *l)
{
    const pz_tensor *b = l->in[0], *s = l->in[1];
    l->out[0]->dims[0] = 0;
    if (b->dims[2] != 4 || s->dims[0] != b->dims[0] || s->dims[2] != b->dims[1]) {
        char bb[96], bs[96];
        pz_layer_run_fail(l, "boxes %s and scores %s are not [N, B, 4] and [N, C, B]",
                          pz_shape_str(b, bb, sizeof bb), pz_shape_str(s, bs, sizeof bs));
    }
}

static const pz_param_field nms_fields[] = {
    PZ_FIELD(pz_nms_params, center_point_box, PZ_F_INT),
    PZ_FIELD(pz_nms_params, max_out, PZ_F_I64),
};

const pz_rt_op pz_rt_op_nms = {
    .name = "NMS", PZ_OP_PARAMS(pz_nms_params, nms_fields),
    .min_in = 2, .max_in = 4, .min_out = 1, .max_out = 1,
    .prepare = nms_prepare, .run = nms_run,
    .dyn_out = 1, .run_shape = nms_run_shape,
};
