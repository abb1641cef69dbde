/* qconv.c - ConvInteger's and QLinearConv's shared parts (qconv.h). Inputs:
 * ConvInteger x, w, x_zero_point?, w_zero_point?; QLinearConv x, x_scale,
 * x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?. */
#include <string.h>

#include "qconv.h"

static int w_index(const op_qconv_params *p)
{
    return p->func == PZ_QCONV_QLINEAR ? 3 : 1;
}

static int q8(int dt)
{
    return dt == IR_U8 || dt == IR_I8;
}

pz_status op_qconv_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    op_qconv_params *p = params;
    p->func = strcmp(n->op_type, "QLinearConv") == 0 ? PZ_QCONV_QLINEAR : PZ_QCONV_INTEGER;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, w_index(p));
    if (!x || !w) return op_err(err, n, "inputs x and w are required");
    if (x->rank < 3) return op_err(err, n, "input x has rank %d, expected at least 3", x->rank);
    if (w->rank != x->rank)
        return op_err(err, n, "weight w has rank %d, input x has rank %d", w->rank, x->rank);
    if (x->rank - 2 > PZ_MAX_SPATIAL)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): %d spatial dims, at most %d "
                       "are supported", n->name, n->op_type, x->rank - 2, PZ_MAX_SPATIAL);
    if (op_window_parse(n, x->rank - 2, w->dims + 2, &p->w, 0, err)) return err->code;
    if (op_attr_int(n, "group", 1, &p->group, err)) return err->code;
    if (p->group < 1)
        return op_err_attr(err, n, "group", "is %lld, must be >= 1", (long long)p->group);
    /* the qdq pass's residual: y is the QLinearAdd's B (passes/qdq.c) */
    int64_t zb = 0;
    if (p->func == PZ_QCONV_QLINEAR && op_attr_int(n, "z_b", 0, &zb, err)) return err->code;
    p->z_b = zb != 0;
    return PZ_OK;
}

/* Input i: absent (when optional), one element, or one per output channel
 * (when per_m) of type dt (IR_UNDEFINED: any float type). */
static pz_status qconv_check(const ir_graph *g, const ir_node *n, int i, const char *what,
                             int dt, int optional, int per_m, int64_t M, pz_err *err)
{
    const ir_tensor *t = op_in(g, n, i);
    if (!t) return optional ? PZ_OK : op_err(err, n, "input %s is required", what);
    if (dt == IR_UNDEFINED ? !ir_dtype_is_float(t->dtype) || ir_dtype_size(t->dtype) < 2
                           : (int)t->dtype != dt)
        return op_err(err, n, "input %s has type %s, expected %s", what,
                      ir_dtype_name(t->dtype), dt == IR_UNDEFINED ? "a float type"
                                                                  : ir_dtype_name(dt));
    const int64_t ne = ir_tensor_numel(t);
    if (ne == 1) return PZ_OK;
    if (per_m && t->rank == 1 && ne == M) return PZ_OK;
    if (per_m)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %s has %lld elements: "
                       "one, or one per output channel (%lld), are supported", n->name,
                       n->op_type, what, (long long)ne, (long long)M);
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %s has %lld elements: only "
                   "per-tensor quantisation (one element) is supported", n->name, n->op_type,
                   what, (long long)ne);
}

pz_status op_qdyn_out_check(const ir_graph *g, const ir_node *n, int first, int64_t m,
                            pz_err *err)
{
    const ir_tensor *xs = op_in(g, n, first), *ws = op_in(g, n, first + 1);
    const ir_tensor *b = n->n_in > first + 2 ? op_in(g, n, first + 2) : NULL;
    if (!xs || xs->dtype != IR_F32 || ir_tensor_numel(xs) != 1)
        return op_err(err, n, "input %d (x's scale) must be a float32 scalar", first);
    if (!ws || ws->dtype != IR_F32 || (ir_tensor_numel(ws) != 1 && ir_tensor_numel(ws) != m) ||
        (b && (b->dtype != IR_F32 || (ir_tensor_numel(b) != 1 && ir_tensor_numel(b) != m))))
        return op_err(err, n, "inputs %d and %d (w's scale, the bias) must be float32 of one "
                      "element or %lld", first + 1, first + 2, (long long)m);
    return PZ_OK;
}

