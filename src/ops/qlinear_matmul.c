/* qlinear_matmul.c - QLinearMatMul (opset 10, 21):
 *   y = saturate(round((a - a_zp) x (b - b_zp) * (a_scale * b_scale /
 *   y_scale)) + y_zp), the factor in the scales' type, the sum exact.
 *   a, b int8/uint8 (numpy matmul shapes), a_scale, y_scale per tensor,
 *   b_scale and b_zp per tensor or per column -> y of y_zp's type.
 * Runs as the QMATMUL layer (rt/ops/qmatmul.c). */
#include "matmul.h"

static pz_status qlmm_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *in[8];
    for (int i = 0; i < 8; i++) {
        in[i] = op_in(g, n, i);
        if (!in[i]) return op_err(err, n, "input %d is missing", i);
    }
    const ir_tensor *a = in[0], *b = in[3], *yz = in[7];
    if (!op_qint_type(a->dtype) || !op_qint_type(b->dtype) || !op_qint_type(yz->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): a (%s), b (%s), y (%s): only "
                       "8- and 16-bit integers are supported", n->name, n->op_type,
                       ir_dtype_name(a->dtype), ir_dtype_name(b->dtype),
                       ir_dtype_name(yz->dtype));
    if (in[2]->dtype != a->dtype || in[5]->dtype != b->dtype)
        return op_err(err, n, "the zero points must have a's and b's types");
    if (!ir_dtype_is_float(in[1]->dtype) || in[4]->dtype != in[1]->dtype ||
        in[6]->dtype != in[1]->dtype)
        return op_err(err, n, "the scales must have one float type");
    if (a->rank < 1 || b->rank < 1) return op_err(err, n, "a and b must have rank >= 1");
    op_matmul_dims md;
    if (op_matmul_shape(n, a, b, &md, err)) return err->code;
    if (ir_tensor_numel(in[1]) != 1 || ir_tensor_numel(in[2]) != 1 ||
        ir_tensor_numel(in[6]) != 1 || ir_tensor_numel(in[7]) != 1)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): a and y quantised per "
                       "tensor only", n->name, n->op_type);
    for (int i = 4; i < 6; i++)
        if (ir_tensor_numel(in[i]) != 1 && ir_tensor_numel(in[i]) != md.n)
            return op_err(err, n, "input %d must have one element or N = %lld", i,
                          (long long)md.n);
    op_set_out(g, n, 0, yz->dtype, md.rank, md.dims);
    return PZ_OK;
}

static pz_status qlmm_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    pz_qmatmul_params qp = {.func = PZ_QMM_QLINEAR};
    op_lowered_init(out, n, PZ_OP_QMATMUL, &qp, sizeof qp);
    return PZ_OK;
}

const op_def op_qlinear_matmul = {
    .name = "QLinearMatMul",
    .min_in = 8, .max_in = 8, .min_out = 1, .max_out = 1,
    .infer = qlmm_infer,
    .lower = qlmm_lower,
};
