/* random_normal.c - RandomNormal: no inputs -> Y [shape] of dtype (default
 * float32), normal of mean and scale (defaults 0, 1); seed optional.
 * The RANDOM layer (random.h). */
#include "random.h"

const op_def op_random_normal = {
    .name = "RandomNormal",
    .min_in = 0, .max_in = 0, .min_out = 1, .max_out = 1,
    .params_size = sizeof(random_op_params),
    .parse = random_parse_normal,
    .infer = random_infer_shape,
    .lower = random_lower_fill,
    .random = 1,
};
