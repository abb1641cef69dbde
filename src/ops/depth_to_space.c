/* depth_to_space.c - DepthToSpace: channels moved into b x b spatial blocks.
 *   input [N, C, H, W] -> [N, C/(b*b), H*b, W*b]
 * mode DCR (default): X seen as [N, b, b, C', H, W]; CRD: as [N, C', b, b,
 * H, W]; either way transposed to [N, C', H, b, W, b]. Runs as a VIEW. */
#include <string.h>

#include "view.h"

static pz_status depth_to_space_parse(const ir_graph *g, const ir_node *n, void *params,
                                      pz_err *err)
{
    pz_view_params *p = params;
    int64_t b;
    const char *mode;
    if (op_attr_int(n, "blocksize", 0, &b, err) || op_attr_string(n, "mode", "DCR", &mode, err))
        return err->code;
    if (!op_attr(n, "blocksize")) return op_err_attr(err, n, "blocksize", "is required");
    if (b < 1 || b > 1 << 20) return op_err_attr(err, n, "blocksize", "%lld is not positive",
                                                 (long long)b);
    if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
        return op_err_attr(err, n, "mode", "\"%s\", expected DCR or CRD", mode);
    p->func = PZ_VIEW_DEPTH_TO_SPACE;
    p->blocksize = (int)b;
    p->crd = !strcmp(mode, "CRD");
    return PZ_OK;
}

static pz_status depth_to_space_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pz_view_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t b = p->blocksize;
    if (x->rank != 4) return op_err(err, n, "input has rank %d, expected 4", x->rank);
    if (x->dims[1] % (b * b))
        return op_err(err, n, "input has %lld channels, not a multiple of blocksize^2 = %lld",
                      (long long)x->dims[1], (long long)(b * b));
    int64_t dims[4] = {x->dims[0], x->dims[1] / (b * b), x->dims[2] * b, x->dims[3] * b};
    return op_view_finish(g, n, 4, dims, err);
}

const op_def op_depth_to_space = {
    .name = "DepthToSpace",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_view_params),
    .parse = depth_to_space_parse,
    .infer = depth_to_space_infer,
    .lower = op_view_lower,
};
