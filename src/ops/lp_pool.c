/* lp_pool.c - LpPool (opsets 11, 18, 22): the p-norm of each window,
 * (sum |x|^p)^(1/p), with strides, pads, auto_pad, dilations and ceil_mode
 * (opset 18+); padding adds nothing.
 *   X [N, C, D1..Dk] (k 1 to 3, float types) -> Y [N, C, O1..Ok]
 * p is an int (default 2). Runs as LP_POOL (rt/ops/lp_pool.c). */
#include "window.h"

typedef struct {
    op_window w;
    int64_t p;
} lp_pool_params;

static pz_status lp_pool_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    lp_pool_params *p = params;
    if (op_pool_parse(g, n, &p->w, err)) return err->code;
    if (op_attr_int(n, "p", 2, &p->p, err)) return err->code;
    if (p->p < 1) return op_err_attr(err, n, "p", "is %lld, must be >= 1", (long long)p->p);
    return PZ_OK;
}

static pz_status lp_pool_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    return op_pool_float_infer(g, n, &((lp_pool_params *)n->params)->w, err);
}

/* Pads resolved by infer (auto_pad); with ceil_mode the runtime takes the
 * window count from Y's shape, and taps past the input add nothing. */
static pz_status lp_pool_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                               pz_err *err)
{
    const lp_pool_params *p = n->params;
    pz_pool_params pp = {.kind = PZ_POOL_AVG};
    if (op_window_pool_params(n, &p->w, &pp, err)) return err->code;
    pz_lp_pool_params lp = {.nsp = pp.nsp, .p = p->p};
    for (int a = 0; a < PZ_MAX_SPATIAL; a++) {
        lp.kernel[a] = pp.kernel[a];
        lp.stride[a] = pp.stride[a];
        lp.dilation[a] = pp.dilation[a];
        lp.pad_begin[a] = pp.pad_begin[a];
        lp.pad_end[a] = pp.pad_end[a];
    }
    op_lowered_init(out, n, PZ_OP_LP_POOL, &lp, sizeof lp);
    return PZ_OK;
}

const op_def op_lp_pool = {
    .name = "LpPool",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(lp_pool_params),
    .parse = lp_pool_parse,
    .infer = lp_pool_infer,
    .lower = lp_pool_lower,
};
