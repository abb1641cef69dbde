/* binarizer.c - Binarizer (ai.onnx.ml, opset 1): Y = X > threshold ? 1 : 0
 * element-wise (threshold default 0; NaN gives 0, as ONNX Runtime).
 *   X [any shape] -> Y [same shape, same type]; float types here (the spec
 *   also lists int32/int64: refused). Runs as UNARY (BINARIZER). */
#include "elementwise.h"

static pz_status binarizer_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    float threshold;
    if (op_attr_finite(n, "threshold", 0.0f, &threshold, err)) return err->code;
    return op_unary_math_set(params, PZ_UN_BINARIZER, OP_TYPES_FLOAT, threshold, 0);
}

const op_def op_binarizer = {
    .name = "Binarizer",
    .domain = "ai.onnx.ml",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_unary_math),
    .parse = binarizer_parse,
    .infer = op_unary_math_infer,
    .lower = op_unary_math_lower,
};
