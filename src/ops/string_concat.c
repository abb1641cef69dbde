/* string_concat.c - StringConcat (opset 20): Y = X + Y as strings, element by
 * element, X and Y broadcast (numpy). Runs as the runtime's STR_CONCAT layer. */
#include "op.h"

static pz_status concat_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *a = op_in(g, n, 0), *b = op_in(g, n, 1);
    if (a->dtype != IR_STRING || b->dtype != IR_STRING)
        return op_err(err, n, "inputs are %s and %s, expected string", ir_dtype_name(a->dtype),
                      ir_dtype_name(b->dtype));
    ir_tensor y;
    if (op_broadcast(g, n, a, b, &y, err)) return err->code;
    op_set_out(g, n, 0, IR_STRING, y.rank, y.dims);
    return PZ_OK;
}

static pz_status concat_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    (void)g;
    (void)err;
    op_lowered_init(out, n, PZ_OP_STR_CONCAT, NULL, 0);
    return PZ_OK;
}

const op_def op_string_concat = {
    .name = "StringConcat",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = concat_infer,
    .lower = concat_lower,
    .takes_string = 1,
};
