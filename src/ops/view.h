/* view.h - the ops that run as the runtime's VIEW layer (Expand, Tile,
 * DepthToSpace, SpaceToDepth, CenterCropPad): their params are a
 * pz_view_params, set by parse and infer. */
#ifndef PZ_OPS_VIEW_H
#define PZ_OPS_VIEW_H

#include "fold.h"

/* Sets output 0 to X's type and dims[rank], checks that the view of
 * n->params fits X and Y (an error names the node), and folds it when X is
 * constant and Y small (through the runtime's own view kernel). */
pz_status op_view_finish(ir_graph *g, ir_node *n, int rank, const int64_t *dims, pz_err *err);

/* A VIEW layer of input 0 (the other inputs are constants infer used). */
pz_status op_view_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

#endif
