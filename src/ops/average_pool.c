/* average_pool.c - AveragePool: the mean over each window, with strides,
 * pads, auto_pad, ceil_mode (opset 10+) and dilations (opset 19+). Padding
 * counts in the divisor only when count_include_pad is 1 (opset 7+).
 *   X [N, C, D1..Dk] -> Y [N, C, O1..Ok]; floating-point only. */
#include "window.h"

typedef struct {
    op_window w;
    int64_t count_include_pad;
} average_pool_params;

static pz_status average_pool_parse(const ir_graph *g, const ir_node *n, void *params,
                                    pz_err *err)
{
    average_pool_params *p = params;
    if (op_pool_parse(g, n, &p->w, err)) return err->code;
    if (op_attr_int(n, "count_include_pad", 0, &p->count_include_pad, err)) return err->code;
    if (p->count_include_pad != 0 && p->count_include_pad != 1)
        return op_err_attr(err, n, "count_include_pad", "is %lld, must be 0 or 1",
                           (long long)p->count_include_pad);
    return PZ_OK;
}

static pz_status average_pool_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_pool_float_infer(g, n, &((average_pool_params *)n->params)->w, err);
}

/* POOL (AVG): pads resolved by infer (auto_pad); with ceil_mode the runtime
 * takes the window count from Y's shape, and a window running past the end
 * pad counts only what lies inside [-pad_begin, D + pad_end). */
static pz_status average_pool_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                    pz_err *err)
{
    const average_pool_params *p = n->params;
    pz_pool_params pp = {.kind = PZ_POOL_AVG, .count_include_pad = (int)p->count_include_pad};
    if (op_window_pool_params(n, &p->w, &pp, err)) return err->code;
    op_lowered_init(out, n, PZ_OP_POOL, &pp, sizeof pp);
    return PZ_OK;
}

const op_def op_average_pool = {
    .name = "AveragePool",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(average_pool_params),
    .parse = average_pool_parse,
    .infer = average_pool_infer,
    .lower = average_pool_lower,
};
