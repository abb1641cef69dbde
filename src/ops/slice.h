/* slice.h - what the passes ask of a Slice (slice.c). */
#ifndef PZ_OPS_SLICE_H
#define PZ_OPS_SLICE_H

#include <stdint.h>

#include "../ir/graph.h"

/* Whether Slice node n, its starts, ends, axes and steps constant, keeps
 * every axis of its input whole but the last, which it cuts to a run of
 * columns with step 1 from *start (then set). */
int op_slice_last_cols(const ir_graph *g, const ir_node *n, int64_t *start);

#endif
