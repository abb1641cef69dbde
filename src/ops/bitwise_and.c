/* bitwise_and.c - BitwiseAnd: C = A & B bit by bit, A and B of one integer type,
 * broadcast (numpy); C has their type. Folds constants. Runs as the
 * runtime's BINARY layer. */
#include "compare.h"

/* on the sign-extended bits: the store keeps the type's low bits */
static int64_t bitwise_and_i(int64_t a, int64_t b) { return a & b; }
static const op_binary_fn bitwise_and_fn = {NULL, bitwise_and_i};

static pz_status bitwise_and_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (op_want_types(g, n, OP_TY_INT, err)) return err->code;
    return op_binary_infer(g, n, 1, -1, &bitwise_and_fn, err);
}

static pz_status bitwise_and_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_arith_lower(g, n, PZ_BIN_BITAND, out, err);
}

const op_def op_bitwise_and = {
    .name = "BitwiseAnd",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = bitwise_and_infer,
    .lower = bitwise_and_lower,
};
