/* stft.c - the STFT layer (ONNX STFT): signal [B, L, 1 or 2], window?
 * [frame_length] -> Y [B, frames, K, 2] (pz_stft_params). prepare plans
 * frame_length as the DFT layer does (dft_fft.h: radix-2, Bluestein, or the
 * direct sum of stft_ref.c, the FFTs' twin). */
#include "rt/kernels/signal/dft_fft.h"
#include "rt/ops/ops.h"

static int stft_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_stft_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *w = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs the signal and Y");
    if (!pz_dtype_is_float(x->dtype) || pz_dtype_is_small_float(x->dtype))
        return pz_layer_fail(l, err, n, "the signal has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
        return pz_layer_fail(l, err, n, "the signal must be [batch, length, 1 or 2]");
    if (p->frame_step < 1 || p->frame_length < 1 || p->frame_length > x->dims[1])
        return pz_layer_fail(l, err, n, "frame_step %lld, frame_length %lld, signal length %lld",
                             (long long)p->frame_step, (long long)p->frame_length,
                             (long long)x->dims[1]);
    if (w && (w->dtype != x->dtype || w->rank != 1 || w->dims[0] != p->frame_length))
        return pz_layer_fail(l, err, n, "the window must be [frame_length] of the signal's type");
    const int64_t frames = (x->dims[1] - p->frame_length) / p->frame_step + 1;
    const int64_t K = p->onesided ? p->frame_length / 2 + 1 : p->frame_length;
    if (y->rank != 4 || y->dims[0] != x->dims[0] || y->dims[1] != frames || y->dims[2] != K ||
        y->dims[3] != 2)
        return pz_layer_fail(l, err, n, "Y must be [%lld, %lld, %lld, 2]", (long long)x->dims[0],
                             (long long)frames, (long long)K);
    pz_dft_plan *pl = malloc(sizeof *pl);
    if (!pl || pz_dft_plan_init(pl, p->frame_length, PZ_DFT_AUTO)) {
        free(pl);
        return pz_layer_fail(l, err, n, "out of memory");
    }
    l->state = pl;
    if (pl->path != PZ_DFT_DIRECT) {
        l->scratch_bytes = (size_t)(l->nth > 0 ? l->nth : 1) * (size_t)pz_dft_plan_scratch(pl) *
                           sizeof(double);
        l->scratch_run_only = 1;
        l->kernel = pl->path == PZ_DFT_RADIX2 ? "fft2" : "bluestein";
    }
    return 0;
}

static void stft_release(pz_layer *l)
{
    pz_dft_plan_free(l->state);
}

static void stft_run(const pz_layer *l, int ith, int nth)
{
    const pz_stft_params *p = l->params;
    const pz_tensor *x = l->in[0], *w = pz_in(l, 1), *y = l->out[0];
    const pz_dft_plan *pl = l->state;
    if (pl->path != PZ_DFT_DIRECT)
        pz_any_stft__fft(p, pl, x->dtype, x->dims[0], x->dims[1], (int)x->dims[2], x->data,
                         w ? w->data : NULL, y->dims[1], y->data,
                         (double *)l->scratch + ith * pz_dft_plan_scratch(pl), ith, nth);
    else
        pz_any_stft__ref(p, pl->tw, x->dtype, x->dims[0], x->dims[1], (int)x->dims[2],
                         x->data, w ? w->data : NULL, y->dims[1], y->data, ith, nth);
}

static const pz_param_field stft_fields[] = {
    PZ_FIELD(pz_stft_params, frame_step, PZ_F_I64),
    PZ_FIELD(pz_stft_params, frame_length, PZ_F_I64),
    PZ_FIELD(pz_stft_params, onesided, PZ_F_INT),
};

const pz_rt_op pz_rt_op_stft = {
    .name = "STFT", PZ_OP_PARAMS(pz_stft_params, stft_fields),
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = stft_prepare, .run = stft_run, .release = stft_release,
};
