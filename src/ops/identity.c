/* identity.c - Identity: Y = X, any tensor type; a constant input stays a
 * constant (so that shape arithmetic folds through it).
 *   X [any shape] -> Y [same shape, same type] */
#include "op.h"

static pz_status identity_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input 0 is missing");
    op_same_as(g, n, 0, 0);
    if (x->data && n->out[0] >= 0) ir_value_set_data(g, n->out[0], x->data, x->nbytes);
    return PZ_OK;
}

static pz_status identity_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
    return PZ_OK;
}

const op_def op_identity = {
    .name = "Identity",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = identity_infer,
    .lower = identity_lower,
    .view = 1,
};
