/* softplus.c - Softplus: Y = ln(exp(X) + 1), element-wise; floating-point only.
 *   X [any shape] -> Y [same shape, same type] */
#include "elementwise.h"

const op_def op_softplus = {
    .name = "Softplus",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unary_float_infer,
};
