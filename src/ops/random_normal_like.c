/* random_normal_like.c - RandomNormalLike: X -> Y of X's shape and of
 * dtype (default X's type, which must then be a float type), normal of
 * mean and scale; X's values are not read. The RANDOM layer (random.h). */
#include "random.h"

const op_def op_random_normal_like = {
    .name = "RandomNormalLike",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(random_op_params),
    .parse = random_parse_normal,
    .infer = random_infer_like,
    .lower = random_lower_fill,
    .random = 1,
};
