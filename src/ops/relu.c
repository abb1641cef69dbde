/* relu.c - Relu: Y = max(X, 0), element-wise. */
#include "elementwise.h"

const op_def op_relu = {
    .name = "Relu",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
};
