/* reduce_log_sum.c - ReduceLogSum: the log of the sum over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_LOG_SUM (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_log_sum, "ReduceLogSum", PZ_RED_LOG_SUM, 18)
