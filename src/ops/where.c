/* where.c - Where: Y = condition ? X : Y element by element.
 *   condition (bool), X, Y (one type) -> output of that type, the shape of
 *   the three broadcast together (numpy, multidirectional). No MACs.
 * Runs as the runtime's WHERE layer (rt/ops/where.c). */
#include <string.h>

#include "op.h"

static pz_status where_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *c = op_in(g, n, 0), *x = op_in(g, n, 1), *y = op_in(g, n, 2);
    if (!c || !x || !y) return op_err(err, n, "needs the inputs condition, X and Y");
    if (c->dtype != IR_BOOL)
        return op_err(err, n, "input condition has type %s, expected bool",
                      ir_dtype_name(c->dtype));
    if (x->dtype != y->dtype)
        return op_err(err, n, "inputs X (%s) and Y (%s) must have one type",
                      ir_dtype_name(x->dtype), ir_dtype_name(y->dtype));
    ir_tensor cx, out;
    memset(&cx, 0, sizeof cx);
    memset(&out, 0, sizeof out);
    if (op_broadcast(n, c, x, &cx, err) || op_broadcast(n, &cx, y, &out, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, out.rank, out.dims);
    return PZ_OK;
}

static pz_status where_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_WHERE, NULL, 0);
    return PZ_OK;
}

const op_def op_where = {
    .name = "Where",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .infer = where_infer,
    .lower = where_lower,
};
