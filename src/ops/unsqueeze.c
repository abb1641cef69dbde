/* unsqueeze.c - Unsqueeze: inserts dims of size 1.
 *   data [d...] (rank r), axes (attribute before opset 13, input 1 from 13)
 *   -> expanded, rank r + len(axes), with 1 at each listed axis; axes count
 *      in the output's dims (negative from the end). Runs as a
 *      view of its input (no layer; a COPY where lowering cannot make
 *      one: op_lower.c); axes read at run time run as RESHAPE. */
#include "fold.h"

static pz_status unsqueeze_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axes[IR_MAX_RANK], dims[IR_MAX_RANK];
    int count = -1, ax[IR_MAX_RANK];
    if (g->opset < 13) {
        if (op_in(g, n, 1))
            return op_err(err, n, "axes is an input only from opset 13 (the model uses %d)",
                          g->opset);
        if (op_attr_ints(n, "axes", axes, IR_MAX_RANK, &count, err)) return err->code;
        if (count < 0) return op_err_attr(err, n, "axes", "is required");
    } else {
        if (op_attr(n, "axes"))
            return op_err_attr(err, n, "axes", "is not an attribute from opset 13, where axes is "
                               "input 1 (the model uses opset %d)", g->opset);
        if (op_rt_ints(g, n, 1, IR_MAX_RANK, &count)) return op_axes_at_run(g, n, count, 1, err);
        if (op_const_ints(g, n, 1, "axes", axes, IR_MAX_RANK, &count, err)) return err->code;
    }
    int rank = x->rank + count;
    if (rank > IR_MAX_RANK)
        return op_err(err, n, "the output would have rank %d, above the supported %d", rank,
                      IR_MAX_RANK);
    if (op_axes_list(n, "axes", axes, count, rank, ax, err)) return err->code;
    unsigned ones = 0;
    for (int i = 0; i < count; i++) ones |= 1u << ax[i];
    for (int k = 0, j = 0; k < rank; k++) dims[k] = ones & (1u << k) ? 1 : x->dims[j++];
    op_set_out(g, n, 0, x->dtype, rank, dims);
    op_fold_copy(g, n, 0, x);
    return PZ_OK;
}

static pz_status unsqueeze_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_axes_at_run_lower(g, n, out, 1, err);
}

const op_def op_unsqueeze = {
    .name = "Unsqueeze",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = 0,
    .parse = NULL,
    .infer = unsqueeze_infer,
    .cost = NULL,
    .lower = unsqueeze_lower,
    .view = 1,
};
