/* scatter.c - Scatter (deprecated at opset 11): ScatterElements under its
 * old name, without reduction (scatter_elements.c). */
#include "scatter.h"

const op_def op_scatter = {
    .name = "Scatter",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_scatter_params),
    .parse = op_scatter_elements_parse,
    .infer = op_scatter_elements_infer,
    .lower = op_scatter_lower,
};
