/* window.c - sliding-window attribute parsing and output size. */
#include "window.h"

#include <string.h>

/* The largest spatial input size: with kernel, stride and dilation below
 * 2^30 and pads below 2^40, every intermediate stays below 2^62. */
#define OP_WINDOW_MAX_IN ((int64_t)1 << 60)

pz_status op_window_parse(const ir_node *n, int nsp, const int64_t *kernel_from, op_window *w,
                          int allow_ceil, pz_err *err)
{
    int cnt;
    memset(w, 0, sizeof *w);
    if (nsp < 1 || nsp > OP_MAX_SPATIAL)
        return op_err(err, n, "input rank %d is not supported (1 to %d spatial dims)", nsp + 2,
                      OP_MAX_SPATIAL);
    w->nsp = nsp;
    if (op_attr_ints(n, "kernel_shape", w->kernel, OP_MAX_SPATIAL, &cnt, err)) return err->code;
    if (cnt >= 0) {
        if (cnt != nsp)
            return op_err_attr(err, n, "kernel_shape", "has %d entries, the input has %d spatial "
                               "dims", cnt, nsp);
        if (kernel_from)
            for (int i = 0; i < nsp; i++)
                if (w->kernel[i] != kernel_from[i])
                    return op_err_attr(err, n, "kernel_shape", "entry %d is %lld, the weight's is "
                                       "%lld", i, (long long)w->kernel[i], (long long)kernel_from[i]);
        w->has_kernel = 1;
    } else if (kernel_from) {
        memcpy(w->kernel, kernel_from, (size_t)nsp * sizeof(int64_t));
    } else {
        return op_err_attr(err, n, "kernel_shape", "is required");
    }
    for (int i = 0; i < nsp; i++) {
        if (w->kernel[i] < 1)
            return op_err_attr(err, n, "kernel_shape", "entry %d is %lld, must be >= 1", i,
                               (long long)w->kernel[i]);
        w->stride[i] = w->dilation[i] = 1;
    }
    if (op_attr_ints(n, "strides", w->stride, OP_MAX_SPATIAL, &cnt, err)) return err->code;
    if (cnt >= 0 && cnt != nsp)
        return op_err_attr(err, n, "strides", "has %d entries, expected %d", cnt, nsp);
    if (op_attr_ints(n, "dilations", w->dilation, OP_MAX_SPATIAL, &cnt, err)) return err->code;
    if (cnt >= 0 && cnt != nsp)
        return op_err_attr(err, n, "dilations", "has %d entries, expected %d", cnt, nsp);
    int64_t pads[2 * OP_MAX_SPATIAL] = {0};
    if (op_attr_ints(n, "pads", pads, 2 * OP_MAX_SPATIAL, &cnt, err)) return err->code;
    if (cnt >= 0 && cnt != 2 * nsp)
        return op_err_attr(err, n, "pads", "has %d entries, expected %d", cnt, 2 * nsp);
    for (int i = 0; i < nsp; i++) {
        if (w->stride[i] < 1)
            return op_err_attr(err, n, "strides", "entry %d is %lld, must be >= 1", i,
                               (long long)w->stride[i]);
        if (w->dilation[i] < 1)
            return op_err_attr(err, n, "dilations", "entry %d is %lld, must be >= 1", i,
                               (long long)w->dilation[i]);
        w->pad_begin[i] = pads[i];
        w->pad_end[i] = pads[i + nsp];
        if (pads[i] < 0 || pads[i + nsp] < 0)
            return op_err_attr(err, n, "pads", "must be non-negative");
        /* bounds that keep every size computed from them within int64:
         * (k - 1) * d < 2^60, in + pads < 2^62 (in is bounded below) */
        if (w->kernel[i] > (int64_t)1 << 30 || w->stride[i] > (int64_t)1 << 30 ||
            w->dilation[i] > (int64_t)1 << 30 || pads[i] > (int64_t)1 << 40 ||
            pads[i + nsp] > (int64_t)1 << 40)
            return op_err(err, n, "kernel, stride, dilation or pad value is implausibly large");
    }
    const char *ap;
    if (op_attr_string(n, "auto_pad", "NOTSET", &ap, err)) return err->code;
    if (!strcmp(ap, "NOTSET") || !ap[0]) w->auto_pad = PAD_NOTSET;
    else if (!strcmp(ap, "SAME_UPPER")) w->auto_pad = PAD_SAME_UPPER;
    else if (!strcmp(ap, "SAME_LOWER")) w->auto_pad = PAD_SAME_LOWER;
    else if (!strcmp(ap, "VALID")) w->auto_pad = PAD_VALID;
    else return op_err_attr(err, n, "auto_pad", "unknown value \"%s\"", ap);
    int64_t ceil_mode = 0;
    if (allow_ceil && op_attr_int(n, "ceil_mode", 0, &ceil_mode, err)) return err->code;
    w->ceil_mode = ceil_mode != 0;
    return PZ_OK;
}

