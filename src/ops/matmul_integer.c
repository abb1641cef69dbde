/* matmul_integer.c - MatMulInteger (opset 10):
 *   Y = (A - a_zero_point) x (B - b_zero_point), exact, int32,
 *   A, B int8/uint8 (numpy matmul shapes), a_zero_point one element or per
 *   row of A, b_zero_point one or per column of B. MACs: batch * M * K * N.
 * Runs as the QMATMUL layer (rt/ops/qmatmul.c); the qdyn pass may give it
 * a float32 output stage (inputs 4-6, act Relu: passes/qdyn.c). */
#include "matmul.h"
#include "qconv.h"   /* op_qdyn_out_check */

static pz_status mmi_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    const ir_tensor *az = op_in(g, n, 2), *bz = op_in(g, n, 3);
    if (!a || !b) return op_err(err, n, "needs the inputs A and B");
    if (!op_qint_type(a->dtype) || !op_qint_type(b->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): A (%s) and B (%s): only 8- "
                       "and 16-bit integers are supported", n->name, n->op_type,
                       ir_dtype_name(a->dtype), ir_dtype_name(b->dtype));
    if ((az && az->dtype != a->dtype) || (bz && bz->dtype != b->dtype))
        return op_err(err, n, "the zero points must have A's and B's types");
    if (a->rank < 1 || b->rank < 1) return op_err(err, n, "A and B must have rank >= 1");
    op_matmul_dims md;
    if (op_matmul_shape(n, a, b, &md, err)) return err->code;
    if ((az && ir_tensor_numel(az) != 1 && ir_tensor_numel(az) != md.m) ||
        (bz && ir_tensor_numel(bz) != 1 && ir_tensor_numel(bz) != md.n))
        return op_err(err, n, "a zero point must have one element, or M (A) or N (B)");
    /* the qdyn pass's float32 output stage (passes/qdyn.c) */
    if (n->n_in > 4 && op_qdyn_out_check(g, n, 4, md.n, err)) return err->code;
    op_set_out(g, n, 0, n->n_in > 4 ? IR_F32 : IR_I32, md.rank, md.dims);
    return PZ_OK;
}

static pz_status mmi_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    pz_qmatmul_params qp = {.func = PZ_QMM_INTEGER, .act = op_act(n)};
    op_lowered_init(out, n, PZ_OP_QMATMUL, &qp, sizeof qp);
    return PZ_OK;
}

const op_def op_matmul_integer = {
    .name = "MatMulInteger",
    .min_in = 2, .max_in = 4, .min_out = 1, .max_out = 1,
    .infer = mmi_infer,
    .lower = mmi_lower,
    .takes_act = 1,   /* Relu, with the qdyn pass's float32 output */
};
