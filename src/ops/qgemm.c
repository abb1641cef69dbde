/* qgemm.c - QGemm (domain com.microsoft, as ONNX Runtime's quantizer writes
 * it; the qdq pass also makes it of a quantized model's DequantizeLinear ->
 * Gemm [-> Relu | Clip] [-> QuantizeLinear], passes/qdq.c):
 *   A, a_scale, a_zero_point, B, b_scale, b_zero_point, C?, y_scale?,
 *   y_zero_point? -> Y [M, N] = requant((A - za) (B' - zb) + C), B' = transB ?
 *   B^T : B, the sum exact in int32; with y_scale, Y of y_zero_point's type
 *   (uint8 when absent) requantized; without, float32 (a logits layer: the
 *   product dequantized, no requantization).
 * A uint8/int8 [M, K]; B a constant int8 [K, N] ([N, K] if transB) with
 * zero points 0; the scales float32 (b's one or one per column N); C int32
 * [N]; transA 0 and alpha 1 (others refused by name). A Relu or Clip the pass
 * folded is the node's act (the clamp of a requantized Y). MACs M * K * N.
 * Runs as the QGEMM layer (rt/ops/qgemm.c). */
#include "op.h"

typedef struct {
    int64_t trans_b;
} qgemm_op_params;

static pz_status qgemm_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    qgemm_op_params *p = params;
    int64_t ta;
    float alpha;
    if (op_attr_int(n, "transA", 0, &ta, err) || op_attr_int(n, "transB", 0, &p->trans_b, err) ||
        op_attr_float(n, "alpha", 1.0f, &alpha, err))
        return err->code;
    if (ta != 0) return op_err_attr(err, n, "transA", "is %lld: only 0 is supported", (long long)ta);
    if (p->trans_b != 0 && p->trans_b != 1)
        return op_err_attr(err, n, "transB", "is %lld, must be 0 or 1", (long long)p->trans_b);
    if (alpha != 1.0f) return op_err_attr(err, n, "alpha", "is %g: only 1 is supported", alpha);
    return PZ_OK;
}

static pz_status qgemm_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const qgemm_op_params *p = n->params;
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 3), *c = op_in(g, n, 6);
    const ir_tensor *ys = op_in(g, n, 7), *yz = op_in(g, n, 8);
    if (!a || !b || !op_in(g, n, 1) || !op_in(g, n, 4))
        return op_err(err, n, "inputs A, a_scale, B and b_scale are required");
    if ((a->dtype != IR_U8 && a->dtype != IR_I8) || b->dtype != IR_I8 || a->rank != 2 ||
        b->rank != 2)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): A uint8/int8 [M, K] and B int8 "
                       "2-D are supported (A %s rank %d, B %s rank %d)", n->name, n->op_type,
                       ir_dtype_name(a->dtype), a->rank, ir_dtype_name(b->dtype), b->rank);
    const int64_t k = b->dims[p->trans_b], nn = b->dims[1 - p->trans_b];
    if (a->dims[1] != k)
        return op_err(err, n, "A [%lld, %lld] and B%s give different K", (long long)a->dims[0],
                      (long long)a->dims[1], p->trans_b ? "^T" : "");
    if (c && (c->dtype != IR_I32 || ir_tensor_numel(c) != nn))
        return op_err(err, n, "C must be int32 of N = %lld elements", (long long)nn);
    int ty = IR_F32;
    if (ys) {
        ty = yz ? (int)yz->dtype : IR_U8;
        if (ty != IR_U8 && ty != IR_I8)
            return op_err(err, n, "y_zero_point has type %s, expected uint8 or int8",
                          ir_dtype_name(yz->dtype));
    }
    int64_t dims[2] = {a->dims[0], nn};
    op_set_out(g, n, 0, ty, 2, dims);
    return PZ_OK;
}

static void qgemm_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 3);
    if (a && b && a->rank == 2 && b->rank == 2) c->macs = a->dims[0] * ir_tensor_numel(b);
}

static pz_status qgemm_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const qgemm_op_params *p = n->params;
    pz_qgemm_params qp = {.trans_b = (int)p->trans_b, .act = op_act(n)};
    op_lowered_init(out, n, PZ_OP_QGEMM, &qp, sizeof qp);
    return PZ_OK;
}

const op_def op_qgemm = {
    .name = "QGemm",
    .domain = "com.microsoft",
    .min_in = 6, .max_in = 9, .min_out = 1, .max_out = 1,
    .params_size = sizeof(qgemm_op_params),
    .parse = qgemm_parse,
    .infer = qgemm_infer,
    .cost = qgemm_cost,
    .lower = qgemm_lower,
    .takes_act = 1,   /* a Relu/Clip the qdq pass folded */
};
