/* reduce_max.c - ReduceMax: the largest element over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_MAX (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_max, "ReduceMax", PZ_RED_MAX, 18)