pz_status op_qconv_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    op_qconv_params *p = n->params;
    const int ql = p->func == PZ_QCONV_QLINEAR;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, w_index(p));
    if (!q8(x->dtype) || !q8(w->dtype))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): x (%s) and w (%s): only int8 "
                       "and uint8 are supported", n->name, n->op_type, ir_dtype_name(x->dtype),
                       ir_dtype_name(w->dtype));
    const int64_t c = x->dims[1], m = w->dims[0];
    if (c % p->group || m % p->group || w->dims[1] * p->group != c)
        return op_err_attr(err, n, "group", "%lld does not fit x's %lld channels and w [%lld, "
                           "%lld, ...]", (long long)p->group, (long long)c, (long long)m,
                           (long long)w->dims[1]);
    int ty = IR_I32;
    if (!ql) {
        if (qconv_check(g, n, 2, "x_zero_point", x->dtype, 1, 0, m, err) ||
            qconv_check(g, n, 3, "w_zero_point", w->dtype, 1, 1, m, err))
            return err->code;
        /* the qdyn pass's float32 output stage (passes/qdyn.c) */
        if (n->n_in > 4 && op_qdyn_out_check(g, n, 4, m, err)) return err->code;
        if (n->n_in > 4) ty = IR_F32;
    } else {
        const ir_tensor *xs = op_in(g, n, 1), *yz = op_in(g, n, 7), *b = op_in(g, n, 8);
        if (!xs || !op_in(g, n, 4) || !op_in(g, n, 6) || !yz || !op_in(g, n, 2) ||
            !op_in(g, n, 5))
            return op_err(err, n, "the scales and zero points are required");
        if (!q8(yz->dtype))
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): y_zero_point (%s): only "
                           "int8 and uint8 are supported", n->name, n->op_type,
                           ir_dtype_name(yz->dtype));
        ty = yz->dtype;
        if (qconv_check(g, n, 1, "x_scale", IR_UNDEFINED, 0, 0, m, err) ||
            qconv_check(g, n, 2, "x_zero_point", x->dtype, 0, 0, m, err) ||
            qconv_check(g, n, 4, "w_scale", xs->dtype, 0, 1, m, err) ||
            qconv_check(g, n, 5, "w_zero_point", w->dtype, 0, 1, m, err) ||
            qconv_check(g, n, 6, "y_scale", xs->dtype, 0, 0, m, err) ||
            qconv_check(g, n, 7, "y_zero_point", ty, 0, 0, m, err))
            return err->code;
        if (b && (b->dtype != IR_I32 || b->rank != 1 || b->dims[0] != m))
            return op_err(err, n, "bias B must be int32 [%lld]", (long long)m);
    }
    int64_t dims[IR_MAX_RANK] = {x->dims[0], m};
    if (op_window_out(n, &p->w, x->dims + 2, dims + 2, err)) return err->code;
    /* a residual the qdq pass fused (passes/qdq.c): Z of y's type and shape */
    const ir_tensor *z = ql && n->n_in > 9 ? op_in(g, n, 9) : NULL;
    if (z) {
        int same = (int)z->dtype == ty && z->rank == x->rank;
        for (int d = 0; same && d < z->rank; d++) same = z->dims[d] == dims[d];
        if (!same) return op_err(err, n, "the residual Z must have y's type and shape");
        if (qconv_check(g, n, 10, "z_scale", IR_F32, 0, 0, m, err) ||
            qconv_check(g, n, 11, "z_zero_point", ty, 0, 0, m, err) ||
            qconv_check(g, n, 12, "s_scale", IR_F32, 0, 0, m, err) ||
            qconv_check(g, n, 13, "s_zero_point", ty, 1, 0, m, err))
            return err->code;
    }
    op_set_out(g, n, 0, ty, x->rank, dims);
    return PZ_OK;
}

void op_qconv_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const op_qconv_params *p = n->params;
    const ir_tensor *w = op_in(g, n, w_index(p)), *y = op_out((ir_graph *)g, n, 0);
    if (!w || !y) return;
    /* every output element takes (C/group) * prod(K) MACs */
    int64_t per_out = w->dims[0] ? ir_tensor_numel(w) / w->dims[0] : 0;
    if (__builtin_mul_overflow(ir_tensor_numel(y), per_out, &c->macs)) c->macs = INT64_MAX;
}

pz_status op_qconv_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const op_qconv_params *p = n->params;
    pz_conv_params cp = {.group = p->group};
    if (op_window_conv_params(n, &p->w, &cp, err)) return err->code;
    pz_qconv_params qp = {.func = p->func, .nsp = cp.nsp, .group = p->group, .act = op_act(n),
                          .z_b = p->z_b};
    for (int s = 0; s < cp.nsp; s++) {
        qp.kernel[s] = cp.kernel[s], qp.stride[s] = cp.stride[s];
        qp.dilation[s] = cp.dilation[s];
        qp.pad_begin[s] = cp.pad_begin[s], qp.pad_end[s] = cp.pad_end[s];
    }
    op_lowered_init(out, n, PZ_OP_QCONV, &qp, sizeof qp);
    return PZ_OK;
}
