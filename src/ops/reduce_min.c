/* reduce_min.c - ReduceMin: the smallest element over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_MIN (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_min, "ReduceMin", PZ_RED_MIN, 18)
