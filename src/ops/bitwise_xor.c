/* bitwise_xor.c - BitwiseXor: C = A ^ B bit by bit, A and B of one integer type,
 * broadcast (numpy); C has their type. Folds constants. Runs as the
 * runtime's BINARY layer. */
#include "compare.h"

/* on the sign-extended bits: the store keeps the type's low bits */
static int64_t bitwise_xor_i(int64_t a, int64_t b) { return a ^ b; }
static const op_binary_fn bitwise_xor_fn = {NULL, bitwise_xor_i};

static pz_status bitwise_xor_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    if (op_want_types(g, n, OP_TY_INT, err)) return err->code;
    return op_binary_infer(g, n, 1, -1, &bitwise_xor_fn, err);
}

static pz_status bitwise_xor_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_arith_lower(g, n, PZ_BIN_BITXOR, out, err);
}

const op_def op_bitwise_xor = {
    .name = "BitwiseXor",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = bitwise_xor_infer,
    .lower = bitwise_xor_lower,
};
