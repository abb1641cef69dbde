/* compare.c - shared by the comparison, logic and bitwise ops (compare.h). */
#include "compare.h"

#include <stdlib.h>

static unsigned type_class(int dt)
{
    if (dt == IR_BOOL) return OP_TY_BOOL;
    if (ir_dtype_is_float(dt)) return OP_TY_FLOAT;
    if (ir_dtype_is_int(dt))
        return dt == IR_U8 || dt == IR_U16 || dt == IR_U32 || dt == IR_U64 ? OP_TY_UNSIGNED
                                                                            : OP_TY_SIGNED;
    return 0;
}

pz_status op_want_types(const ir_graph *g, const ir_node *n, unsigned allowed, pz_err *err)
{
    for (int i = 0; i < n->n_in; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (!t || (type_class(t->dtype) & allowed)) continue;
        if (ir_dtype_is_small(t->dtype) || t->dtype == IR_STRING)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %d has type %s, "
                           "not supported", n->name, n->op_type, i, ir_dtype_name(t->dtype));
        return op_err(err, n, "input %d has type %s, expected %s%s%s%s", i,
                      ir_dtype_name(t->dtype), allowed & OP_TY_BOOL ? "bool " : "",
                      (allowed & OP_TY_INT) == OP_TY_INT ? "integer "
                      : allowed & OP_TY_UNSIGNED ? "unsigned integer " : "",
                      allowed & OP_TY_FLOAT ? "float " : "", "type");
    }
    return PZ_OK;
}

pz_status op_compare_infer(ir_graph *g, ir_node *n, unsigned allowed, const op_binary_fn *fn,
                           pz_err *err)
{
    if (op_want_types(g, n, allowed, err)) return err->code;
    return op_binary_infer(g, n, 1, IR_BOOL, fn, err);
}

pz_status op_compare_lower(const ir_graph *g, const ir_node *n, pz_compare_func func,
                           op_lowered *out, pz_err *err)
{
    if (op_legacy_bcast_check(g, n, err)) return err->code;
    pz_compare_params cp = {.func = func};
    op_lowered_init(out, n, PZ_OP_COMPARE, &cp, sizeof cp);
    return PZ_OK;
}

void op_unary_infer_fold(ir_graph *g, ir_node *n, int out_dtype, const op_unary_fn *fn)
{
    const ir_tensor *x = op_in(g, n, 0);
    int ty = out_dtype >= 0 ? out_dtype : (int)x->dtype;
    op_set_out(g, n, 0, ty, x->rank, x->dims);
    int is_int = x->dtype == IR_BOOL || ir_dtype_is_int(x->dtype);
    int64_t numel = ir_tensor_numel(x);
    if (!x->data || numel > OP_FOLD_MAX || n->out[0] < 0 || (is_int ? !fn->fi : !fn->ff))
        return;
    size_t es = ir_dtype_size(ty);
    void *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    for (size_t i = 0; i < (size_t)numel; i++) {
        if (is_int)   /* uint64 above INT64_MAX wraps through int64 and back */
            ir_store_i64(buf, ty, i, fn->fi(ir_load_i64(x->data, x->dtype, i)));
        else
            ir_store_f64(buf, ty, i, fn->ff(ir_load_f64(x->data, x->dtype, i)));
    }
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
}

void op_logic_unary_lower(const ir_node *n, pz_logic_unary_func func, int detect_pos,
                          int detect_neg, op_lowered *out)
{
    pz_logic_unary_params p = {.func = func, .detect_pos = detect_pos, .detect_neg = detect_neg};
    op_lowered_init(out, n, PZ_OP_LOGIC_UNARY, &p, sizeof p);
}

pz_status op_sum_lower(const ir_node *n, int mean, op_lowered *out, pz_err *err)
{
    if (n->n_in == 1) {
        op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
        return PZ_OK;
    }
    if (n->n_in > PZ_MAX_IO)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): %d inputs; the runtime's "
                       "SUM takes at most %d", n->name, n->op_type, n->n_in, PZ_MAX_IO);
    pz_sum_params sp = {.mean = mean};
    op_lowered_init(out, n, PZ_OP_SUM, &sp, sizeof sp);
    return PZ_OK;
}
