/* conv_integer.c - ConvInteger (opset 10):
 *   y = conv(x - x_zero_point, w - w_zero_point), exact, int32.
 *   x [N, C, D1..Dk], w [M, C/group, K1..Kk] int8/uint8, x_zero_point? (one
 *   element), w_zero_point? (one, or per output channel) -> y int32 [N, M,
 *   O1..Ok]; Conv's attributes. MACs as Conv's.
 * Runs as the QCONV layer (rt/ops/qconv.c); the qdyn pass may give it a
 * float32 output stage (inputs 4-6, act Relu: passes/qdyn.c). */
#include "qconv.h"

const op_def op_conv_integer = {
    .name = "ConvInteger",
    .min_in = 2, .max_in = 4, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_qconv_params),
    .parse = op_qconv_parse,
    .infer = op_qconv_infer,
    .cost = op_qconv_cost,
    .lower = op_qconv_lower,
    .takes_act = 1,   /* Relu, with the qdyn pass's float32 output */
};
