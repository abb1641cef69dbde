/* sdpa.h - the one rule of ScaledDotProductAttention's mask (sdpa.c), which
 * its shape inference and the attention pass (passes/attention.c) share. */
#ifndef PZ_OPS_SDPA_H
#define PZ_OPS_SDPA_H

#include <stddef.h>

#include "../ir/graph.h"

/* Whether mask m fits Q q with T keys: float32, its rank 1 to Q's, its
 * dims broadcasting to [.., H, S, T] with those before H all Q's or all 1
 * (what the ATTENTION layer takes). 0 if it fits, else -1 and why. */
int op_sdpa_mask_check(const ir_tensor *m, const ir_tensor *q, int64_t T, char *why,
                       size_t size);

#endif
