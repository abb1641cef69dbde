/* reduce.c - attributes, inference, folding and lowering of the reductions
 * (reduce.h). */
#include "reduce.h"

#include <stdlib.h>

#include "fold.h"
#include "../rt/kernels/kernels.h"

pz_status op_want_numeric(const ir_node *n, const ir_tensor *t, const char *what, int ints,
                          int boolean, pz_err *err)
{
    if (ir_dtype_is_float(t->dtype) || (ints && ir_dtype_is_int(t->dtype)) ||
        (boolean && t->dtype == IR_BOOL))
        return PZ_OK;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %s has type %s, not "
                   "supported", n->name, n->op_type, what, ir_dtype_name(t->dtype));
}

void *op_fold_start(ir_graph *g, const ir_node *n, int out, const ir_tensor *src)
{
    if (!op_fold_ready(g, n, out, src)) return NULL;
    const ir_tensor *y = op_out(g, n, out);
    return pz_xcalloc((size_t)(ir_tensor_numel(y) ? ir_tensor_numel(y) : 1),
                      ir_dtype_size(y->dtype));
}

void op_fold_finish(ir_graph *g, const ir_node *n, int out, void *buf)
{
    const ir_tensor *y = op_out(g, n, out);
    ir_value_set_data(g, n->out[out], buf, (size_t)ir_tensor_numel(y) * ir_dtype_size(y->dtype));
    free(buf);
}

pz_status op_reduce_parse(const ir_graph *g, const ir_node *n, op_reduce_params *p,
                          int axes_opset, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axes[IR_MAX_RANK], noop = 0;
    int cnt = -1;
    if (!x) return op_err(err, n, "input data is missing");
    if (op_attr_int(n, "keepdims", 1, &p->keepdims, err)) return err->code;
    if (p->keepdims != 0 && p->keepdims != 1)
        return op_err_attr(err, n, "keepdims", "is %lld, must be 0 or 1", (long long)p->keepdims);
    if (g->opset < axes_opset) {
        if (n->n_in > 1)
            return op_err(err, n, "has %d inputs; before opset %d axes is an attribute", n->n_in,
                          axes_opset);
        if (op_attr_ints(n, "axes", axes, IR_MAX_RANK, &cnt, err)) return err->code;
    } else {
        if (op_attr(n, "axes"))
            return op_err_attr(err, n, "axes", "is input 1 from opset %d on (the model has "
                               "opset %d)", axes_opset, g->opset);
        if (op_attr_int(n, "noop_with_empty_axes", 0, &noop, err)) return err->code;
        /* axes read at run time (an empty one: nothing to read) */
        int rt = 0;
        if (op_in(g, n, 1) && !op_rt_ints(g, n, 1, IR_MAX_RANK, &rt) &&
            op_const_ints(g, n, 1, "axes", axes, IR_MAX_RANK, &cnt, err))
            return err->code;
        if (rt > 0) {
            if (rt > x->rank)
                return op_err(err, n, "input axes has %d entries but data has rank %d", rt,
                              x->rank);
            p->rt_axes = rt;
            return PZ_OK;
        }
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

static unsigned reduce_mask(const op_reduce_params *p, int rank)
{
    unsigned mask = 0;
    for (int d = 0; d < rank; d++)
        if (p->reduce[d]) mask |= 1u << d;
    return mask;
}

pz_status op_reduce_infer(ir_graph *g, ir_node *n, pz_reduce_func f, pz_err *err)
{
    const op_reduce_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    const int minmax = f == PZ_RED_MAX || f == PZ_RED_MIN;
    if (op_want_numeric(n, x, "data", 1, minmax, err)) return err->code;
    int64_t dims[IR_MAX_RANK];
    int r = 0;
    if (p->rt_axes) {
        /* axes at run time: keepdims, X's dim or 1 (reduced); else kept dim
         * j is one of X's dims j .. j + the count of axes */
        r = p->keepdims ? x->rank : x->rank - p->rt_axes;
        for (int j = 0; j < r; j++) {
            dims[j] = p->keepdims && x->dims[j] < 1 ? 1 : x->dims[j];
            for (int i = j; !p->keepdims && i <= j + p->rt_axes; i++)
                if (x->dims[i] > dims[j]) dims[j] = x->dims[i];
        }
        op_set_out(g, n, 0, x->dtype, r, dims);
        op_set_dyn(g, n, 0);
        return PZ_OK;
    }
    for (int d = 0; d < x->rank; d++) {
        if (!p->reduce[d]) dims[r++] = x->dims[d];
        else if (p->keepdims) dims[r++] = 1;
    }
    op_set_out(g, n, 0, x->dtype, r, dims);
    /* the runtime's kernel: a folded reduction equals a run one */
    void *buf = op_fold_start(g, n, 0, x);
    if (!buf) return PZ_OK;
    pz_reduce_params rp = {.axes_mask = reduce_mask(p, x->rank), .func = f};
    pz_any_reduce__ref(&rp, x->dtype, x->rank, x->dims, x->data, buf, 0, 1);
    op_fold_finish(g, n, 0, buf);
    return PZ_OK;
}

/* No axis reduced: a COPY where each element alone reduces to itself (Mean,
 * Sum, Max, Min, Prod); the others still apply their function per element. */
pz_status op_reduce_lower(const ir_graph *g, const ir_node *n, pz_reduce_func f,
                          op_lowered *out, pz_err *err)
{
    const op_reduce_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    pz_reduce_params rp = {.axes_mask = reduce_mask(p, x->rank), .func = f};
    const int identity = f == PZ_RED_MEAN || f == PZ_RED_SUM || f == PZ_RED_MAX ||
                         f == PZ_RED_MIN || f == PZ_RED_PROD;
    if (p->rt_axes) {   /* the mask from input 1 at run time (rt/ops/reduce_mean.c) */
        op_lowered_init(out, n, PZ_OP_REDUCE_MEAN, &rp, sizeof rp);
        out->n_in = 2;
        return PZ_OK;
    }
    if (rp.axes_mask || !identity) op_lowered_init(out, n, PZ_OP_REDUCE_MEAN, &rp, sizeof rp);
    else op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
    out->n_in = 1;
    return PZ_OK;
}

pz_status op_arg_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_arg_params *p = params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    if (!x) return op_err(err, n, "input data is missing");
    if (op_attr_int(n, "axis", 0, &axis, err) || op_attr_int(n, "keepdims", 1, &p->keepdims, err) ||
        op_attr_int(n, "select_last_index", 0, &p->select_last, err))
        return err->code;
    if (p->keepdims != 0 && p->keepdims != 1)
        return op_err_attr(err, n, "keepdims", "is %lld, must be 0 or 1", (long long)p->keepdims);
    if (p->select_last != 0 && p->select_last != 1)
        return op_err_attr(err, n, "select_last_index", "is %lld, must be 0 or 1",
                           (long long)p->select_last);
    return op_axis(n, "axis", axis, x->rank, 0, &p->axis, err);
}

static pz_arg_params arg_rt(const ir_node *n, pz_arg_func f)
{
    const op_arg_params *p = n->params;
    return (pz_arg_params){.func = f, .axis = p->axis, .select_last = (int)p->select_last};
}

pz_status op_arg_infer(ir_graph *g, ir_node *n, pz_arg_func f, pz_err *err)
{
    const op_arg_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (op_want_numeric(n, x, "data", 1, 0, err)) return err->code;
    if (x->dims[p->axis] == 0)
        return op_err_attr(err, n, "axis", "axis %d of data has no elements", p->axis);
    int64_t dims[IR_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        if (d != p->axis) dims[r++] = x->dims[d];
        else if (p->keepdims) dims[r++] = 1;
    }
    op_set_out(g, n, 0, IR_I64, r, dims);
    void *buf = op_fold_start(g, n, 0, x);
    if (buf) {
        pz_arg_params ap = arg_rt(n, f);
        pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, p->axis, 0);
        pz_any_arg__ref(&ap, x->dtype, &s, x->data, buf, 0, 1);
        op_fold_finish(g, n, 0, buf);
    }
    return PZ_OK;
}

