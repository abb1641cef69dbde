/* div.c - Div: C = A / B with multidirectional broadcasting (opset >= 7) or
 * the legacy `broadcast`/`axis` attributes (opset < 7); folds constants.
 * Integer division truncates toward zero, as in C; a constant integer
 * divisor holding 0 is an error (it would trap at run time). */
#include "elementwise.h"

static double div_f(double a, double b) { return a / b; }

/* Callers have ruled out b == 0; INT64_MIN / -1 wraps to INT64_MIN. */
static int64_t div_i(int64_t a, int64_t b)
{
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    return b ? a / b : 0;
}
static const op_binary_fn div_fn = {div_f, div_i};

static pz_status div_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *b = op_in_const(g, n, 1);
    if (b && ir_dtype_is_int(b->dtype)) {
        int64_t cnt = ir_tensor_numel(b);
        for (int64_t k = 0; k < cnt; k++)
            if (ir_load_i64(b->data, b->dtype, (size_t)k) == 0)
                return op_err(err, n, "integer division by zero: element %lld of the constant "
                              "divisor \"%s\" is 0", (long long)k, g->values[n->in[1]].name);
    }
    return op_arith_infer(g, n, 1, &div_fn, err);
}

static pz_status div_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_arith_lower(g, n, PZ_BIN_DIV, out, err);
}

const op_def op_div = {
    .name = "Div",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = div_infer,
    .lower = div_lower,
    .takes_act = 1,
};
