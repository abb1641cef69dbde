/* reduce_prod.c - ReduceProd: the product over some axes
 * (reduce.h: axes, keepdims, noop_with_empty_axes, types, empty sets).
 * Runs as the runtime's reduction, func PZ_RED_PROD (rt/ops/reduce_mean.c). */
#include "reduce.h"

OP_REDUCE_DEF(reduce_prod, "ReduceProd", PZ_RED_PROD, 18)
