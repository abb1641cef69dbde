/* expand.c - Expand: X broadcast (numpy, multidirectional) with a shape.
 *   input [dims], shape int64 [k] (constant) -> output
 *   broadcast(dims, shape): a dim of 1 on either side takes the other.
 * A constant shape runs as a VIEW (stride 0 on the broadcast dims) and folds
 * when X is constant; a shape read at run time (a graph input nothing
 * binds) leaves Y without a compile-time bound: the VIEW layer reads it
 * (input 1) and the net allocates Y when it runs (ir_value.rt_alloc). */
#include "view.h"

static pz_status expand_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    pz_view_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t shape[IR_MAX_RANK], dims[IR_MAX_RANK];
    int k;
    p->func = PZ_VIEW_EXPAND;
    if (op_rt_ints_dyn(g, n, 1, IR_MAX_RANK, &k)) {
        int rank = k > x->rank ? k : x->rank;
        /* read at run time, every entry bounded (a Shape of a bounded
         * tensor: torch's expand_as): planned at the broadcast bound */
        p->bounded = !g->values[n->in[0]].rt_alloc;
        for (int i = 0; i < rank && p->bounded; i++) {
            int ix = i - (rank - x->rank), is = i - (rank - k);
            int64_t a = ix >= 0 ? x->dims[ix] : 1, b = is >= 0 ? op_rt_int_bound(g, n->in[1], is) : 1;
            p->bounded = b >= 0;
            dims[i] = a > b ? a : b;
        }
        if (p->bounded) {
            op_set_out(g, n, 0, x->dtype, rank, dims);
            op_set_dyn(g, n, 0);
            return PZ_OK;
        }
        /* else no bound (the net allocates Y); X's dims stand in */
        for (int i = 0; i < rank; i++) dims[i] = i >= rank - x->rank ? x->dims[i - (rank - x->rank)] : 1;
        op_set_out(g, n, 0, x->dtype, rank, dims);
        op_set_rt_alloc(g, n, 0);
        return PZ_OK;
    }
    if (op_const_ints(g, n, 1, "shape", shape, IR_MAX_RANK, &k, err)) return err->code;
    int rank = k > x->rank ? k : x->rank;
    const int unbounded = g->values[n->in[0]].rt_alloc;   /* X's dims a placeholder */
    for (int i = 0; i < rank; i++) {
        int ix = i - (rank - x->rank), is = i - (rank - k);
        int64_t a = ix >= 0 ? x->dims[ix] : 1, b = is >= 0 ? shape[is] : 1;
        if (unbounded && b != 1) a = 1;
        if (a != b && a != 1 && b != 1)
            return op_err(err, n, "input dim %d (%lld) does not broadcast with shape entry %d "
                          "(%lld)", ix, (long long)a, is, (long long)b);
        dims[i] = a == 1 ? b : a;
    }
    return op_view_finish(g, n, rank, dims, err);
}

const op_def op_expand = {
    .name = "Expand",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_view_params),
    .infer = expand_infer,
    .lower = op_view_lower,
};
