/* tile.c - Tile: X repeated along each axis.
 *   input [d0..d(r-1)], repeats int64 [r] (constant) -> [d0*rep0, ...]
 * Runs as a VIEW: each axis seen as (repeat, index), the repeat with stride
 * 0. Repeats read at run time (a graph input nothing binds) leave Y without
 * a compile-time bound: the VIEW reads them (input 1), the net allocates Y. */
#include "view.h"

static pz_status tile_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    pz_view_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t rep[IR_MAX_RANK], dims[IR_MAX_RANK];
    int k;
    p->func = PZ_VIEW_TILE;
    if (op_rt_ints_dyn(g, n, 1, IR_MAX_RANK, &k)) {
        /* read at run time: no bound (the net allocates Y); X's dims stand in */
        if (k != x->rank)
            return op_err(err, n, "input repeats has %d entries, the input has rank %d", k, x->rank);
        op_set_out(g, n, 0, x->dtype, x->rank, x->dims);
        op_set_rt_alloc(g, n, 0);
        return PZ_OK;
    }
    if (op_const_ints(g, n, 1, "repeats", rep, IR_MAX_RANK, &k, err)) return err->code;
    if (k != x->rank)
        return op_err(err, n, "input repeats has %d entries, the input has rank %d", k, x->rank);
    for (int i = 0; i < k; i++) {
        if (rep[i] < 0) return op_err(err, n, "repeats[%d] is %lld, negative", i, (long long)rep[i]);
        if (rep[i] && x->dims[i] > INT64_MAX / rep[i])
            return op_err(err, n, "repeats[%d] makes axis %d too large", i, i);
        dims[i] = x->dims[i] * rep[i];
    }
    return op_view_finish(g, n, k, dims, err);
}

const op_def op_tile = {
    .name = "Tile",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_view_params),
    .infer = tile_infer,
    .lower = op_view_lower,
};
