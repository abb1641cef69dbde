/* grid_sample.c - GridSample (opsets 16, 20, 22):
 *   X [N, C, D1..Dr] (r 1 to 3), grid [N, O1..Or, r] (normalised, x first)
 *   -> Y [N, C, O1..Or].
 * mode bilinear/linear, nearest, bicubic/cubic; padding_mode zeros, border,
 * reflection; align_corners. No MACs. Runs as GRID_SAMPLE
 * (rt/ops/grid_sample.c). */
#include <string.h>

#include "op.h"

static pz_status grid_sample_parse(const ir_graph *g, const ir_node *n, void *params,
                                   pz_err *err)
{
    pz_grid_sample_params *p = params;
    const char *mode, *pad;
    int64_t ac;
    if (op_attr_string(n, "mode", "linear", &mode, err) ||
        op_attr_string(n, "padding_mode", "zeros", &pad, err) ||
        op_attr_int(n, "align_corners", 0, &ac, err))
        return err->code;
    if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear")) p->mode = PZ_GS_LINEAR;
    else if (!strcmp(mode, "nearest")) p->mode = PZ_GS_NEAREST;
    else if (!strcmp(mode, "cubic") || !strcmp(mode, "bicubic")) p->mode = PZ_GS_CUBIC;
    else return op_err_attr(err, n, "mode", "is \"%s\", expected linear, nearest or cubic", mode);
    if (!strcmp(pad, "zeros")) p->padding = PZ_GS_ZEROS;
    else if (!strcmp(pad, "border")) p->padding = PZ_GS_BORDER;
    else if (!strcmp(pad, "reflection")) p->padding = PZ_GS_REFLECTION;
    else return op_err_attr(err, n, "padding_mode", "is \"%s\", expected zeros, border or "
                            "reflection", pad);
    p->align_corners = ac != 0;
    return PZ_OK;
}

static pz_status grid_sample_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0), *grid = op_in(g, n, 1);
    if (!x || !grid) return op_err(err, n, "needs the inputs X and grid");
    if (!ir_dtype_is_float(x->dtype) || grid->dtype != x->dtype)
        return op_err(err, n, "inputs X (%s) and grid (%s) must be of one float type",
                      ir_dtype_name(x->dtype), ir_dtype_name(grid->dtype));
    int nsp = x->rank - 2;
    if (nsp < 1 || nsp > 3)
        return op_err(err, n, "input X has rank %d; 3 to 5 are supported", x->rank);
    if (grid->rank != x->rank || grid->dims[0] != x->dims[0] || grid->dims[nsp + 1] != nsp)
        return op_err(err, n, "input grid must be [N, out..., %d] with X's N", nsp);
    /* Every sample reads X's pixels (border and reflection clamp into X):
     * an empty spatial axis leaves nothing to read. */
    for (int i = 0; i < nsp; i++)
        if (x->dims[2 + i] == 0 && ir_tensor_numel(grid) > 0)
            return op_err(err, n, "input X has an empty spatial axis (dim %d is 0): there is "
                          "nothing to sample", 2 + i);
    int64_t dims[IR_MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int i = 0; i < nsp; i++) dims[2 + i] = grid->dims[1 + i];
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

static pz_status grid_sample_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_GRID_SAMPLE, n->params, sizeof(pz_grid_sample_params));
    return PZ_OK;
}

const op_def op_grid_sample = {
    .name = "GridSample",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_grid_sample_params),
    .parse = grid_sample_parse,
    .infer = grid_sample_infer,
    .lower = grid_sample_lower,
};
