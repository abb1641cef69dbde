/* pad.c - Pad: grows (or, with negative pads, crops) each dim.
 *   data [d...], pads [2k] (begin of each axis, then end of each axis),
 *   constant_value (scalar, optional), axes [k] (optional, opset 18+)
 *   -> output [.. d + begin + end ..]
 * Before opset 11 pads and value are attributes (`paddings` in opset 1).
 * mode: constant (the value), reflect (mirror without the edge), edge
 * (repeat the edge), wrap (opset 19, repeat from the other side). */
#include <string.h>

#include "fold.h"

typedef enum { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP } pad_mode;

typedef struct {
    pad_mode mode;
    float value;   /* opset < 11 */
} pad_params;

static pz_status pad_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    pad_params *p = params;
    const char *mode;
    if (op_attr_string(n, "mode", "constant", &mode, err)) return err->code;
    if (!strcmp(mode, "constant")) p->mode = PAD_CONSTANT;
    else if (!strcmp(mode, "reflect")) p->mode = PAD_REFLECT;
    else if (!strcmp(mode, "edge")) p->mode = PAD_EDGE;
    else if (!strcmp(mode, "wrap")) p->mode = PAD_WRAP;
    else
        return op_err_attr(err, n, "mode", "is \"%s\", expected constant, reflect, edge or wrap",
                           mode);
    return op_attr_float(n, "value", 0.0f, &p->value, err);
}

typedef struct {
    int rank;
    pad_mode mode;
    int64_t begin[IR_MAX_RANK], in_dims[IR_MAX_RANK], out_dims[IR_MAX_RANK];
    int64_t stride[IR_MAX_RANK];
} pad_map;

/* Negative pads crop first, then the kept range is padded (as ONNX Runtime
 * and the runtime's PAD do): reflect, edge and wrap see only kept elements. */
static int64_t pad_src(const int64_t *coord, const void *ctx)
{
    const pad_map *m = ctx;
    int64_t s = 0;
    for (int k = 0; k < m->rank; k++) {
        int64_t begin = m->begin[k], end = m->out_dims[k] - m->in_dims[k] - begin;
        int64_t k0 = begin < 0 ? -begin : 0;                    /* kept: [k0, k0 + d) */
        int64_t d = m->in_dims[k] - k0 - (end < 0 ? -end : 0);
        int64_t i = coord[k] - (begin > 0 ? begin : 0);         /* index into the kept range */
        if (i < 0 || i >= d) {
            if (d <= 0) return -1;
            switch (m->mode) {
            case PAD_CONSTANT: return -1;
            case PAD_EDGE: i = i < 0 ? 0 : d - 1; break;
            case PAD_WRAP: i = (i % d + d) % d; break;
            case PAD_REFLECT: {
                /* mirror images repeat every 2(d-1): 0 1 .. d-1 d-2 .. 1 | 0 1 .. */
                int64_t period = 2 * (d - 1);
                if (!period) { i = 0; break; }
                i = (i % period + period) % period;
                if (i >= d) i = period - i;
                break;
            }
            }
        }
        s += (k0 + i) * m->stride[k];
    }
    return s;
}

/* Whether the pads are read at run time (PAD with inputs 1-3): pads, axes or
 * the fill value an unbound input (op_rt_ints), or data in a dynamic region;
 * Y then has no compile-time bound. */
static int pad_at_run_time(const ir_graph *g, const ir_node *n)
{
    if (g->opset < 11) return 0;
    const ir_tensor *cv = op_in(g, n, 2);
    return op_rt_ints(g, n, 1, 2 * IR_MAX_RANK, NULL) || op_rt_ints(g, n, 3, IR_MAX_RANK, NULL) ||
           (cv && !cv->data && g->rt_shapes && !g->values[n->in[2]].dyn) ||
           (g->values[n->in[0]].dyn && op_in_const(g, n, 1));
}

