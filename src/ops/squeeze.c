/* squeeze.c - Squeeze: removes dims of size 1.
 *   data [d...], axes (attribute before opset 13, optional input 1 from 13)
 *   -> squeezed: data without the listed dims (each must be 1), or without
 *      every dim of size 1 when no axes (or an empty list) are given. Runs as
 *      a view of its input (no layer; a COPY where lowering cannot make
 *      one: op_lower.c); axes read at run time run as RESHAPE. */
#include "fold.h"

static pz_status squeeze_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axes[IR_MAX_RANK], dims[IR_MAX_RANK];
    int count = -1, ax[IR_MAX_RANK];
    if (g->opset < 13) {
        if (op_in(g, n, 1))
            return op_err(err, n, "axes is an input only from opset 13 (the model uses %d)",
                          g->opset);
        if (op_attr_ints(n, "axes", axes, IR_MAX_RANK, &count, err)) return err->code;
    } else {
        if (op_attr(n, "axes"))
            return op_err_attr(err, n, "axes", "is not an attribute from opset 13, where axes is "
                               "input 1 (the model uses opset %d)", g->opset);
        int rt = 0;
        if (op_in(g, n, 1) && op_rt_ints(g, n, 1, IR_MAX_RANK, &rt) && rt > 0)
            return op_axes_at_run(g, n, rt, -1, err);
        if (op_in(g, n, 1) && !op_rt_ints(g, n, 1, IR_MAX_RANK, NULL) &&
            op_const_ints(g, n, 1, "axes", axes, IR_MAX_RANK, &count, err))
            return err->code;
    }
    unsigned drop = 0;
    if (count <= 0) {   /* an empty axes list squeezes all, as ONNX Runtime does */
        for (int k = 0; k < x->rank; k++)
            if (x->dims[k] == 1) drop |= 1u << k;
    } else {
        if (op_axes_list(n, "axes", axes, count, x->rank, ax, err)) return err->code;
        for (int i = 0; i < count; i++) {
            if (x->dims[ax[i]] != 1)
                return op_err(err, n, "axes: dim %d has size %lld, only dims of size 1 can be "
                              "squeezed", ax[i], (long long)x->dims[ax[i]]);
            drop |= 1u << ax[i];
        }
    }
    int rank = 0;
    for (int k = 0; k < x->rank; k++)
        if (!(drop & (1u << k))) dims[rank++] = x->dims[k];
    op_set_out(g, n, 0, x->dtype, rank, dims);
    op_fold_copy(g, n, 0, x);
    return PZ_OK;
}

static pz_status squeeze_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_axes_at_run_lower(g, n, out, -1, err);
}

const op_def op_squeeze = {
    .name = "Squeeze",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = 0,
    .parse = NULL,
    .infer = squeeze_infer,
    .cost = NULL,
    .lower = squeeze_lower,
    .view = 1,
};
