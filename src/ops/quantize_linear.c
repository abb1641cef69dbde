/* quantize_linear.c - QuantizeLinear (opset 10-25):
 *   y = saturate(round_half_even(x / y_scale) + y_zero_point),
 *   x float, y_scale float (per tensor, per axis, or blocked by
 *   block_size), y_zero_point? -> y [x's shape] of the zero point's type,
 *   else output_dtype, else uint8 (8-, 16-, 4- and 2-bit integers; the
 *   float8 types and float4e2m1: x / y_scale rounded to nearest even,
 *   saturate (default 1) clamping float8 to its largest value, a float8
 *   zero point added only when non-zero so that -0 stays). No MACs.
 * Runs as the QUANT layer (rt/ops/quant.c). */
#include "quant.h"

static pz_status q_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_quant_params *p = params;
    p->q.func = PZ_QUANT_Q;
    return op_quant_parse(g, n, params, err);
}

static pz_status q_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const op_quant_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *z = op_in(g, n, 2);
    if (!ir_dtype_is_float(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input x has type %s, not "
                       "supported (float types only)", n->name, n->op_type,
                       ir_dtype_name(x->dtype));
    int ty = z ? (int)z->dtype : p->output_dtype ? (int)p->output_dtype : IR_U8;
    if (z && p->output_dtype && p->output_dtype != (int64_t)z->dtype)
        return op_err_attr(err, n, "output_dtype", "is %lld, the zero point is %s",
                           (long long)p->output_dtype, ir_dtype_name(z->dtype));
    if (!op_quant_type_ok(ty))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): output type %s is not "
                       "supported", n->name, n->op_type, ir_dtype_name(ty));
    if (op_quant_check(g, n, ty, err)) return err->code;
    op_set_out(g, n, 0, ty, x->rank, x->dims);
    return PZ_OK;
}

const op_def op_quantize_linear = {
    .name = "QuantizeLinear",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_quant_params),
    .parse = q_parse,
    .infer = q_infer,
    .lower = op_quant_lower,
};