/* pads (and axes) from the attributes or the inputs, spread over all dims. */
static pz_status pad_amounts(const ir_graph *g, const ir_node *n, int rank, int64_t *begin,
                             int64_t *end, pz_err *err)
{
    int64_t pads[2 * IR_MAX_RANK], axes[IR_MAX_RANK];
    int count, n_axes = -1, ax[IR_MAX_RANK];
    const char *what = g->opset < 2 ? "paddings" : "pads";
    if (g->opset < 11) {
        if (n->n_in > 1)
            return op_err(err, n, "pads and constant_value are inputs only from opset 11 (the "
                          "model uses %d)", g->opset);
        if (op_attr_ints(n, what, pads, 2 * IR_MAX_RANK, &count, err)) return err->code;
        if (count < 0) return op_err_attr(err, n, what, "is required");
    } else if (pad_at_run_time(g, n)) {
        for (int k = 0; k < rank; k++) begin[k] = end[k] = 0;   /* no pads stand in */
        return PZ_OK;
    } else {
        if (op_const_ints(g, n, 1, "pads", pads, 2 * IR_MAX_RANK, &count, err)) return err->code;
    }
    if (g->opset >= 11) {
        if (op_in(g, n, 3)) {
            if (g->opset < 18)
                return op_err(err, n, "input 3 (axes) exists from opset 18 (the model uses %d)",
                              g->opset);
            if (op_const_ints(g, n, 3, "axes", axes, IR_MAX_RANK, &n_axes, err))
                return err->code;
        }
    }
    if (n_axes < 0) {
        n_axes = rank;
        for (int k = 0; k < rank; k++) axes[k] = k;
    }
    if (op_axes_list(n, "axes", axes, n_axes, rank, ax, err)) return err->code;
    if (count != 2 * n_axes)
        return op_err(err, n, "%s has %d entries, expected %d (begin and end for %d axes)", what,
                      count, 2 * n_axes, n_axes);
    for (int k = 0; k < rank; k++) begin[k] = end[k] = 0;
    for (int i = 0; i < n_axes; i++) {
        begin[ax[i]] = pads[i];
        end[ax[i]] = pads[n_axes + i];
    }
    return PZ_OK;
}

/* The fill value: input 2 (opset 11+; a constant, as the runtime compiles
 * it in) or the `value` attribute; 0 by default. Into fill (one element of
 * data's type) and/or *value, each when not NULL. */
static pz_status pad_fill(const ir_graph *g, const ir_node *n, void *fill, double *value,
                          pz_err *err)
{
    const pad_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    const ir_tensor *cv = g->opset >= 11 ? op_in(g, n, 2) : NULL;
    double v = g->opset < 11 ? p->value : 0;
    if (cv && ir_tensor_numel(cv) > 0) {
        if (cv->dtype != x->dtype)
            return op_err(err, n, "constant_value is %s but data is %s", ir_dtype_name(cv->dtype),
                          ir_dtype_name(x->dtype));
        if (ir_tensor_numel(cv) != 1)
            return op_err(err, n, "constant_value must be one value, it has %lld",
                          (long long)ir_tensor_numel(cv));
        if (!cv->data && pad_at_run_time(g, n)) {   /* read at run time: 0 stands in */
            if (fill) memset(fill, 0, ir_dtype_size(x->dtype));
            if (value) *value = 0;
            return PZ_OK;
        }
        if (!cv->data)
            return op_need_const(err, g, n, 2, "constant_value",
                                 "a fill value computed at run time is not supported");
        if (fill) memcpy(fill, cv->data, ir_dtype_size(x->dtype));
        if (value) *value = ir_load_f64(cv->data, cv->dtype, 0);
        return PZ_OK;
    }
    if (fill) ir_store_f64(fill, x->dtype, 0, v);
    if (value) *value = v;
    return PZ_OK;
}

