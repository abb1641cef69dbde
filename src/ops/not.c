/* not.c - Not: Y = not X element by element on a bool tensor. Folds a
 * constant. Runs as the runtime's LOGIC_UNARY layer. */
#include "compare.h"

static int64_t not_i(int64_t x) { return x == 0; }
static const op_unary_fn not_fn = {NULL, not_i};

static pz_status not_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (op_want_types(g, n, OP_TY_BOOL, err)) return err->code;
    op_unary_infer_fold(g, n, IR_BOOL, &not_fn);
    return PZ_OK;
}

static pz_status not_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_logic_unary_lower(n, PZ_LU_NOT, 0, 0, out);
    return PZ_OK;
}

const op_def op_not = {
    .name = "Not",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = not_infer,
    .lower = not_lower,
};
