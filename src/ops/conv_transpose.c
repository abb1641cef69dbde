/* conv_transpose.c - ConvTranspose: the gradient of Conv with respect to its
 * input ("deconvolution"), with groups, strides, dilations, pads, auto_pad,
 * output_padding and output_shape.
 *   X [N, C, D1..Dk], W [C, M/group, K1..Kk], B [M] (optional) -> Y [N, M, O1..Ok]
 *   O = stride * (D - 1) + output_padding + (K - 1) * dilation + 1 - pad_begin - pad_end
 * with SAME_UPPER/SAME_LOWER giving O = D * stride, and an output_shape
 * attribute giving O directly (the pads then follow from it: the total split
 * in half, the odd one at the end for SAME_UPPER, at the beginning otherwise;
 * a negative total is clamped to 0, leaving the extra output to the bias).
 * MACs: every input element scatters into (M/group) * prod(K) outputs:
 *   N * C * prod(D) * (M/group) * prod(K). */
#include "window.h"

typedef struct {
    op_window w;                           /* pads resolved by infer */
    int64_t group;
    int64_t out_pad[OP_MAX_SPATIAL];       /* output_padding */
    int64_t out_shape[OP_MAX_SPATIAL];     /* output_shape, if has_out_shape */
    int has_out_shape;
} conv_transpose_params;

static pz_status conv_transpose_parse(const ir_graph *g, const ir_node *n, void *params,
                                      pz_err *err)
{
    conv_transpose_params *p = params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1);
    if (!x || !w) return op_err(err, n, "input %s is missing", x ? "W" : "X");
    if (x->rank < 3) return op_err(err, n, "input X has rank %d, expected at least 3", x->rank);
    if (w->rank != x->rank)
        return op_err(err, n, "weight W has rank %d, input X has rank %d", w->rank, x->rank);
    int nsp = x->rank - 2, cnt;
    if (op_window_parse(n, nsp, w->dims + 2, &p->w, 0, err)) return err->code;
    if (op_attr_int(n, "group", 1, &p->group, err)) return err->code;
    if (p->group < 1)
        return op_err_attr(err, n, "group", "is %lld, must be >= 1", (long long)p->group);

    for (int i = 0; i < nsp; i++) p->out_pad[i] = 0;
    if (op_attr_ints(n, "output_padding", p->out_pad, OP_MAX_SPATIAL, &cnt, err)) return err->code;
    if (cnt >= 0 && cnt != nsp)
        return op_err_attr(err, n, "output_padding", "has %d entries, expected %d", cnt, nsp);
    for (int i = 0; i < nsp; i++) {
        int64_t lim = p->w.stride[i] > p->w.dilation[i] ? p->w.stride[i] : p->w.dilation[i];
        if (p->out_pad[i] < 0 || p->out_pad[i] >= lim)
            return op_err_attr(err, n, "output_padding", "entry %d is %lld, must be in [0, %lld) "
                               "(below the stride or the dilation)", i,
                               (long long)p->out_pad[i], (long long)lim);
    }

    /* output_shape: the spatial dims, or (leniently) [N, M, spatial...] */
    int64_t os[OP_MAX_SPATIAL + 2];
    if (op_attr_ints(n, "output_shape", os, OP_MAX_SPATIAL + 2, &cnt, err)) return err->code;
    p->has_out_shape = cnt >= 0;
    if (cnt >= 0) {
        if (cnt != nsp && cnt != nsp + 2)
            return op_err_attr(err, n, "output_shape", "has %d entries, expected %d (one per "
                               "spatial dim)", cnt, nsp);
        for (int i = 0; i < nsp; i++) {
            p->out_shape[i] = os[cnt - nsp + i];
            if (p->out_shape[i] < 1 || p->out_shape[i] > (int64_t)1 << 40)
                return op_err_attr(err, n, "output_shape", "entry %d is %lld, expected 1 to 2^40",
                                   cnt - nsp + i, (long long)p->out_shape[i]);
        }
    }
    return PZ_OK;
}