pz_status op_window_out(const ir_node *n, op_window *w, const int64_t *in, int64_t *out,
                        pz_err *err)
{
    for (int i = 0; i < w->nsp; i++) {
        if (in[i] > OP_WINDOW_MAX_IN)
            return op_err(err, n, "spatial dim %d (%lld) is implausibly large", i,
                          (long long)in[i]);
        int64_t ek = (w->kernel[i] - 1) * w->dilation[i] + 1;  /* effective kernel extent */
        if (w->auto_pad == PAD_SAME_UPPER || w->auto_pad == PAD_SAME_LOWER) {
            /* ONNX Runtime's split, C division: total < 0 when the stride
             * exceeds the kernel extent, and a negative head then moves
             * every window into the input (ONNX does not clamp it to 0) */
            int64_t o = (in[i] + w->stride[i] - 1) / w->stride[i];
            int64_t total = (o - 1) * w->stride[i] + ek - in[i];
            int64_t head = w->auto_pad == PAD_SAME_UPPER ? total / 2 : (total + 1) / 2;
            if (head < 0)
                return op_err_attr(err, n, "auto_pad", "%s with stride %lld over kernel extent "
                                   "%lld on spatial dim %d (size %lld) pads by %lld (negative: "
                                   "the windows start inside the input), which the runtime does "
                                   "not support; give explicit pads instead",
                                   w->auto_pad == PAD_SAME_UPPER ? "SAME_UPPER" : "SAME_LOWER",
                                   (long long)w->stride[i], (long long)ek, i, (long long)in[i],
                                   (long long)head);
            /* a negative tail only leaves input past the last window unread */
            w->pad_begin[i] = head;
            w->pad_end[i] = total - head > 0 ? total - head : 0;
            out[i] = o;
            continue;
        }
        if (w->auto_pad == PAD_VALID) w->pad_begin[i] = w->pad_end[i] = 0;
        int64_t span = in[i] + w->pad_begin[i] + w->pad_end[i] - ek;
        if (span < 0)
            return op_err(err, n, "spatial dim %d: input %lld plus padding is smaller than the "
                          "kernel extent %lld", i, (long long)in[i], (long long)ek);
        int64_t o = (w->ceil_mode ? (span + w->stride[i] - 1) / w->stride[i] : span / w->stride[i]) + 1;
        /* ceil_mode: the last window must start inside the input or left padding */
        if (w->ceil_mode && (o - 1) * w->stride[i] >= in[i] + w->pad_begin[i]) o--;
        out[i] = o;
    }
    return PZ_OK;
}

pz_status op_pool_parse(const ir_graph *g, const ir_node *n, op_window *w, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input X is missing");
    if (x->rank < 3)
        return op_err(err, n, "input X has rank %d, expected at least 3 ([N, C, D1, ...])",
                      x->rank);
    if (op_window_parse(n, x->rank - 2, NULL, w, 1, err)) return err->code;
    /* a window lying wholly in the padding would have nothing to pool */
    for (int i = 0; i < w->nsp; i++)
        if (w->auto_pad == PAD_NOTSET &&
            (w->pad_begin[i] >= w->kernel[i] || w->pad_end[i] >= w->kernel[i]))
            return op_err_attr(err, n, "pads", "spatial dim %d: pads %lld and %lld must be smaller "
                               "than the kernel (%lld)", i, (long long)w->pad_begin[i],
                               (long long)w->pad_end[i], (long long)w->kernel[i]);
    return PZ_OK;
}

/* The first spatial axis (2 .. rank - 1) of X with size 0, or -1. */
static int empty_spatial_axis(const ir_tensor *x)
{
    for (int d = 2; d < x->rank; d++)
        if (x->dims[d] == 0) return d;
    return -1;
}

