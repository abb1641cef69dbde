/* norm.h - what RMSNormalization, InstanceNormalization and
 * GroupNormalization share: their params are a pz_norm_params, they run as
 * the NORM layer (rt/ops/norm.c), and they refuse non-float inputs. */
#ifndef PZ_OPS_NORM_H
#define PZ_OPS_NORM_H

#include "elementwise.h"

/* PZ_ERR_UNSUPPORTED naming node, op and input `what` unless t is float. */
pz_status op_want_float(const ir_node *n, const ir_tensor *t, const char *what, pz_err *err);
/* stash_type: 1 (float32; we sum in double) only, else PZ_ERR_UNSUPPORTED. */
pz_status op_norm_stash(const ir_node *n, pz_err *err);
/* The NORM layer with the node's params. */
pz_status op_norm_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

#endif