pz_status op_arg_lower(const ir_graph *g, const ir_node *n, pz_arg_func f, op_lowered *out,
                       pz_err *err)
{
    pz_arg_params ap = arg_rt(n, f);
    op_lowered_init(out, n, PZ_OP_ARG, &ap, sizeof ap);
    return PZ_OK;
}

pz_status op_cum_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_cum_params *p = params;
    const ir_tensor *x = op_in(g, n, 0), *ax = op_in(g, n, 1);
    if (!x || !ax) return op_err(err, n, "needs the inputs x and axis");
    if (op_attr_int(n, "exclusive", 0, &p->exclusive, err) ||
        op_attr_int(n, "reverse", 0, &p->reverse, err))
        return err->code;
    if (p->exclusive != 0 && p->exclusive != 1)
        return op_err_attr(err, n, "exclusive", "is %lld, must be 0 or 1", (long long)p->exclusive);
    if (p->reverse != 0 && p->reverse != 1)
        return op_err_attr(err, n, "reverse", "is %lld, must be 0 or 1", (long long)p->reverse);
    if (x->rank < 1) return op_err(err, n, "input x must have rank >= 1, got a scalar");
    if ((ax->dtype != IR_I32 && ax->dtype != IR_I64) || ir_tensor_numel(ax) != 1 || ax->rank > 1)
        return op_err(err, n, "input axis must be one int32 or int64, got %s of rank %d",
                      ir_dtype_name(ax->dtype), ax->rank);
    p->axis = -1;
    if (!ax->data) return PZ_OK;   /* read at run time */
    return op_axis(n, "axis", ir_load_i64(ax->data, ax->dtype, 0), x->rank, 0, &p->axis, err);
}

/* The axis from input 1 (run time) leaves 0 here, unused. */
static pz_cum_params cum_rt(const ir_node *n, pz_cum_func f)
{
    const op_cum_params *p = n->params;
    return (pz_cum_params){.func = f, .axis = p->axis < 0 ? 0 : p->axis,
                           .exclusive = (int)p->exclusive, .reverse = (int)p->reverse};
}

pz_status op_cum_infer(ir_graph *g, ir_node *n, pz_cum_func f, pz_err *err)
{
    const op_cum_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (op_want_numeric(n, x, "x", 1, 0, err)) return err->code;
    op_same_as(g, n, 0, 0);
    void *buf = p->axis >= 0 ? op_fold_start(g, n, 0, x) : NULL;
    if (buf) {
        pz_cum_params cp = cum_rt(n, f);
        pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, p->axis, 0);
        pz_any_cumulative__ref(&cp, x->dtype, &s, x->data, buf, 0, 1);
        op_fold_finish(g, n, 0, buf);
    }
    return PZ_OK;
}

pz_status op_cum_lower(const ir_graph *g, const ir_node *n, pz_cum_func f, op_lowered *out,
                       pz_err *err)
{
    const op_cum_params *p = n->params;
    pz_cum_params cp = cum_rt(n, f);
    op_lowered_init(out, n, PZ_OP_CUMULATIVE, &cp, sizeof cp);
    if (p->axis >= 0) out->n_in = 1;   /* the axis is in the params */
    return PZ_OK;
}
