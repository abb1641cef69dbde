/* tanh.c - Tanh: Y = tanh(X), element-wise; floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

const op_def op_tanh = {
    .name = "Tanh",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
};
