/* deform_conv.c - DeformConv (opset 19), 2-D:
 *   X [N, C, H, W], W [M, C/group, kh, kw], offset [N, OG*2*kh*kw, OH, OW],
 *   B? [M], mask? [N, OG*kh*kw, OH, OW] -> Y [N, M, OH, OW].
 * dilations, group, kernel_shape, offset_group (OG), pads, strides. MACs:
 * N*M*OH*OW*(C/group)*kh*kw. Runs as DEFORM_CONV (rt/ops/deform_conv.c). */
#include "window.h"

typedef struct {
    op_window w;
    int64_t group, offset_group;
} deform_conv_attrs;

static pz_status deform_conv_parse(const ir_graph *g, const ir_node *n, void *params,
                                   pz_err *err)
{
    deform_conv_attrs *a = params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1);
    if (!x || !w) return op_err(err, n, "needs the inputs X and W");
    if (x->rank != 4 || w->rank != 4)
        return op_err(err, n, "X has rank %d, W %d; only 2-D DeformConv (rank 4) is supported",
                      x->rank, w->rank);
    if (op_window_parse(n, 2, w->dims + 2, &a->w, 0, err) ||
        op_attr_int(n, "group", 1, &a->group, err) ||
        op_attr_int(n, "offset_group", 1, &a->offset_group, err))
        return err->code;
    if (a->group < 1) return op_err_attr(err, n, "group", "must be >= 1");
    if (a->offset_group < 1) return op_err_attr(err, n, "offset_group", "must be >= 1");
    return PZ_OK;
}

static pz_status deform_conv_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    deform_conv_attrs *a = n->params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1), *o = op_in(g, n, 2);
    if (!o) return op_err(err, n, "needs the input offset");
    for (int i = 1; i < 5; i++) {
        const ir_tensor *t = op_in(g, n, i);
        if (t && t->dtype != x->dtype)
            return op_err(err, n, "input %d has type %s, X %s", i, ir_dtype_name(t->dtype),
                          ir_dtype_name(x->dtype));
    }
    if (!ir_dtype_is_float(x->dtype))
        return op_err(err, n, "input X has type %s, expected a float type",
                      ir_dtype_name(x->dtype));
    int64_t C = x->dims[1], M = w->dims[0];
    if (C % a->group || M % a->group || w->dims[1] != C / a->group)
        return op_err(err, n, "W [%lld, %lld, ..] does not fit X's %lld channels in %lld groups",
                      (long long)M, (long long)w->dims[1], (long long)C, (long long)a->group);
    if (C % a->offset_group)
        return op_err_attr(err, n, "offset_group", "%lld does not divide the %lld channels",
                           (long long)a->offset_group, (long long)C);
    int64_t out[2];
    if (op_window_out(n, &a->w, x->dims + 2, out, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, 4, (int64_t[]){x->dims[0], M, out[0], out[1]});
    return PZ_OK;
}

static void deform_conv_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *w = op_in(g, n, 1), *y = op_out((ir_graph *)g, n, 0);
    if (w && y) c->macs = ir_tensor_numel(y) * w->dims[1] * w->dims[2] * w->dims[3];
}

static pz_status deform_conv_lower(const ir_graph *g, const ir_node *n, op_lowered *out,
                                   pz_err *err)
{
    const deform_conv_attrs *a = n->params;
    pz_deform_conv_params p = {.group = a->group, .offset_group = a->offset_group};
    for (int i = 0; i < 2; i++) {
        p.kernel[i] = a->w.kernel[i];
        p.stride[i] = a->w.stride[i];
        p.dilation[i] = a->w.dilation[i];
        p.pad_begin[i] = a->w.pad_begin[i];
        p.pad_end[i] = a->w.pad_end[i];
    }
    op_lowered_init(out, n, PZ_OP_DEFORM_CONV, &p, sizeof p);
    return PZ_OK;
}

const op_def op_deform_conv = {
    .name = "DeformConv",
    .min_in = 3, .max_in = 5, .min_out = 1, .max_out = 1,
    .params_size = sizeof(deform_conv_attrs),
    .parse = deform_conv_parse,
    .infer = deform_conv_infer,
    .cost = deform_conv_cost,
    .lower = deform_conv_lower,
};
