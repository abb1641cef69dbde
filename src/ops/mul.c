/* mul.c - Mul: C = A * B with multidirectional broadcasting (opset >= 7) or
 * the legacy `broadcast`/`axis` attributes (opset < 7); folds constants,
 * integers with two's-complement wrap-around. */
#include "elementwise.h"

static double mul_f(double a, double b) { return a * b; }
static int64_t mul_i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static const op_binary_fn mul_fn = {mul_f, mul_i};

static pz_status mul_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_arith_infer(g, n, 1, &mul_fn, err);
}

static pz_status mul_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_arith_lower(g, n, PZ_BIN_MUL, out, err);
}

const op_def op_mul = {
    .name = "Mul",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = mul_infer,
    .lower = mul_lower,
    .takes_act = 1,
};
