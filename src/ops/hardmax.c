/* hardmax.c - Hardmax: 1 at the first maximum along an axis, 0 elsewhere;
 * floating-point only.
 *   X [any shape] -> Y [same shape, same type]
 * axis: default 1 before opset 13, where X is viewed as 2-D
 * [prod(dims[:axis]), prod(dims[axis:])] and the op runs over each row (as
 * Softmax); from opset 13 default -1, along that axis alone.
 * Runs as the runtime's ARG layer, func HARDMAX (rt/ops/arg.c). */
#include "elementwise.h"
#include "reduce.h"
#include "../rt/kernels/kernels.h"

static pz_arg_params hardmax_rt(const ir_node *n)
{
    const op_softmax_params *p = n->params;
    return (pz_arg_params){.func = PZ_ARG_HARDMAX, .axis = p->axis, .coerce_2d = p->coerce_2d};
}

static pz_status hardmax_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (op_want_numeric(n, x, "input", 0, 0, err)) return err->code;
    op_same_as(g, n, 0, 0);
    void *buf = op_fold_start(g, n, 0, x);
    if (!buf) return PZ_OK;
    pz_arg_params ap = hardmax_rt(n);
    pz_axis_shape s = pz_axis_shape_of(x->rank, x->dims, ap.axis, ap.coerce_2d);
    pz_any_arg__ref(&ap, x->dtype, &s, x->data, buf, 0, 1);
    op_fold_finish(g, n, 0, buf);
    return PZ_OK;
}

static pz_status hardmax_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    pz_arg_params ap = hardmax_rt(n);
    op_lowered_init(out, n, PZ_OP_ARG, &ap, sizeof ap);
    return PZ_OK;
}

const op_def op_hardmax = {
    .name = "Hardmax",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_softmax_params),
    .parse = op_softmax_parse,
    .infer = hardmax_infer,
    .lower = hardmax_lower,
};