/* Output size along one spatial dim i, and the pads it implies. */
static pz_status spatial_out(const ir_node *n, conv_transpose_params *p, int i, int64_t in,
                             int64_t *out, pz_err *err)
{
    op_window *w = &p->w;
    int64_t ek = (w->kernel[i] - 1) * w->dilation[i] + 1;  /* < 2^60: window.c bounds */
    int64_t full;   /* the output with no padding at all */
    if (in == 0) { *out = 0; return PZ_OK; }
    if (__builtin_mul_overflow(w->stride[i], in - 1, &full) ||
        __builtin_add_overflow(full, p->out_pad[i] + ek, &full) || full > (int64_t)1 << 62)
        return op_err(err, n, "spatial dim %d: the output size overflows", i);
    int same = w->auto_pad == PAD_SAME_UPPER || w->auto_pad == PAD_SAME_LOWER;
    if (w->auto_pad == PAD_VALID) w->pad_begin[i] = w->pad_end[i] = 0;
    int64_t o = full - w->pad_begin[i] - w->pad_end[i];
    if (p->has_out_shape || same) {
        o = p->has_out_shape ? p->out_shape[i] : in * w->stride[i];
        int64_t total = full - o;
        if (total < 0) total = 0;
        int64_t half = total / 2;
        w->pad_begin[i] = w->auto_pad == PAD_SAME_UPPER ? half : total - half;
        w->pad_end[i] = total - w->pad_begin[i];
    }
    if (o < 1)
        return op_err(err, n, "spatial dim %d: the output size would be %lld (input %lld, pads "
                      "%lld and %lld)", i, (long long)o, (long long)in,
                      (long long)w->pad_begin[i], (long long)w->pad_end[i]);
    *out = o;
    return PZ_OK;
}

static pz_status conv_transpose_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    conv_transpose_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1), *b = op_in(g, n, 2);
    int64_t c = x->dims[1], m;
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "X must be a floating-point tensor, got %s", ir_dtype_name(x->dtype));
    if (x->dtype != w->dtype)
        return op_err(err, n, "X is %s but W is %s", ir_dtype_name(x->dtype),
                      ir_dtype_name(w->dtype));
    if (c % p->group)
        return op_err_attr(err, n, "group", "%lld does not divide the %lld input channels",
                           (long long)p->group, (long long)c);
    if (w->dims[0] != c)
        return op_err(err, n, "weight W has %lld input channels (dim 0), X has %lld",
                      (long long)w->dims[0], (long long)c);
    if (__builtin_mul_overflow(w->dims[1], p->group, &m))
        return op_err_attr(err, n, "group", "%lld groups of %lld output channels overflow",
                           (long long)p->group, (long long)w->dims[1]);
    if (b && (b->rank != 1 || b->dims[0] != m || b->dtype != x->dtype))
        return op_err(err, n, "bias B must be a 1-D %s tensor with %lld entries",
                      ir_dtype_name(x->dtype), (long long)m);
    int64_t dims[IR_MAX_RANK] = {x->dims[0], m};
    for (int i = 0; i < p->w.nsp; i++) {
        if (x->dims[2 + i] > (int64_t)1 << 60)
            return op_err(err, n, "spatial dim %d (%lld) is implausibly large", i,
                          (long long)x->dims[2 + i]);
        if (spatial_out(n, p, i, x->dims[2 + i], &dims[2 + i], err)) return err->code;
    }
    if (op_check_dims(n, x->rank, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

static void conv_transpose_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1);
    /* W has C * (M/group) * prod(K) elements: numel(W) / C per input element */
    int64_t per_in = w->dims[0] ? ir_tensor_numel(w) / w->dims[0] : 0;
    if (__builtin_mul_overflow(ir_tensor_numel(x), per_in, &c->macs)) c->macs = INT64_MAX;
}

/* CONV_TRANSPOSE: X, W, B? with the pads infer resolved, and a ReLU or Clip
 * the epilogue pass fused. output_padding and output_shape need no field:
 * the runtime takes the output's extent from Y's shape (pad_begin places the
 * first output; outputs past the last input's reach get the bias alone). */
static pz_status conv_transpose_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                      pz_err *err)
{
    const conv_transpose_params *p = n->params;
    pz_conv_params cp = {.group = p->group, .act = op_act(n)};
    if (op_window_conv_params(n, &p->w, &cp, err)) return err->code;
    op_lowered_init(out, n, PZ_OP_CONV_TRANSPOSE, &cp, sizeof cp);
    return PZ_OK;
}

const op_def op_conv_transpose = {
    .name = "ConvTranspose",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(conv_transpose_params),
    .parse = conv_transpose_parse,
    .infer = conv_transpose_infer,
    .cost = conv_transpose_cost,
    .lower = conv_transpose_lower,
    .takes_act = 1,
};
