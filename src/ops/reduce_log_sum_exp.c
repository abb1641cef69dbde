/* reduce_log_sum_exp.c - ReduceLogSumExp: log(sum(exp(x))) over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_LOG_SUM_EXP (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_log_sum_exp, "ReduceLogSumExp", PZ_RED_LOG_SUM_EXP, 18)
