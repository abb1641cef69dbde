/* reduce_sum_square.c - ReduceSumSquare: the sum of squares over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_SUM_SQUARE (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_sum_square, "ReduceSumSquare", PZ_RED_SUM_SQUARE, 18)
