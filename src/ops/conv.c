/* conv.c - Conv: N-d convolution with groups (depthwise when group == C),
 * dilations, strides, pads and auto_pad.
 *   X [N, C, D1..Dk], W [M, C/group, K1..Kk], B [M] (optional) -> Y [N, M, O1..Ok]
 * MACs (DLFusion Eq. 1, generalised): N * M * prod(O) * (C/group) * prod(K). */
#include "window.h"

typedef struct {
    op_window w;
    int64_t group;
} conv_params;

static pz_status conv_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    conv_params *p = params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1);
    if (x->rank < 3) return op_err(err, n, "input X has rank %d, expected at least 3", x->rank);
    if (w->rank != x->rank)
        return op_err(err, n, "weight W has rank %d, input X has rank %d", w->rank, x->rank);
    if (op_window_parse(n, x->rank - 2, w->dims + 2, &p->w, 0, err)) return err->code;
    if (op_attr_int(n, "group", 1, &p->group, err)) return err->code;
    if (p->group < 1) return op_err_attr(err, n, "group", "is %lld, must be >= 1", (long long)p->group);
    return PZ_OK;
}

static pz_status conv_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    conv_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 1), *b = op_in(g, n, 2);
    int64_t c = x->dims[1], m = w->dims[0];
    if (c % p->group)
        return op_err_attr(err, n, "group", "%lld does not divide the %lld input channels",
                           (long long)p->group, (long long)c);
    if (w->dims[1] * p->group != c)
        return op_err(err, n, "weight W has %lld input channels per group, X has %lld channels "
                      "in %lld groups", (long long)w->dims[1], (long long)c, (long long)p->group);
    if (m % p->group)
        return op_err_attr(err, n, "group", "%lld does not divide the %lld output channels",
                           (long long)p->group, (long long)m);
    if (b && (b->rank != 1 || b->dims[0] != m))
        return op_err(err, n, "bias B must be 1-D with %lld entries", (long long)m);
    if (x->dtype != w->dtype)
        return op_err(err, n, "X is %s but W is %s", ir_dtype_name(x->dtype), ir_dtype_name(w->dtype));
    int64_t dims[IR_MAX_RANK] = {x->dims[0], m};
    if (op_window_out(n, &p->w, x->dims + 2, dims + 2, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);
    return PZ_OK;
}

static void conv_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const ir_tensor *w = op_in(g, n, 1);
    const ir_tensor *y = op_out((ir_graph *)g, n, 0);
    if (!w || !y) return;
    /* every output element takes (C/group) * prod(K) MACs, and W has exactly
     * M * (C/group) * prod(K) elements */
    int64_t per_out = w->dims[0] ? ir_tensor_numel(w) / w->dims[0] : 0;
    if (__builtin_mul_overflow(ir_tensor_numel(y), per_out, &c->macs)) c->macs = INT64_MAX;
}

/* CONV: X, W, B?, Z? with the pads infer resolved. The residual Z (input
 * 3) and the activation come from the epilogue pass (src/passes): an ONNX
 * Conv has at most 3 inputs, the loader checks that. */
static pz_status conv_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const conv_params *p = n->params;
    pz_conv_params cp = {.group = p->group, .act = op_act(n)};
    if (op_window_conv_params(n, &p->w, &cp, err)) return err->code;
    op_lowered_init(out, n, PZ_OP_CONV, &cp, sizeof cp);
    return PZ_OK;
}

const op_def op_conv = {
    .name = "Conv",
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(conv_params),
    .parse = conv_parse,
    .infer = conv_infer,
    .cost = conv_cost,
    .lower = conv_lower,
    .takes_act = 1,
};
