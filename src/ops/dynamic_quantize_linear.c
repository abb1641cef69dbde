/* dynamic_quantize_linear.c - DynamicQuantizeLinear (opset 11): uint8
 * quantisation of x by its own range,
 *   y_scale = (max(x, 0) - min(x, 0)) / 255,
 *   y_zero_point = saturate(round(-min(x, 0) / y_scale)),
 *   y = saturate(round(x / y_scale) + y_zero_point),
 *   x float32 -> y uint8 [x's shape], y_scale float32 [], y_zero_point
 *   uint8 []. No MACs.
 * Runs as the QUANT layer (rt/ops/quant.c). */
#include "quant.h"

static pz_status dql_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input x is missing");
    if (x->dtype != IR_F32)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input x has type %s, not "
                       "supported (float32 only)", n->name, n->op_type, ir_dtype_name(x->dtype));
    op_set_out(g, n, 0, IR_U8, x->rank, x->dims);
    if (n->n_out > 1 && n->out[1] >= 0) op_set_out(g, n, 1, IR_F32, 0, NULL);
    if (n->n_out > 2 && n->out[2] >= 0) op_set_out(g, n, 2, IR_U8, 0, NULL);
    return PZ_OK;
}

static pz_status dql_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    if (n->n_out < 3 || n->out[1] < 0 || n->out[2] < 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): outputs y_scale and "
                       "y_zero_point must be kept", n->name, n->op_type);
    pz_quant_params qp = {.func = PZ_QUANT_DYNAMIC};
    op_lowered_init(out, n, PZ_OP_QUANT, &qp, sizeof qp);
    return PZ_OK;
}

const op_def op_dynamic_quantize_linear = {
    .name = "DynamicQuantizeLinear",
    .min_in = 1, .max_in = 1, .min_out = 3, .max_out = 3,
    .infer = dql_infer,
    .lower = dql_lower,
};
