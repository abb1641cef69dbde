/* pow.c - Pow: Z = X ^ Y with multidirectional broadcasting (legacy
 * `broadcast`/`axis` before opset 7). X and Y may differ in type (opset 12+);
 * Z has X's type. Folds constants: integer powers by repeated squaring with
 * wrap-around, anything involving a float through pow(). */
#include <math.h>

#include "elementwise.h"

static double pow_f(double a, double b) { return pow(a, b); }

static int64_t pow_i(int64_t a, int64_t b)
{
    if (b < 0) /* 1/a^|b| truncated toward zero; 0^-k is left at 0 */
        return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    uint64_t r = 1, base = (uint64_t)a;
    for (uint64_t e = (uint64_t)b; e; e >>= 1) {
        if (e & 1) r *= base;
        base *= base;
    }
    return (int64_t)r;
}
static const op_binary_fn pow_fn = {pow_f, pow_i};

static pz_status pow_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *y = op_in(g, n, 1);
    if (x && y && g->opset < 12 && x->dtype != y->dtype)
        return op_err(err, n, "X is %s but Y is %s (opset %d requires equal types)",
                      ir_dtype_name(x->dtype), ir_dtype_name(y->dtype), g->opset);
    return op_arith_infer(g, n, 0, &pow_fn, err);
}

static pz_status pow_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return op_arith_lower(g, n, PZ_BIN_POW, out, err);
}

const op_def op_pow = {
    .name = "Pow",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = pow_infer,
    .lower = pow_lower,
    .takes_act = 1,
};
