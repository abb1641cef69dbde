/* reduce_l2.c - ReduceL2: the square root of the sum of squares over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_L2 (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_l2, "ReduceL2", PZ_RED_L2, 18)
