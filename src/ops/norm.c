/* norm.c - the parts the normalisation ops share (see norm.h). */
#include "norm.h"

pz_status op_want_float(const ir_node *n, const ir_tensor *t, const char *what, pz_err *err)
{
    if (ir_dtype_is_float(t->dtype)) return PZ_OK;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %s has type %s, not "
                   "supported (float types only)", n->name, n->op_type, what,
                   ir_dtype_name(t->dtype));
}

pz_status op_norm_stash(const ir_node *n, pz_err *err)
{
    int64_t stash;
    if (op_attr_int(n, "stash_type", 1, &stash, err)) return err->code;
    if (stash != 1)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): stash_type %lld is not "
                       "supported (1, float32)", n->name, n->op_type, (long long)stash);
    return PZ_OK;
}

pz_status op_norm_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_NORM, n->params, sizeof(pz_norm_params));
    return PZ_OK;
}
