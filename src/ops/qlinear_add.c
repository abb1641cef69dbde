/* qlinear_add.c - QLinearAdd (domain com.microsoft, as ONNX Runtime's
 * quantizer writes it in the QOperator format; the qdq pass also makes it of
 * a QDQ model's DequantizeLinear, DequantizeLinear -> Add [-> Relu] ->
 * QuantizeLinear, passes/qdq.c):
 *   A, A_scale, A_zero_point?, B, B_scale, B_zero_point?, C_scale,
 *   C_zero_point? -> C = saturate(nearbyint(((A - za) * sa + (B - zb) * sb)
 *   / sc) + zc), computed as ONNX Runtime's x86 kernel does (rt/kernels/
 *   quant/qdq.h: a sum on a rounding tie rounds as there, not always as the
 *   float graph's). A, B and C uint8 or int8 of one type, the same
 *   shape (broadcasting is refused by name); the scales float32 scalars and
 *   the zero points scalars of A's type. A Relu the pass folded is the
 *   node's act. Runs as the QADD layer (rt/ops/qadd.c). */
#include "op.h"

static pz_status qadd_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 3);
    static const char *const what[8] = {"A", "A_scale", "A_zero_point", "B", "B_scale",
                                         "B_zero_point", "C_scale", "C_zero_point"};
    if (!a || !b || !op_in(g, n, 1) || !op_in(g, n, 4) || !op_in(g, n, 6))
        return op_err(err, n, "inputs A, A_scale, B, B_scale and C_scale are required");
    if ((a->dtype != IR_U8 && a->dtype != IR_I8) || b->dtype != a->dtype)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): A (%s) and B (%s): uint8 or "
                       "int8, one type, are supported", n->name, n->op_type,
                       ir_dtype_name(a->dtype), ir_dtype_name(b->dtype));
    if (a->rank != b->rank) goto broadcast;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d]) goto broadcast;
    for (int k = 1; k < 8 && k < n->n_in; k++) {
        if (k == 3) continue;
        const ir_tensor *t = op_in(g, n, k);
        if (!t) continue;
        const int want = k % 3 == 2 || k == 7 ? (int)a->dtype : IR_F32;
        if ((int)t->dtype != want || ir_tensor_numel(t) != 1)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %s: a scalar of "
                           "type %s is supported", n->name, n->op_type, what[k],
                           ir_dtype_name(want));
    }
    op_same_as(g, n, 0, 0);
    return PZ_OK;
broadcast:
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): A and B of different shapes: "
                   "broadcasting is not supported", n->name, n->op_type);
}

static pz_status qadd_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    pz_qadd_params p = {.act = op_act(n)};
    op_lowered_init(out, n, PZ_OP_QADD, &p, sizeof p);
    return PZ_OK;
}

const op_def op_qlinear_add = {
    .name = "QLinearAdd",
    .domain = "com.microsoft",
    .min_in = 7, .max_in = 8, .min_out = 1, .max_out = 1,
    .infer = qadd_infer,
    .lower = qadd_lower,
    .takes_act = 1,   /* a Relu the qdq pass folded */
};
