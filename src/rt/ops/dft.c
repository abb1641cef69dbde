/* dft.c - the DFT layer (ONNX DFT): X [..., M, ..., 1 or 2] -> Y [..., K,
 * ..., 2] along p->axis (pz_dft_params; irfft: Y [..., length, ..., 1]).
 * prepare plans the length (dft_fft.h): a radix-2 FFT for powers of two,
 * Bluestein's chirp-z for longer other lengths (dft_fft.c, per-worker
 * scratch), else the direct sum (dft_ref.c, the FFTs' twin). */
#include "rt/kernels/signal/dft_fft.h"
#include "rt/ops/ops.h"

static int dft_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_dft_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype) || pz_dtype_is_small_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (x->rank < 2 || (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
        return pz_layer_fail(l, err, n, "X's last dim must be 1 (real) or 2 (complex)");
    if (p->axis < 0 || p->axis >= x->rank - 1)
        return pz_layer_fail(l, err, n, "axis %d is out of range for rank %d", p->axis, x->rank);
    if (p->length < 1) return pz_layer_fail(l, err, n, "length %lld", (long long)p->length);
    const int irfft = p->inverse && p->onesided;
    const int64_t K = irfft || !p->onesided ? p->length : p->length / 2 + 1;
    if (y->rank != x->rank || y->dims[y->rank - 1] != (irfft ? 1 : 2) || y->dims[p->axis] != K)
        return pz_layer_fail(l, err, n, "Y's shape does not match the transform");
    for (int k = 0; k < x->rank - 1; k++)
        if (k != p->axis && y->dims[k] != x->dims[k])
            return pz_layer_fail(l, err, n, "Y's dim %d differs from X's", k);
    pz_dft_plan *pl = malloc(sizeof *pl);
    if (!pl || pz_dft_plan_init(pl, p->length, PZ_DFT_AUTO)) {
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

static void dft_release(pz_layer *l)
{
    pz_dft_plan_free(l->state);
}

static void dft_run(const pz_layer *l, int ith, int nth)
{
    const pz_dft_params *p = l->params;
    const pz_tensor *x = l->in[0];
    const int64_t outer = pz_prod(x->dims, p->axis), m = x->dims[p->axis];
    const int64_t inner = pz_prod(x->dims + p->axis + 1, x->rank - p->axis - 2);
    const int cin = (int)x->dims[x->rank - 1];
    const pz_dft_plan *pl = l->state;
    if (pl->path != PZ_DFT_DIRECT)
        pz_any_dft__fft(p, pl, x->dtype, outer, m, inner, cin, x->data, l->out[0]->data,
                        (double *)l->scratch + ith * pz_dft_plan_scratch(pl), ith, nth);
    else
        pz_any_dft__ref(p, pl->tw, x->dtype, outer, m, inner, cin, x->data, l->out[0]->data,
                        ith, nth);
}

static const pz_param_field dft_fields[] = {
    PZ_FIELD(pz_dft_params, axis, PZ_F_INT),
    PZ_FIELD(pz_dft_params, inverse, PZ_F_INT),
    PZ_FIELD(pz_dft_params, onesided, PZ_F_INT),
    PZ_FIELD(pz_dft_params, length, PZ_F_I64),
};

const pz_rt_op pz_rt_op_dft = {
    .name = "DFT", PZ_OP_PARAMS(pz_dft_params, dft_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = dft_prepare, .run = dft_run, .release = dft_release,
};
