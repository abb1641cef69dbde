/* dft.c - DFT (opsets 17, 20): the discrete Fourier transform along one axis.
 *   input [..., M, ..., 1 or 2] (real, or complex as (re, im)), dft_length?
 *   (scalar, constant), axis? (opset 20: scalar input, constant, default -2;
 *   opset 17: attribute, default 1) -> output [..., K, ..., 2], the axis cut
 *   or zero-padded to dft_length (default M), K = dft_length, or
 *   dft_length / 2 + 1 when onesided. inverse: the inverse transform, scaled
 *   by 1 / dft_length. inverse and onesided together: the first bins of a
 *   Hermitian spectrum to a real signal [..., dft_length, ..., 1] (irfft;
 *   dft_length defaults to 2 (M - 1)). onesided with a complex input keeps the
 *   first K bins of the full transform, as the ONNX reference does.
 * MACs: one complex multiply-accumulate per term: outputs * min(M, length).
 * Runs as the DFT layer (rt/ops/dft.c), a direct-sum reference kernel. */
#include "op.h"

typedef struct {
    int64_t axis;                     /* opset 17's attribute */
    int64_t inverse, onesided;
    pz_dft_params d;                  /* resolved by infer */
} dft_params;

static pz_status dft_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    dft_params *p = params;
    if (op_attr_int(n, "inverse", 0, &p->inverse, err) ||
        op_attr_int(n, "onesided", 0, &p->onesided, err))
        return err->code;
    if ((p->inverse != 0 && p->inverse != 1) || (p->onesided != 0 && p->onesided != 1))
        return op_err_attr(err, n, p->inverse != 0 && p->inverse != 1 ? "inverse" : "onesided",
                           "must be 0 or 1");
    if (g->opset >= 20 && op_attr(n, "axis"))
        return op_err_attr(err, n, "axis", "is an input (2) from opset 20, not an attribute");
    if (g->opset >= 20 && n->n_in > 3) return op_err(err, n, "at most 3 inputs");
    if (g->opset < 20 && n->n_in > 2) return op_err(err, n, "at most 2 inputs before opset 20");
    return op_attr_int(n, "axis", 1, &p->axis, err);
}

static pz_status dft_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    dft_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (!ir_dtype_is_float(x->dtype) || ir_dtype_size(x->dtype) < 2)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (DFT): input has type %s, not "
                       "supported (float16, bfloat16, float32, double)", n->name,
                       ir_dtype_name(x->dtype));
    const int r = x->rank;
    if (r < 2 || (x->dims[r - 1] != 1 && x->dims[r - 1] != 2))
        return op_err(err, n, "input must have rank >= 2 and a last dim of 1 (real) or 2 "
                      "(complex), got rank %d", r);
    int64_t axis = g->opset >= 20 ? -2 : p->axis, v[1];
    int cnt;
    if (g->opset >= 20 && op_in(g, n, 2)) {
        if (op_const_ints(g, n, 2, "axis", v, 1, &cnt, err)) return err->code;
        if (cnt != 1) return op_err(err, n, "input axis must be a scalar");
        axis = v[0];
    }
    if (axis < -r || axis > r - 2 || axis == -1)
        return op_err_attr(err, n, "axis", "is %lld, must be in [%d, -2] or [0, %d] for rank %d",
                           (long long)axis, -r, r - 2, r);
    if (axis < 0) axis += r;
    const int64_t m = x->dims[axis];
    const int irfft = p->inverse && p->onesided;
    int64_t len = !irfft ? m : m <= ((int64_t)1 << 31) ? 2 * (m - 1) : -1;   /* -1: too long */
    if (op_in(g, n, 1)) {
        if (op_const_ints(g, n, 1, "dft_length", v, 1, &cnt, err)) return err->code;
        if (cnt != 1) return op_err(err, n, "input dft_length must be a scalar");
        len = v[0];
    }
    if (len < 1 || len > ((int64_t)1 << 31))
        return op_err(err, n, "dft_length is %lld, must be in [1, 2^31]", (long long)len);
    p->d = (pz_dft_params){.axis = (int)axis, .inverse = (int)p->inverse,
                           .onesided = (int)p->onesided, .length = len};
    int64_t dims[IR_MAX_RANK];
    for (int k = 0; k < r; k++) dims[k] = x->dims[k];
    dims[axis] = irfft || !p->onesided ? len : len / 2 + 1;
    dims[r - 1] = irfft ? 1 : 2;
    if (op_check_dims(n, r, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, r, dims);
    return PZ_OK;
}

static void dft_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const dft_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *y = op_out((ir_graph *)g, n, 0);
    if (!x || !y || p->d.length < 1) return;
    const int64_t m = x->dims[p->d.axis], terms = m < p->d.length ? m : p->d.length;
    if (__builtin_mul_overflow(ir_tensor_numel(y), terms, &c->macs)) c->macs = INT64_MAX;
}

static pz_status dft_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const dft_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_DFT, &p->d, sizeof p->d);
    out->n_in = 1;   /* dft_length and axis are in the params */
    return PZ_OK;
}

const op_def op_dft = {
    .name = "DFT",
    .min_in = 1, .max_in = 3, .min_out = 1, .max_out = 1,
    .params_size = sizeof(dft_params),
    .parse = dft_parse,
    .infer = dft_infer,
    .cost = dft_cost,
    .lower = dft_lower,
};