pz_status op_pool_out(const ir_graph *g, const ir_node *n, op_window *w, int64_t *dims,
                      pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    PZ_ASSERT(x && x->rank == w->nsp + 2);
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    /* an empty spatial axis leaves every window wholly in the padding (the
     * pads are smaller than the kernel only along a non-empty axis) */
    const int ax = empty_spatial_axis(x);
    char sx[128];
    if (ax >= 0)
        return op_err(err, n, "input X is %s: axis %d has size 0, so every window would lie "
                      "wholly in the padding, with nothing to pool",
                      ir_shape_str(x, sx, sizeof sx), ax);
    if (op_window_out(n, w, x->dims + 2, dims + 2, err)) return err->code;
    return op_check_dims(n, x->rank, dims, err);
}

pz_status op_global_pool_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!x) return op_err(err, n, "input X is missing");
    if (x->rank < 2)
        return op_err(err, n, "input X has rank %d, expected at least 2 ([N, C, D1, ...])",
                      x->rank);
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "input must be a floating-point tensor, got %s",
                      ir_dtype_name(x->dtype));
    const int ax = empty_spatial_axis(x);
    char sx[128];
    if (ax >= 0)
        return op_err(err, n, "input X is %s: axis %d has size 0, with nothing to pool",
                      ir_shape_str(x, sx, sizeof sx), ax);
    int64_t dims[IR_MAX_RANK];
    for (int d = 0; d < x->rank; d++) dims[d] = d < 2 ? x->dims[d] : 1;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

static pz_status too_many_spatial(const ir_node *n, int nsp, pz_err *err)
{
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): %d spatial dims; the runtime "
                   "supports 1 to %d", n->name, n->op_type, nsp, PZ_MAX_SPATIAL);
}

/* The runtime's window arrays, from a window resolved by infer. */
static void copy_window(const op_window *w, int64_t *kernel, int64_t *stride, int64_t *dilation,
                        int64_t *pad_begin, int64_t *pad_end)
{
    for (int i = 0; i < w->nsp; i++) {
        kernel[i] = w->kernel[i];
        stride[i] = w->stride[i];
        dilation[i] = w->dilation[i];
        pad_begin[i] = w->pad_begin[i];
        pad_end[i] = w->pad_end[i];
    }
}

pz_status op_window_conv_params(const ir_node *n, const op_window *w, pz_conv_params *cp,
                                pz_err *err)
{
    if (w->nsp < 1 || w->nsp > PZ_MAX_SPATIAL) return too_many_spatial(n, w->nsp, err);
    cp->nsp = w->nsp;
    copy_window(w, cp->kernel, cp->stride, cp->dilation, cp->pad_begin, cp->pad_end);
    return PZ_OK;
}

pz_status op_window_pool_params(const ir_node *n, const op_window *w, pz_pool_params *pp,
                                pz_err *err)
{
    if (w->nsp < 1 || w->nsp > PZ_MAX_SPATIAL) return too_many_spatial(n, w->nsp, err);
    pp->nsp = w->nsp;
    copy_window(w, pp->kernel, pp->stride, pp->dilation, pp->pad_begin, pp->pad_end);
    return PZ_OK;
}

pz_status op_global_pool_lower(const ir_graph *g, const ir_node *n, pz_pool_kind kind,
                               op_lowered *out, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int nsp = x->rank - 2;
    if (nsp == 0) {   /* [N, C] -> [N, C]: nothing to pool */
        op_lowered_init(out, n, PZ_OP_COPY, NULL, 0);
        return PZ_OK;
    }
    if (nsp > PZ_MAX_SPATIAL) return too_many_spatial(n, nsp, err);
    pz_pool_params pp = {.kind = kind, .nsp = nsp};
    for (int i = 0; i < nsp; i++) {
        pp.kernel[i] = x->dims[2 + i];
        pp.stride[i] = pp.dilation[i] = 1;
    }
    op_lowered_init(out, n, PZ_OP_POOL, &pp, sizeof pp);
    return PZ_OK;
}

pz_status op_pool_float_infer(ir_graph *g, ir_node *n, op_window *w, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "X must be a floating-point tensor, got %s", ir_dtype_name(x->dtype));
    int64_t dims[IR_MAX_RANK];
    if (op_pool_out(g, n, w, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}
