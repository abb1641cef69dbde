/* castlike.c - CastLike (opset 15+): Cast input 0 to the element type of
 * input 1 (target_type; only its type matters, never its values or shape).
 *   input [d...], target_type [any] -> output [d...] of target_type's type
 * Attributes saturate (opset 19+) and round_mode (opset 25) as in Cast; the
 * conversion is Cast's (cast.c, the runtime's CAST layer). */
#include "cast.h"

static pz_status castlike_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return cast_parse_rounding(n, "CastLike", params, err);
}

static pz_status castlike_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    cast_params *p = n->params;
    const ir_tensor *like = op_in(g, n, 1);
    if (!like) return op_err(err, n, "input 1 (target_type) is missing");
    if (cast_check_target(n, "CastLike", "input 1 (target_type)", like->dtype, err))
        return err->code;
    p->to = like->dtype;
    return cast_infer_to(g, n, p, err);
}

/* One CAST layer reading input 0 only: target_type is not an input of it. */
static pz_status castlike_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    cast_lower_with(n, n->params, out);
    out->n_in = 1;
    return PZ_OK;
}

const op_def op_castlike = {
    .name = "CastLike",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(cast_params),
    .parse = castlike_parse,
    .infer = castlike_infer,
    .cost = NULL,
    .lower = castlike_lower,
};
