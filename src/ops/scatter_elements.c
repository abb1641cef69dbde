/* scatter_elements.c - ScatterElements: Y = data, then Y[c with c[axis] =
 * indices[c]] = updates[c] (or combined by reduction) for each c of updates.
 *   data [dims], indices int32/int64, updates (one shape, rank r, within data
 *   off the axis) -> data's shape and type.
 * Repeated indices apply in order (the last write wins for none); negative
 * indices count from the end; one out of range is refused (a constant) or
 * fails the run before anything is written (rt/ops/scatter.c), as ONNX Runtime. */
#include <string.h>

#include "scatter.h"

pz_status op_scatter_reduction(const ir_node *n, pz_scatter_reduction *out, pz_err *err)
{
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    const char *s;
    if (op_attr_string(n, "reduction", "none", &s, err)) return err->code;
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *out = (pz_scatter_reduction)i;
            return PZ_OK;
        }
    return op_err_attr(err, n, "reduction", "\"%s\", expected none, add, mul, max or min", s);
}

pz_status op_scatter_elements_parse(const ir_graph *g, const ir_node *n, void *params,
                                    pz_err *err)
{
    pz_scatter_params *p = params;
    int64_t axis;
    if (op_attr_int(n, "axis", 0, &axis, err) ||
        op_axis(n, "axis", axis, op_in(g, n, 0)->rank, 0, &p->axis, err))
        return err->code;
    p->nd = 0;
    return op_scatter_reduction(n, &p->reduction, err);
}

pz_status op_scatter_elements_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_scatter_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *idx = op_in(g, n, 1), *u = op_in(g, n, 2);
    if (idx->dtype != IR_I64 && idx->dtype != IR_I32)
        return op_err(err, n, "indices must be int64 or int32, got %s", ir_dtype_name(idx->dtype));
    if (!ir_dtype_size(x->dtype) || ir_dtype_is_small(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input data has type %s, not "
                       "supported", n->name, n->op_type, ir_dtype_name(x->dtype));
    if (u->dtype != x->dtype)
        return op_err(err, n, "updates have type %s, data %s: they must agree",
                      ir_dtype_name(u->dtype), ir_dtype_name(x->dtype));
    if (idx->rank != x->rank || u->rank != x->rank)
        return op_err(err, n, "data, indices and updates must have one rank (%d, %d, %d)",
                      x->rank, idx->rank, u->rank);
    /* a run-time shape (a detector's per-level RoIs): the run checks them */
    int dyn = 0;
    for (int i = 0; i < n->n_in; i++) dyn |= g->values[n->in[i]].dyn;
    for (int i = 0; i < x->rank && !dyn; i++)
        if (idx->dims[i] != u->dims[i] || (i != p->axis && u->dims[i] > x->dims[i]))
            return op_err(err, n, "indices and updates must have one shape within data's, off "
                          "axis %d (dim %d)", p->axis, i);
    if (op_check_indices(g, n, idx, 1, x->dims + p->axis, p->axis, err)) return err->code;
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

pz_status op_scatter_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_SCATTER, n->params, sizeof(pz_scatter_params));
    return PZ_OK;
}

const op_def op_scatter_elements = {
    .name = "ScatterElements",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_scatter_params),
    .parse = op_scatter_elements_parse,
    .infer = op_scatter_elements_infer,
    .lower = op_scatter_lower,
};
