/* dequantize_linear.c - DequantizeLinear (opset 10-25):
 *   y = (x - x_zero_point) * x_scale, computed in the scale's type.
 *   x int8/uint8/int16/uint16/int32/int4/uint4/int2/uint2/float8/float4,
 *   x_scale float (per tensor, per axis, or blocked by block_size),
 *   x_zero_point? of x's type -> y [x's shape] of the scale's type (or
 *   output_dtype). No MACs.
 * Runs as the QUANT layer (rt/ops/quant.c). */
#include "quant.h"

static pz_status dq_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_quant_params *p = params;
    p->q.func = PZ_QUANT_DQ;
    return op_quant_parse(g, n, params, err);
}

static pz_status dq_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const op_quant_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *s = op_in(g, n, 1);
    if (!op_quant_type_ok(x->dtype) && x->dtype != IR_I32)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input x has type %s, not "
                       "supported", n->name, n->op_type, ir_dtype_name(x->dtype));
    if (op_quant_check(g, n, x->dtype, err)) return err->code;
    int ty = p->output_dtype ? (int)p->output_dtype : (int)s->dtype;
    if (!ir_dtype_is_float(ty))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): output_dtype %s is not "
                       "supported (float types only)", n->name, n->op_type, ir_dtype_name(ty));
    op_set_out(g, n, 0, ty, x->rank, x->dims);
    return PZ_OK;
}

const op_def op_dequantize_linear = {
    .name = "DequantizeLinear",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_quant_params),
    .parse = dq_parse,
    .infer = dq_infer,
    .lower = op_quant_lower,
};
