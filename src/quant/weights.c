/* weights.c - the int8 weight rule (per-channel symmetric, see
 * quant_internal.h), shared by the QDQ rewrite and by the accuracy
 * budget's estimate of what quantizing a node's weights costs. */
#include <math.h>

#include "quant_internal.h"

int qp_weight_axis(const Onnx__NodeProto *n, int *axis, int *rank_want)
{
    if (n->n_input < 2) return 0;
    if (qp_is_op(n, "Conv")) *axis = 0, *rank_want = 0;
    else if (qp_is_op(n, "Gemm")) *axis = qp_attr_i(n, "transB", 0) ? 0 : 1, *rank_want = 2;
    else if (qp_is_op(n, "MatMul")) *axis = 1, *rank_want = 2;
    else return 0;
    return 1;
}

void qp_weight_i8(const ir_tensor *w, int axis, float *scale, int8_t *q)
{
    /* element (outer, c, inner) with c along axis */
    int64_t nc = w->dims[axis], inner = 1, outer = 1;
    for (int d = axis + 1; d < w->rank; d++) inner *= w->dims[d];
    for (int d = 0; d < axis; d++) outer *= w->dims[d];
    const float *x = w->data;
    for (int64_t c = 0; c < nc; c++) scale[c] = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < nc; c++)
            for (int64_t j = 0; j < inner; j++) {
                float a = fabsf(x[(o * nc + c) * inner + j]);
                if (a > scale[c]) scale[c] = a;
            }
    for (int64_t c = 0; c < nc; c++) scale[c] = scale[c] > 0 ? scale[c] / 127.0f : 1.0f;
    if (!q) return;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < nc; c++)
            for (int64_t j = 0; j < inner; j++) {
                int64_t e = (o * nc + c) * inner + j;
                double v = nearbyint((double)x[e] / scale[c]);
                q[e] = (int8_t)(v < -127 ? -127 : v > 127 ? 127 : v);
            }
}

int quant_weight_noise(Onnx__ModelProto *m, const char *dir, int node, double *noise,
                       pz_err *err)
{
    Onnx__GraphProto *gp = m->graph;
    const Onnx__NodeProto *n = gp->node[node];
    int axis, rank_want;
    if (!qp_weight_axis(n, &axis, &rank_want)) return 0;
    int idx = qp_find_init(gp, n->input[1]);
    if (idx < 0) return 0;
    ir_tensor w;
    pz_status s = qp_init_f32(gp, idx, dir, &w, err);
    if (s) return s == PZ_ERR_UNSUPPORTED && !err->code ? 0 : -1;
    int ok = !(rank_want && w.rank != rank_want) && w.rank >= 2 && axis < w.rank;
    if (ok) {
        int64_t nc = w.dims[axis], inner = 1, outer = 1, n_el = ir_tensor_numel(&w);
        for (int d = axis + 1; d < w.rank; d++) inner *= w.dims[d];
        for (int d = 0; d < axis; d++) outer *= w.dims[d];
        float *scale = pz_xmalloc((size_t)(nc ? nc : 1) * sizeof *scale);
        int8_t *q = pz_xmalloc((size_t)(n_el ? n_el : 1));
        qp_weight_i8(&w, axis, scale, q);
        const float *x = w.data;
        double num = 0, den = 0;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t c = 0; c < nc; c++)
                for (int64_t j = 0; j < inner; j++) {
                    int64_t e = (o * nc + c) * inner + j;
                    double d = (double)x[e] - (double)q[e] * scale[c];
                    num += d * d;
                    den += (double)x[e] * x[e];
                }
        *noise = den > 0 ? num / den : 0;
        free(scale);
        free(q);
    }
    ir_tensor_free_data(&w);
    return ok;
}

double quant_act_noise(const float *x, size_t n, float lo, float hi, double *sum_x2)
{
    float s;
    uint8_t zp;
    quant_u8_params(lo, hi, &s, &zp);
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double v = nearbyint((double)x[i] / s) + zp;
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        double d = (double)x[i] - (v - zp) * s;
        num += d * d;
        den += (double)x[i] * x[i];
    }
    if (sum_x2) *sum_x2 = den;
    return num;
}
