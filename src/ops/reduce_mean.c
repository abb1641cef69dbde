/* reduce_mean.c - ReduceMean: the mean over some axes.
 *   X [D0..Dr-1] -> Y: each reduced dim becomes 1 (keepdims=1, the default)
 *   or is dropped (keepdims=0).
 * axes: an attribute before opset 18, the optional constant input 1 from 18
 * on. No axes means all of them, except with noop_with_empty_axes=1 (opset
 * 18+), where the op is an identity. Axes may be negative; repeats are errors.
 * Floats and int32/int64/uint32/uint64. */
#include "op.h"

typedef struct {
    unsigned char reduce[IR_MAX_RANK];  /* 1: dim d is reduced */
    int64_t keepdims;
} reduce_mean_params;

static pz_status reduce_mean_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    reduce_mean_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axes[IR_MAX_RANK], noop = 0;
    int cnt = -1;
    if (!x) return op_err(err, n, "input data is missing");
    if (op_attr_int(n, "keepdims", 1, &p->keepdims, err)) return err->code;
    if (p->keepdims != 0 && p->keepdims != 1)
        return op_err_attr(err, n, "keepdims", "is %lld, must be 0 or 1", (long long)p->keepdims);
    if (g->opset < 18) {
        if (n->n_in > 1)
            return op_err(err, n, "has %d inputs; before opset 18 axes is an attribute", n->n_in);
        if (op_attr_ints(n, "axes", axes, IR_MAX_RANK, &cnt, err)) return err->code;
    } else {
        if (op_attr(n, "axes"))
            return op_err_attr(err, n, "axes", "is input 1 from opset 18 on (the model has opset "
                               "%d)", g->opset);
        if (op_attr_int(n, "noop_with_empty_axes", 0, &noop, err)) return err->code;
        if (op_in(g, n, 1) && op_const_ints(g, n, 1, "axes", axes, IR_MAX_RANK, &cnt, err))
            return err->code;
    }
    for (int d = 0; d < IR_MAX_RANK; d++) p->reduce[d] = cnt <= 0 && !noop;
    for (int i = 0; i < cnt; i++) {
        int a;
        if (op_axis(n, "axes", axes[i], x->rank, 0, &a, err)) return err->code;
        if (p->reduce[a])
            return op_err_attr(err, n, "axes", "axis %lld is repeated", (long long)axes[i]);
        p->reduce[a] = 1;
    }
    return PZ_OK;
}

static pz_status reduce_mean_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const reduce_mean_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype) && x->dtype != IR_I32 && x->dtype != IR_I64 &&
        x->dtype != IR_U32 && x->dtype != IR_U64)
        return op_err(err, n, "data has unsupported type %s", ir_dtype_name(x->dtype));
    int64_t dims[IR_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        if (!p->reduce[d]) dims[r++] = x->dims[d];
        else if (p->keepdims) dims[r++] = 1;
    }
    op_set_out(g, n, 0, x->dtype, r, dims);
    return PZ_OK;
}

/* REDUCE_MEAN with the reduced axes as a mask (keepdims shows only in Y's
 * shape); no axis reduced (noop_with_empty_axes) is a COPY. The axes input
 * is dropped. */
static pz_status reduce_mean_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    const reduce_mean_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    pz_reduce_params rp = {0};
    for (int d = 0; d < x->rank; d++)
        if (p->reduce[d]) rp.axes_mask |= 1u << d;
    if (rp.axes_mask) op_lowered_init(out, n, PZ_OP_REDUCE_MEAN, &rp, sizeof rp);
    else op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
    out->n_in = 1;
    return PZ_OK;
}

const op_def op_reduce_mean = {
    .name = "ReduceMean",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(reduce_mean_params),
    .parse = reduce_mean_parse,
    .infer = reduce_mean_infer,
    .lower = reduce_mean_lower,
};
