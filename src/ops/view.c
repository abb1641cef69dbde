/* view.c - shared by the ops that lower to the runtime's VIEW layer. */
#include "view.h"

#include "../rt/kernels/kernels.h"

pz_status op_view_finish(ir_graph *g, ir_node *n, int rank, const int64_t *dims, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (op_check_dims(n, rank, dims, err)) return err->code;
    if (!ir_dtype_size(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input has type %s, not "
                       "supported", n->name, n->op_type, ir_dtype_name(x->dtype));
    pz_view_desc d;
    const char *why = "";
    if (pz_view_plan(n->params, x->rank, x->dims, rank, dims, &d, &why))
        return op_err(err, n, "%s", why);
    op_set_out(g, n, 0, x->dtype, rank, dims);
    if (!op_fold_ready(g, n, 0, x)) return PZ_OK;
    size_t es = ir_dtype_size(x->dtype), bytes = (size_t)ir_tensor_numel(op_out(g, n, 0)) * es;
    void *buf = pz_xcalloc(bytes ? bytes : 1, 1);
    pz_any_view__ref(&d, es, x->data, buf, 0, 1);
    ir_value_take_data(g, n->out[0], buf, bytes);
    return PZ_OK;
}

pz_status op_view_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_VIEW, n->params, sizeof(pz_view_params));
    /* no compile-time bound: Expand's shape, Tile's repeats read at run time */
    out->n_in = g->values[n->out[0]].rt_alloc ? 2 : 1;
    return PZ_OK;
}
