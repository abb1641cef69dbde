/* shrink.c - Shrink: Y = X < -lambd ? X + bias : X > lambd ? X - bias : 0,
 *   element-wise; lambd defaults to 0.5, bias to 0. Any numeric type; on
 *   integers the compares are exact and a whole bias is added with
 *   wrap-around (a fractional one is refused: ONNX Runtime would truncate
 *   X + bias computed in float).
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

static pz_status shrink_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    float lambd, bias;
    if (op_attr_finite(n, "lambd", 0.5f, &lambd, err)) return err->code;
    if (op_attr_finite(n, "bias", 0.0f, &bias, err)) return err->code;
    return op_unary_math_set(params, PZ_UN_SHRINK, OP_TYPES_NUMERIC, lambd, bias);
}

const op_def op_shrink = {
    .name = "Shrink",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = shrink_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
