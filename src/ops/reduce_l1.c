/* reduce_l1.c - ReduceL1: the sum of absolute values over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_L1 (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_l1, "ReduceL1", PZ_RED_L1, 18)
