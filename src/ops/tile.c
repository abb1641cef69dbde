/* tile.c - Tile: X repeated along each axis.
 *   input [d0..d(r-1)], repeats int64 [r] (constant) -> [d0*rep0, ...]
 * The repeats decide the output's shape, so they must be constant (refused
 * naming the input otherwise). Runs as a VIEW: each axis seen as (repeat,
 * index), the repeat with stride 0. */
#include "view.h"

static pz_status tile_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    pz_view_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t rep[IR_MAX_RANK], dims[IR_MAX_RANK];
    int k;
    if (op_const_ints(g, n, 1, "repeats", rep, IR_MAX_RANK, &k, err)) return err->code;
    if (k != x->rank)
        return op_err(err, n, "input repeats has %d entries, the input has rank %d", k, x->rank);
    for (int i = 0; i < k; i++) {
        if (rep[i] < 0) return op_err(err, n, "repeats[%d] is %lld, negative", i, (long long)rep[i]);
        if (rep[i] && x->dims[i] > INT64_MAX / rep[i])
            return op_err(err, n, "repeats[%d] makes axis %d too large", i, i);
        dims[i] = x->dims[i] * rep[i];
    }
    p->func = PZ_VIEW_TILE;
    return op_view_finish(g, n, k, dims, err);
}

const op_def op_tile = {
    .name = "Tile",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_view_params),
    .infer = tile_infer,
    .lower = op_view_lower,
};