static pz_status pad_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const pad_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    static const char *mode_names[] = {"constant", "reflect", "edge", "wrap"};
    int64_t dims[IR_MAX_RANK];
    pad_map m = {.rank = x->rank, .mode = p->mode};
    int64_t end[IR_MAX_RANK];
    if (pad_amounts(g, n, x->rank, m.begin, end, err)) return err->code;
    for (int k = 0; k < x->rank; k++) {
        if (op_dim_add(n, "pads", x->dims[k], m.begin[k], &dims[k], err) ||
            op_dim_add(n, "pads", dims[k], end[k], &dims[k], err))
            return err->code;
        if (dims[k] < 0)
            return op_err(err, n, "pads %lld and %lld crop more than the %lld entries of dim %d",
                          (long long)m.begin[k], (long long)end[k], (long long)x->dims[k], k);
        /* the kept range (cropping comes first); adding negatives cannot overflow */
        int64_t kept = x->dims[k] + (m.begin[k] < 0 ? m.begin[k] : 0) + (end[k] < 0 ? end[k] : 0);
        if (p->mode != PAD_CONSTANT && kept <= 0 && dims[k] > 0)
            return op_err_attr(err, n, "mode", "%s cannot pad dim %d: %s", mode_names[p->mode],
                               k, x->dims[k] ? "the pads crop all of it" : "it is empty");
        m.in_dims[k] = x->dims[k];
        m.out_dims[k] = dims[k];
    }
    if (op_check_dims(n, x->rank, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, x->rank, dims);

    unsigned char fill[8] = {0};
    if (pad_fill(g, n, fill, NULL, err)) return err->code;
    if (pad_at_run_time(g, n)) {
        op_set_rt_alloc(g, n, 0);
        return PZ_OK;
    }
    if (!op_fold_ready(g, n, 0, x)) return PZ_OK;
    op_strides(x, m.stride);
    op_fold_map(g, n, 0, x, pad_src, &m, fill);
    return PZ_OK;
}

/* PAD of input 0: the mode, the begin pads per axis (the output's shape gives
 * the end pads) and the fill value; pads, constant_value and axes
 * (constants) are dropped. */
static pz_status pad_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const pad_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    static const pz_pad_mode modes[] = {
        [PAD_CONSTANT] = PZ_PAD_CONSTANT, [PAD_REFLECT] = PZ_PAD_REFLECT,
        [PAD_EDGE] = PZ_PAD_EDGE, [PAD_WRAP] = PZ_PAD_WRAP,
    };
    pz_pad_params pp;
    int64_t end[IR_MAX_RANK];
    memset(&pp, 0, sizeof pp);
    pp.mode = modes[p->mode];
    if (pad_amounts(g, n, x->rank, pp.begin, end, err)) return err->code;
    if (pad_fill(g, n, NULL, &pp.value, err)) return err->code;
    if (pad_at_run_time(g, n)) {   /* pads, constant_value, axes: inputs 1-3 */
        if (op_in(g, n, 3) && g->opset < 18)
            return op_err(err, n, "input 3 (axes) exists from opset 18 (the model uses %d)",
                          g->opset);
        pp.n_rt_axes = x->rank;   /* without axes: every dim */
        for (int k = 0; k < x->rank; k++) pp.rt_axes[k] = k;
        op_lowered_init(out, n, PZ_OP_PAD, &pp, sizeof pp);
        return PZ_OK;
    }
    op_lowered_init(out, n, PZ_OP_PAD, &pp, sizeof pp);
    out->n_in = 1;
    return PZ_OK;
}

const op_def op_pad = {
    .name = "Pad",
    .min_in = 1, .max_in = 4, .min_out = 1, .max_out = 1,
    .params_size = sizeof(pad_params),
    .parse = pad_parse,
    .infer = pad_infer,
    .cost = NULL,
    .lower = pad_lower,
};

pz_status op_pad_constant(const ir_graph *g, const ir_node *n, int64_t *begin, int64_t *end,
                          double *value, pz_err *err)
{
    const pad_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!p || !x || x->rank < 0) return op_err(err, n, "not parsed or X of unknown rank");
    if (p->mode != PAD_CONSTANT) return op_err_attr(err, n, "mode", "is not constant");
    if (pad_amounts(g, n, x->rank, begin, end, err)) return err->code;
    return pad_fill(g, n, NULL, value, err);
}
