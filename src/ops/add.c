/* add.c - Add: C = A + B with multidirectional broadcasting; folds constants. */
#include "elementwise.h"

static double add_f(double a, double b) { return a + b; }
static int64_t add_i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static const op_binary_fn add_fn = {add_f, add_i};

static pz_status add_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_arith_infer(g, n, 1, &add_fn, err);
}

static pz_status add_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_arith_lower(g, n, PZ_BIN_ADD, out, err);
}

const op_def op_add = {
    .name = "Add",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = add_infer,
    .lower = add_lower,
    .takes_act = 1,
};
