/* space_to_depth.c - SpaceToDepth: b x b spatial blocks moved into channels.
 *   input [N, C, H, W] -> [N, C*b*b, H/b, W/b]; output channel
 *   (b1 * b + b2) * C + c holds X[n, c, h*b + b1, w*b + b2]. Runs as a VIEW. */
#include "view.h"

static pz_status space_to_depth_parse(const ir_graph *g, const ir_node *n, void *params,
                                      pz_err *err)
{
    pz_view_params *p = params;
    int64_t b;
    if (op_attr_int(n, "blocksize", 0, &b, err)) return err->code;
    if (!op_attr(n, "blocksize")) return op_err_attr(err, n, "blocksize", "is required");
    if (b < 1 || b > 1 << 20) return op_err_attr(err, n, "blocksize", "%lld is not positive",
                                                 (long long)b);
    p->func = PZ_VIEW_SPACE_TO_DEPTH;
    p->blocksize = (int)b;
    return PZ_OK;
}

static pz_status space_to_depth_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_view_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t b = p->blocksize;
    if (x->rank != 4) return op_err(err, n, "input has rank %d, expected 4", x->rank);
    if (x->dims[2] % b || x->dims[3] % b)
        return op_err(err, n, "input's H %lld and W %lld must be multiples of blocksize %lld",
                      (long long)x->dims[2], (long long)x->dims[3], (long long)b);
    int64_t dims[4] = {x->dims[0], x->dims[1] * b * b, x->dims[2] / b, x->dims[3] / b};
    return op_view_finish(g, n, 4, dims, err);
}

const op_def op_space_to_depth = {
    .name = "SpaceToDepth",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_view_params),
    .parse = space_to_depth_parse,
    .infer = space_to_depth_infer,
    .lower = op_view_lower,
};
