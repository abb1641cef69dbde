/* max_unpool.c - MaxUnpool (opsets 9, 11):
 *   X [N, C, D1..Dk], I int64 [X's shape] (flat indices into Y, as MaxPool
 *   gives them), output_shape? int64 [k + 2] (constant: it shapes Y)
 *   -> Y [N, C, O1..Ok], Oi = (Di - 1) * stride + kernel - pads, or
 *   output_shape (at least the default in each dim: I indexes the default
 *   output, Y holds it at its start). kernel_shape, strides, pads. No MACs.
 *   Runs as MAX_UNPOOL (rt/ops/max_unpool.c). */
#include <string.h>

#include "window.h"

static pz_status max_unpool_parse(const ir_graph *g, const ir_node *n, void *params,
                                  pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x || x->rank < 3) return op_err(err, n, "input X must be [N, C, D1..Dk]");
    op_window *w = params;
    if (op_window_parse(n, x->rank - 2, NULL, w, 0, err)) return err->code;
    if (!w->has_kernel) return op_err_attr(err, n, "kernel_shape", "is required");
    return PZ_OK;
}

static pz_status max_unpool_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const op_window *w = n->params;
    const ir_tensor *x = op_in(g, n, 0), *i = op_in(g, n, 1);
    if (!i || i->dtype != IR_I64) return op_err(err, n, "input I must be int64");
    if (i->rank != x->rank || memcmp(i->dims, x->dims, sizeof(int64_t) * (size_t)x->rank))
        return op_err(err, n, "input I must have X's shape");
    if (ir_dtype_size(x->dtype) == 0 || x->dtype == IR_STRING)
        return op_err(err, n, "input X has type %s, not supported", ir_dtype_name(x->dtype));
    int64_t dims[IR_MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int k = 0; k < w->nsp; k++)
        dims[2 + k] = (x->dims[2 + k] - 1) * w->stride[k] + w->kernel[k] - w->pad_begin[k] -
                      w->pad_end[k];
    if (op_check_dims(n, x->rank, dims, err)) return err->code;
    /* constant I: each a flat index of the default-size output (ONNX
     * Runtime fails on others; rt/ops/max_unpool.c checks the run's) */
    int64_t space = 1;
    for (int k = 0; k < x->rank; k++) space *= dims[k];
    if (op_check_span(g, n, i, "I", 0, space - 1, err)) return err->code;
    if (op_in(g, n, 2)) {
        int64_t os[IR_MAX_RANK];
        int no;
        if (op_const_ints(g, n, 2, "output_shape", os, IR_MAX_RANK, &no, err)) return err->code;
        if (no != x->rank) return op_err(err, n, "output_shape has %d entries, X rank %d", no,
                                         x->rank);
        /* I indexes the default-size output, which ONNX then pads at the end
         * of each dim to output_shape (the lowering passes the default dims) */
        for (int k = 0; k < no; k++) {
            if (os[k] < dims[k])
                return op_err(err, n, "input output_shape: dimension %d is %lld, below the "
                              "%lld the pooling geometry gives", k, (long long)os[k],
                              (long long)dims[k]);
            dims[k] = os[k];
        }
    }
    if (op_check_dims(n, x->rank, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

static pz_status max_unpool_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                  pz_err *err)
{
    const op_window *w = n->params;
    const ir_tensor *x = op_in(g, n, 0), *y = op_out((ir_graph *)g, n, 0);
    pz_max_unpool_params mp = {0};
    if (x->rank > PZ_MAX_RANK)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (MaxUnpool): rank %d is above %d",
                       n->name, x->rank, PZ_MAX_RANK);
    /* the default output, which I indexes; rank 0 when Y is it */
    int64_t dims[IR_MAX_RANK] = {x->dims[0], x->dims[1]};
    int same = 1;
    for (int k = 0; k < w->nsp; k++)
        dims[2 + k] = (x->dims[2 + k] - 1) * w->stride[k] + w->kernel[k] - w->pad_begin[k] -
                      w->pad_end[k];
    for (int k = 0; k < x->rank; k++) same &= dims[k] == y->dims[k];
    if (!same) {
        mp.rank = x->rank;
        for (int k = 0; k < x->rank; k++) mp.dims[k] = dims[k];
    }
    op_lowered_init(out, n, PZ_OP_MAX_UNPOOL, &mp, sizeof mp);
    out->n_in = 2;   /* output_shape is Y's shape now */
    return PZ_OK;
}

const op_def op_max_unpool = {
    .name = "MaxUnpool",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_window),
    .parse = max_unpool_parse,
    .infer = max_unpool_infer,
    .lower = max_unpool_lower,
};
