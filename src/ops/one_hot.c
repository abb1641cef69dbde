/* one_hot.c - OneHot (opsets 9, 11): Y = values[1] where the index along
 * the new axis equals indices (a negative index counts from depth, opset
 * 11), values[0] elsewhere; an index outside [-depth, depth) sets nothing.
 *   indices [d...] (any number type, cast to int64), depth (a number scalar
 *   or one element, cast to int64), values [2] -> Y [d... with depth at
 *   axis (default -1)], values' type
 * depth shapes Y: a constant (a graph input is bound by the loader), or a
 * graph input nothing binds, read at run time (depth -1 in the params,
 * input 2 of the layer): Y then has no compile-time bound, the net
 * allocates it. Runs as ONEHOT (rt/ops/onehot.c). */
#include <math.h>

#include "reduce.h"

typedef struct {
    int64_t axis;
} one_hot_params;

static pz_status one_hot_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    one_hot_params *p = params;
    return op_attr_int(n, "axis", -1, &p->axis, err);
}

/* Whether depth is read at run time: not a constant, g->rt_shapes, not
 * itself of a run-time shape (its one element checked by geometry). */
static int one_hot_rt_depth(const ir_graph *g, const ir_node *n)
{
    const ir_tensor *d = op_in(g, n, 1);
    return g->rt_shapes && d && !d->data && !g->values[n->in[1]].dyn;
}

/* depth (-1: read at run time) and the axis (normalised) of the node. */
static pz_status one_hot_geometry(const ir_graph *g, const ir_node *n, int64_t *depth, int *axis,
                                  pz_err *err)
{
    const one_hot_params *p = n->params;
    const ir_tensor *ind = op_in(g, n, 0), *d = op_in(g, n, 1);
    if (op_axis(n, "axis", p->axis, ind->rank, 1, axis, err)) return err->code;
    if (!ir_dtype_is_float(d->dtype) && !ir_dtype_is_int(d->dtype))
        return op_err(err, n, "input depth has type %s, expected a number",
                      ir_dtype_name(d->dtype));
    if (ir_tensor_numel(d) != 1 || d->rank > 1)
        return op_err(err, n, "input depth must be a scalar or one element");
    if (one_hot_rt_depth(g, n)) {
        *depth = -1;
        return PZ_OK;
    }
    if (!d->data) return op_need_const(err, g, n, 1, "depth", "it shapes the output");
    double v = ir_dtype_is_float(d->dtype) ? trunc(ir_load_f64(d->data, d->dtype, 0))
                                           : (double)ir_load_i64(d->data, d->dtype, 0);
    if (!(v >= 1 && v <= 1e12))
        return op_err(err, n, "input depth is %g, must be a positive count", v);
    *depth = (int64_t)v;
    return PZ_OK;
}

static pz_status one_hot_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *ind = op_in(g, n, 0), *v = op_in(g, n, 2);
    if (op_want_numeric(n, ind, "indices", 1, 0, err)) return err->code;
    if (ir_tensor_numel(v) != 2 || v->rank != 1)
        return op_err(err, n, "input values must be [2] (off, on), got rank %d with %lld "
                      "elements", v->rank, (long long)ir_tensor_numel(v));
    if (ir_dtype_size(v->dtype) == 0 || v->dtype == IR_STRING)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (OneHot): input values has type "
                       "%s, not supported", n->name, ir_dtype_name(v->dtype));
    int64_t depth, dims[IR_MAX_RANK];
    int axis;
    if (one_hot_geometry(g, n, &depth, &axis, err)) return err->code;
    if (ind->rank + 1 > IR_MAX_RANK)
        return op_err(err, n, "the output would have rank %d, above %d", ind->rank + 1,
                      IR_MAX_RANK);
    /* read at run time: depth 1 stands in (the net allocates Y) */
    for (int a = 0, j = 0; a <= ind->rank; a++)
        dims[a] = a == axis ? depth < 0 ? 1 : depth : ind->dims[j++];
    if (op_check_dims(n, ind->rank + 1, dims, err)) return err->code;
    op_set_out(g, n, 0, v->dtype, ind->rank + 1, dims);
    if (depth < 0) op_set_rt_alloc(g, n, 0);
    return PZ_OK;
}

static pz_status one_hot_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                               pz_err *err)
{
    int64_t depth;
    int axis;
    if (one_hot_geometry(g, n, &depth, &axis, err)) return err->code;
    pz_onehot_params op = {.axis = axis, .depth = depth};
    op_lowered_init(out, n, PZ_OP_ONEHOT, &op, sizeof op);
    /* indices, values; depth in the params, or read at run time (input 2) */
    int d = out->in[1];
    out->in[1] = out->in[2];
    out->in[2] = d;
    out->n_in = depth < 0 ? 3 : 2;
    return PZ_OK;
}

const op_def op_one_hot = {
    .name = "OneHot",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(one_hot_params),
    .parse = one_hot_parse,
    .infer = one_hot_infer,
    .lower = one_hot_lower,
};
