/* reduce_mean.c - ReduceMean: the mean over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_MEAN (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_mean, "ReduceMean", PZ_RED_MEAN, 18)
