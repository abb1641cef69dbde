/* center_crop_pad.c - CenterCropPad: crops or zero-pads the given axes to a
 * size, centred.
 *   input_data [dims], shape int64 [len(axes)] (constant), attribute axes
 *   (default: all) -> [dims with dims[axes[i]] = shape[i]]
 * A cropped axis keeps from floor((d - s) / 2); a padded one puts the input
 * at floor((s - d) / 2) (the ONNX reference's rule). Runs as a VIEW.
 * A shape nothing binds (op_rt_ints) is read at run time: the VIEW gets
 * input 1 and which entry sizes each axis (rt_sizes, start), Y has no compile-time bound
 * (X's dims stand in) and the net allocates it. */
#include <string.h>

#include "view.h"

static pz_status center_crop_pad_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    pz_view_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    int64_t shape[IR_MAX_RANK], axes_raw[IR_MAX_RANK], dims[IR_MAX_RANK];
    int k, na, axes[IR_MAX_RANK];
    const int rt = op_rt_ints(g, n, 1, IR_MAX_RANK, &k);
    if ((!rt && op_const_ints(g, n, 1, "shape", shape, IR_MAX_RANK, &k, err)) ||
        op_attr_ints(n, "axes", axes_raw, IR_MAX_RANK, &na, err))
        return err->code;
    if (na < 0) {
        na = x->rank;
        for (int i = 0; i < na; i++) axes_raw[i] = i;
    }
    if (op_axes_list(n, "axes", axes_raw, na, x->rank, axes, err)) return err->code;
    if (k != na)
        return op_err(err, n, "input shape has %d entries, axes %d: they must agree", k, na);
    memset(p, 0, sizeof *p);
    p->func = PZ_VIEW_CROP_PAD;
    for (int i = 0; i < x->rank; i++) dims[i] = x->dims[i];
    if (rt) {
        if (!ir_dtype_size(x->dtype))
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (CenterCropPad): input has "
                           "type %s, not supported", n->name, ir_dtype_name(x->dtype));
        p->rt_sizes = 1;
        for (int i = 0; i < na; i++) p->start[axes[i]] = 1 + i;
        op_set_out(g, n, 0, x->dtype, x->rank, dims);
        op_set_rt_alloc(g, n, 0);
        return PZ_OK;
    }
    for (int i = 0; i < na; i++) {
        int64_t d = x->dims[axes[i]], s = shape[i];
        if (s < 0) return op_err(err, n, "shape[%d] is %lld, negative", i, (long long)s);
        dims[axes[i]] = s;
        p->start[axes[i]] = s <= d ? (d - s) / 2 : -((s - d) / 2);
    }
    return op_view_finish(g, n, x->rank, dims, err);
}

const op_def op_center_crop_pad = {
    .name = "CenterCropPad",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pz_view_params),
    .infer = center_crop_pad_infer,
    .lower = op_view_lower,
};
