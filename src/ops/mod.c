/* mod.c - Mod: C = A mod B element by element, A and B of one numeric type,
 * broadcast (numpy); C has their type. Attribute fmod (default 0): 0 gives
 * the remainder with the divisor's sign (Python's %), 1 the dividend's (C's
 * fmod, %). The spec asks fmod=1 for floats; fmod=0 on floats is computed
 * with the divisor's sign as well. An integer x mod 0 is 0 (no trap).
 * Folds constants. Runs as the runtime's BINARY layer. */
#include <math.h>

#include "compare.h"

typedef struct {
    int fmod;
} mod_params;

static double fmod_f(double a, double b) { return fmod(a, b); }
static double mod_f(double a, double b)
{
    double r = fmod(a, b);
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}
static int64_t fmod_i(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }
static int64_t mod_i(int64_t a, int64_t b)
{
    int64_t r = fmod_i(a, b);
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}
static const op_binary_fn fmod_fn = {fmod_f, fmod_i}, mod_fn = {mod_f, mod_i};

static pz_status mod_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    mod_params *p = params;
    int64_t v;
    if (op_attr_int(n, "fmod", 0, &v, err)) return err->code;
    if (v != 0 && v != 1) return op_err_attr(err, n, "fmod", "is %lld, expected 0 or 1", (long long)v);
    p->fmod = (int)v;
    return PZ_OK;
}

static pz_status mod_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const mod_params *p = n->params;
    if (op_want_types(g, n, OP_TY_NUMERIC, err)) return err->code;
    return op_binary_infer(g, n, 1, -1, p->fmod ? &fmod_fn : &mod_fn, err);
}

static pz_status mod_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const mod_params *p = n->params;
    return op_arith_lower(g, n, p->fmod ? PZ_BIN_FMOD : PZ_BIN_MOD, out, err);
}

const op_def op_mod = {
    .name = "Mod",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(mod_params),
    .parse = mod_parse,
    .infer = mod_infer,
    .lower = mod_lower,
};
