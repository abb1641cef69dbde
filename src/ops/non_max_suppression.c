/* non_max_suppression.c - NonMaxSuppression (opsets 10, 11):
 *   boxes float32 [N, B, 4], scores float32 [N, C, B],
 *   max_output_boxes_per_class? (int64, a constant: it sizes the bound;
 *   absent or 0: nothing selected), iou_threshold? and score_threshold?
 *   (float32 scalars, read at run time)
 *   -> selected_indices int64 [count, 3] (batch, class, box).
 * count depends on the values: a run-time shape planned at the bound
 * N * C * min(max_output_boxes_per_class, B). center_point_box 1: boxes are
 * [xc, yc, w, h]. Runs as NMS (rt/ops/nms.c). */
#include "op.h"

typedef struct {
    int64_t center_point_box;
} nms_params;

static pz_status nms_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    nms_params *p = params;
    if (op_attr_int(n, "center_point_box", 0, &p->center_point_box, err)) return err->code;
    if (p->center_point_box != 0 && p->center_point_box != 1)
        return op_err_attr(err, n, "center_point_box", "is %lld, must be 0 or 1",
                           (long long)p->center_point_box);
    return PZ_OK;
}

static pz_status nms_max_out(const ir_graph *g, const ir_node *n, int64_t *max_out, pz_err *err)
{
    int cnt = 0;
    *max_out = 0;
    if (!op_in(g, n, 2)) return PZ_OK;
    if (op_const_ints(g, n, 2, "max_output_boxes_per_class", max_out, 1, &cnt, err)) return err->code;
    if (cnt != 1)
        return op_err(err, n, "input max_output_boxes_per_class must hold one value, has %d", cnt);
    if (*max_out < 0) *max_out = 0;
    return PZ_OK;
}

static pz_status nms_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *b = op_in(g, n, 0), *s = op_in(g, n, 1);
    if (b->dtype != IR_F32 || s->dtype != IR_F32)
        return op_err(err, n, "boxes and scores must be float32, got %s and %s",
                      ir_dtype_name(b->dtype), ir_dtype_name(s->dtype));
    if (b->rank != 3 || b->dims[2] != 4 || s->rank != 3 || s->dims[0] != b->dims[0] ||
        s->dims[2] != b->dims[1]) {
        char bb[160], bs[160];
        return op_err(err, n, "boxes %s and scores %s must be [N, B, 4] and [N, C, B]",
                      ir_shape_str(b, bb, sizeof bb), ir_shape_str(s, bs, sizeof bs));
    }
    for (int k = 3; k < 5; k++) {
        const ir_tensor *t = op_in(g, n, k);
        if (t && (t->dtype != IR_F32 || ir_tensor_numel(t) != 1))
            return op_err(err, n, "input %s must be one float32, got %s of %lld elements",
                          k == 3 ? "iou_threshold" : "score_threshold", ir_dtype_name(t->dtype),
                          (long long)ir_tensor_numel(t));
    }
    int64_t max_out;
    if (nms_max_out(g, n, &max_out, err)) return err->code;
    int64_t per = max_out < b->dims[1] ? max_out : b->dims[1];
    int64_t dims[2] = {s->dims[0] * s->dims[1] * per, 3};
    op_set_out(g, n, 0, IR_I64, 2, dims);
    op_set_dyn(g, n, 0);
    return PZ_OK;
}

static pz_status nms_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const nms_params *p = n->params;
    pz_nms_params np = {.center_point_box = (int)p->center_point_box};
    if (nms_max_out(g, n, &np.max_out, err)) return err->code;
    op_lowered_init(out, n, PZ_OP_NMS, &np, sizeof np);
    /* boxes, scores, iou_threshold?, score_threshold?: the bound is in the params */
    out->in[2] = n->n_in > 3 ? n->in[3] : -1;
    out->in[3] = n->n_in > 4 ? n->in[4] : -1;
    out->n_in = out->in[3] >= 0 ? 4 : out->in[2] >= 0 ? 3 : 2;
    return PZ_OK;
}

const op_def op_non_max_suppression = {
    .name = "NonMaxSuppression",
    .min_in = 2, .max_in = 5, .min_out = 1, .max_out = 1,
    .params_size = sizeof(nms_params),
    .parse = nms_parse,
    .infer = nms_infer,
    .lower = nms_lower,
};
