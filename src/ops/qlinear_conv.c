/* qlinear_conv.c - QLinearConv (opset 10):
 *   y = saturate(round_half_even((conv(x - x_zp, w - w_zp) + B) * (x_scale *
 *   w_scale / y_scale)) + y_zp), the factor in the scales' type, the sum
 *   exact. x, w int8/uint8; x_scale, x_zp, y_scale, y_zp one element each;
 *   w_scale, w_zp one or per output channel; B? int32 [M] -> y of y_zp's
 *   type [N, M, O1..Ok]; Conv's attributes. MACs as Conv's.
 * Runs as the QCONV layer (rt/ops/qconv.c). The qdq pass makes it of a
 * quantized model's DequantizeLinear -> Conv -> QuantizeLinear, with the
 * Relu/Clip between them as its act (a clamp of y); and fuses a QLinearAdd
 * reading y alone into it: inputs 9-13 (Z, z_scale, z_zero_point, s_scale,
 * s_zero_point?) make the output QLinearAdd(y, Z) (y its B when the
 * attribute z_b is 1) with act its Relu. */
#include "qconv.h"

const op_def op_qlinear_conv = {
    .name = "QLinearConv",
    .min_in = 8, .max_in = 14, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_qconv_params),
    .parse = op_qconv_parse,
    .infer = op_qconv_infer,
    .cost = op_qconv_cost,
    .lower = op_qconv_lower,
    .takes_act = 1,   /* a Relu/Clip the qdq pass folded (passes/qdq.c) */
};
