/* expand.c - Expand: X broadcast (numpy, multidirectional) with a shape.
 *   input [dims], shape int64 [k] (constant) -> output
 *   broadcast(dims, shape): a dim of 1 on either side takes the other.
 * The shape input decides the output's shape, so it must be constant (a run-
 * time shape is refused, naming the input). Runs as a VIEW (stride 0 on the
 * broadcast dims); folds when X is constant. */
#include "view.h"

static pz_status expand_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    pz_view_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t shape[IR_MAX_RANK], dims[IR_MAX_RANK];
    int k;
    if (op_const_ints(g, n, 1, "shape", shape, IR_MAX_RANK, &k, err)) return err->code;
    int rank = k > x->rank ? k : x->rank;
    for (int i = 0; i < rank; i++) {
        int ix = i - (rank - x->rank), is = i - (rank - k);
        int64_t a = ix >= 0 ? x->dims[ix] : 1, b = is >= 0 ? shape[is] : 1;
        if (a != b && a != 1 && b != 1)
            return op_err(err, n, "input dim %d (%lld) does not broadcast with shape entry %d "
                          "(%lld)", ix, (long long)a, is, (long long)b);
        dims[i] = a == 1 ? b : a;
    }
    p->func = PZ_VIEW_EXPAND;
    return op_view_finish(g, n, rank, dims, err);
}

const op_def op_expand = {
    .name = "Expand",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_view_params),
    .infer = expand_infer,
    .lower = op_view_lower,
};
