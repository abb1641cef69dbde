/* bitwise_not.c - BitwiseNot: Y = ~X element by element, X of an integer
 * type, Y of the same. Folds a constant. Runs as the runtime's LOGIC_UNARY
 * layer. */
#include "compare.h"

/* on the sign-extended bits: the store keeps the type's low bits */
static int64_t bitwise_not_i(int64_t x) { return ~x; }
static const op_unary_fn bitwise_not_fn = {NULL, bitwise_not_i};

static pz_status bitwise_not_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (op_want_types(g, n, OP_TY_INT, err)) return err->code;
    op_unary_infer_fold(g, n, -1, &bitwise_not_fn);
    return PZ_OK;
}

static pz_status bitwise_not_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    op_logic_unary_lower(n, PZ_LU_BITNOT, 0, 0, out);
    return PZ_OK;
}

const op_def op_bitwise_not = {
    .name = "BitwiseNot",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = bitwise_not_infer,
    .lower = bitwise_not_lower,
};
