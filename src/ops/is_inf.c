/* is_inf.c - IsInf: Y (bool) = X is +inf (when detect_positive, default 1)
 * or -inf (when detect_negative, default 1), element by element, X of a
 * float type (the 8-bit floats of opset 20: refused). Runs as the runtime's
 * LOGIC_UNARY layer. */
#include "compare.h"

typedef struct {
    int pos, neg;
} is_inf_params;

static pz_status is_inf_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    is_inf_params *p = params;
    int64_t pos, neg;
    if (op_attr_int(n, "detect_positive", 1, &pos, err) ||
        op_attr_int(n, "detect_negative", 1, &neg, err))
        return err->code;
    if (pos != 0 && pos != 1)
        return op_err_attr(err, n, "detect_positive", "is %lld, expected 0 or 1", (long long)pos);
    if (neg != 0 && neg != 1)
        return op_err_attr(err, n, "detect_negative", "is %lld, expected 0 or 1", (long long)neg);
    p->pos = (int)pos;
    p->neg = (int)neg;
    return PZ_OK;
}

static pz_status is_inf_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    static const op_unary_fn none = {NULL, NULL};   /* no shape subgraph tests for inf */
    if (op_want_types(g, n, OP_TY_FLOAT, err)) return err->code;
    op_unary_infer_fold(g, n, IR_BOOL, &none);
    return PZ_OK;
}

static pz_status is_inf_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const is_inf_params *p = n->params;
    op_logic_unary_lower(n, PZ_LU_ISINF, p->pos, p->neg, out);
    return PZ_OK;
}

const op_def op_is_inf = {
    .name = "IsInf",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(is_inf_params),
    .parse = is_inf_parse,
    .infer = is_inf_infer,
    .lower = is_inf_lower,
};
