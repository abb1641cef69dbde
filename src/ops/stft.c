/* stft.c - STFT (opset 17): the short-time Fourier transform.
 *   signal [B, L, 1 or 2] (real or complex), frame_step (scalar, constant),
 *   window? [frame_length], frame_length? (scalar, constant; default the
 *   window's length) -> output [B, frames, K, 2], frames = (L - frame_length)
 *   / frame_step + 1, K = frame_length / 2 + 1 when onesided (default 1),
 *   else frame_length; frame f is the DFT of signal[f * frame_step + j] *
 *   window[j], j < frame_length.
 * MACs: outputs * frame_length. Runs as the STFT layer (rt/ops/stft.c), a
 * direct-sum reference kernel. */
#include "op.h"

typedef struct {
    int64_t onesided;
    pz_stft_params s;                 /* resolved by infer */
} stft_params;

static pz_status stft_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    stft_params *p = params;
    if (op_attr_int(n, "onesided", 1, &p->onesided, err)) return err->code;
    if (p->onesided != 0 && p->onesided != 1)
        return op_err_attr(err, n, "onesided", "is %lld, must be 0 or 1", (long long)p->onesided);
    return PZ_OK;
}

static pz_status stft_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    stft_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0), *w = op_in(g, n, 2);
    if (!ir_dtype_is_float(x->dtype) || ir_dtype_size(x->dtype) < 2)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (STFT): signal has type %s, not "
                       "supported (float16, bfloat16, float32, double)", n->name,
                       ir_dtype_name(x->dtype));
    if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
        return op_err(err, n, "signal must be [batch, length, 1 or 2], got rank %d", x->rank);
    int64_t v[1], step, flen = -1;
    int cnt;
    if (op_const_ints(g, n, 1, "frame_step", v, 1, &cnt, err)) return err->code;
    if (cnt != 1) return op_err(err, n, "input frame_step must be a scalar");
    step = v[0];
    if (w) {
        if (w->dtype != x->dtype || w->rank != 1)
            return op_err(err, n, "window must be 1-D of the signal's type (%s)",
                          ir_dtype_name(x->dtype));
        flen = w->dims[0];
    }
    if (op_in(g, n, 3)) {
        if (op_const_ints(g, n, 3, "frame_length", v, 1, &cnt, err)) return err->code;
        if (cnt != 1) return op_err(err, n, "input frame_length must be a scalar");
        if (w && v[0] != flen)
            return op_err(err, n, "frame_length is %lld, the window has %lld", (long long)v[0],
                          (long long)flen);
        flen = v[0];
    }
    if (flen < 0) return op_err(err, n, "needs a window or a frame_length");
    if (step < 1 || flen < 1 || flen > x->dims[1])
        return op_err(err, n, "frame_step %lld and frame_length %lld: need step >= 1 and 1 <= "
                      "frame_length <= the signal's length %lld", (long long)step,
                      (long long)flen, (long long)x->dims[1]);
    p->s = (pz_stft_params){.frame_step = step, .frame_length = flen,
                            .onesided = (int)p->onesided};
    const int64_t dims[4] = {x->dims[0], (x->dims[1] - flen) / step + 1,
                             p->onesided ? flen / 2 + 1 : flen, 2};
    if (op_check_dims(n, 4, dims, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, 4, dims);
    return PZ_OK;
}

static void stft_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const stft_params *p = n->params;
    const ir_tensor *y = op_out((ir_graph *)g, n, 0);
    if (!y) return;
    if (__builtin_mul_overflow(ir_tensor_numel(y), p->s.frame_length, &c->macs))
        c->macs = INT64_MAX;
}

static pz_status stft_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const stft_params *p = n->params;
    op_lowered_init(out, n, PZ_OP_STFT, &p->s, sizeof p->s);
    out->in[1] = n->n_in > 2 ? n->in[2] : -1;   /* the window; step and length in the params */
    out->n_in = 2;
    return PZ_OK;
}

const op_def op_stft = {
    .name = "STFT",
    .min_in = 2, .max_in = 4, .min_out = 1, .max_out = 1,
    .params_size = sizeof(stft_params),
    .parse = stft_parse,
    .infer = stft_infer,
    .cost = stft_cost,
    .lower = stft_lower,
};
