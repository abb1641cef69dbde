/* equal.c - Equal: C (bool) = A == B element by element, A and B of one
 * numeric, bool or string type, broadcast (numpy; the legacy broadcast/axis
 * attributes before opset 7). Folds numeric constants (shape subgraphs).
 * Runs as the runtime's COMPARE layer (strings: byte for byte). */
#include "compare.h"

static double equal_f(double a, double b) { return a == b; }
static int64_t equal_i(int64_t a, int64_t b) { return a == b; }
static const op_binary_fn equal_fn = {equal_f, equal_i};

static pz_status equal_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    if (a->dtype == IR_STRING || b->dtype == IR_STRING) {
        if (a->dtype != b->dtype)
            return op_err(err, n, "A is %s and B %s: a string compares with a string only",
                          ir_dtype_name(a->dtype), ir_dtype_name(b->dtype));
        ir_tensor y;
        if (op_broadcast(g, n, a, b, &y, err)) return err->code;
        op_set_out(g, n, 0, IR_BOOL, y.rank, y.dims);
        return PZ_OK;
    }
    return op_compare_infer(g, n, OP_TY_NUMERIC | OP_TY_BOOL, &equal_fn, err);
}

static pz_status equal_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_compare_lower(g, n, PZ_CMP_EQ, out, err);
}

const op_def op_equal = {
    .name = "Equal",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = equal_infer,
    .lower = equal_lower,
    .takes_string = 1,
};
