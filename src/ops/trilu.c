/* trilu.c - Trilu: the upper (upper=1, the default) or lower triangle of the
 * last two dims, the rest zero.
 *   input [..., N, M], k int64 scalar (optional, default 0: the diagonal
 *   offset, read at run time) -> same shape and type.
 * Keeps (i, j) where j - i >= k (upper) or j - i <= k (lower). */
#include "op.h"

static pz_status trilu_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pz_trilu_params *p = params;
    int64_t upper;
    if (op_attr_int(n, "upper", 1, &upper, err)) return err->code;
    p->upper = upper != 0;
    return PZ_OK;
}

static pz_status trilu_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *k = op_in(g, n, 1);
    if (x->rank < 2) return op_err(err, n, "input has rank %d, expected 2 or more", x->rank);
    if (!ir_dtype_size(x->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Trilu): input has type %s, not "
                       "supported", n->name, ir_dtype_name(x->dtype));
    if (k && (k->dtype != IR_I64 || ir_tensor_numel(k) != 1))
        return op_err(err, n, "input k must be one int64, it is %s with %lld elements",
                      ir_dtype_name(k->dtype), (long long)ir_tensor_numel(k));
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

static pz_status trilu_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_TRILU, n->params, sizeof(pz_trilu_params));
    return PZ_OK;
}

const op_def op_trilu = {
    .name = "Trilu",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_trilu_params),
    .parse = trilu_parse,
    .infer = trilu_infer,
    .lower = trilu_lower,
};
