/* scatter.h - ScatterElements (scatter_elements.c), its old name Scatter
 * (scatter.c) and ScatterND (scatter_nd.c): all run as the runtime's
 * SCATTER layer, their params a pz_scatter_params. */
#ifndef PZ_OPS_SCATTER_H
#define PZ_OPS_SCATTER_H

#include "op.h"

/* ScatterElements' attributes (axis, reduction) and shapes. */
pz_status op_scatter_elements_parse(const ir_graph *g, const ir_node *n, void *params,
                                    pz_err *err);
pz_status op_scatter_elements_infer(ir_graph *g, ir_node *n, pz_err *err);
/* reduction: none, add, mul (opset 16), max, min (opset 18). */
pz_status op_scatter_reduction(const ir_node *n, pz_scatter_reduction *out, pz_err *err);
pz_status op_scatter_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

#endif
