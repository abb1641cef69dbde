/* size.c - Size: the number of elements of a tensor, as an int64 scalar.
 *   data [any shape, any type] -> int64 [] = prod(dims)
 * Shapes are static here, so the output is always a constant (it only ever
 * feeds shape arithmetic: the "_expanded" function bodies use it). */
#include "fold.h"

static pz_status size_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x || x->rank < 0) return op_err(err, n, "input data has no known shape");
    int64_t count = ir_tensor_numel(x);
    op_set_out(g, n, 0, IR_I64, 0, NULL);
    if (n->out[0] >= 0) ir_value_set_data(g, n->out[0], &count, sizeof count);
    return PZ_OK;
}

const op_def op_size = {
    .name = "Size",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = size_infer,
};
