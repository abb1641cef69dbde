/* bit_shift.c - BitShift: Z = X << Y or X >> Y (attribute direction, "LEFT"
 * or "RIGHT", required) element by element, X and Y of one unsigned integer
 * type, broadcast (numpy); Z has their type. A shift by the type's width or
 * more gives 0. Folds constants. Runs as the runtime's BINARY layer. */
#include <string.h>

#include "compare.h"

typedef struct {
    int left;
} bit_shift_params;

/* unsigned values, zero-extended: the store keeps the type's low bits */
static int64_t shl_i(int64_t a, int64_t b)
{
    return (uint64_t)b >= 64 ? 0 : (int64_t)((uint64_t)a << b);
}
static int64_t shr_i(int64_t a, int64_t b)
{
    return (uint64_t)b >= 64 ? 0 : (int64_t)((uint64_t)a >> b);
}
static const op_binary_fn shl_fn = {NULL, shl_i}, shr_fn = {NULL, shr_i};

static pz_status bit_shift_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    bit_shift_params *p = params;
    const char *dir;
    if (!op_attr(n, "direction"))
        return op_err_attr(err, n, "direction", "is required (\"LEFT\" or \"RIGHT\")");
    if (op_attr_string(n, "direction", "", &dir, err)) return err->code;
    if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
        return op_err_attr(err, n, "direction", "is \"%s\", expected \"LEFT\" or \"RIGHT\"", dir);
    p->left = !strcmp(dir, "LEFT");
    return PZ_OK;
}

static pz_status bit_shift_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const bit_shift_params *p = n->params;
    if (op_want_types(g, n, OP_TY_UNSIGNED, err)) return err->code;
    return op_binary_infer(g, n, 1, -1, p->left ? &shl_fn : &shr_fn, err);
}

static pz_status bit_shift_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                 pz_err *err)
{
    const bit_shift_params *p = n->params;
    return op_arith_lower(g, n, p->left ? PZ_BIN_SHL : PZ_BIN_SHR, out, err);
}

const op_def op_bit_shift = {
    .name = "BitShift",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(bit_shift_params),
    .parse = bit_shift_parse,
    .infer = bit_shift_infer,
    .lower = bit_shift_lower,
};
