/* reduce_sum.c - ReduceSum: the sum over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_SUM (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_sum, "ReduceSum", PZ_RED_SUM, 13)
