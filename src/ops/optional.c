/* optional.c - Optional: an optional holding its input, or empty without
 * one. Nothing runs (op_seq.h): OptionalHasElement and OptionalGetElement
 * read it at compile time. */
#include "op_seq.h"

static pz_status optional_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    (void)err;
    const ir_tensor *x = op_in(g, n, 0);
    op_set_container(g, n, IR_KIND_OPT, x ? x->dtype : IR_F32);
    return PZ_OK;
}

const op_def op_optional = {
    .name = "Optional",
    .min_in = 0, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = optional_infer,
    .takes_seq = 1,   /* an optional may hold a sequence */
};
