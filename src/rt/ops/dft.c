/* dft.c - the DFT layer (ONNX DFT): X [..., M, ..., 1 or 2] -> Y [..., K,
 * ..., 2] along p->axis (pz_dft_params; irfft: Y [..., length, ..., 1]).
 * The twiddle table is made at prepare; a power-of-two length runs the
 * radix-2 FFT (dft_fft.c, per-worker scratch), others the direct sum
 * (dft_ref.c, the FFT's twin). */
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
    double *tw = malloc(sizeof(double) * 2 * (size_t)p->length);
    if (!tw) return pz_layer_fail(l, err, n, "out of memory");
    pz_dft_twiddles(p->length, tw);
    l->state = tw;
    if (pz_dft_fft_fits(p->length)) {
        l->scratch_bytes = (size_t)(l->nth > 0 ? l->nth : 1) *
                           (size_t)pz_dft_fft_scratch(p->length) * sizeof(double);
        l->scratch_run_only = 1;
        l->kernel = "fft2";
    }
    return 0;
}

static void dft_run(const pz_layer *l, int ith, int nth)
{
    const pz_dft_params *p = l->params;
    const pz_tensor *x = l->in[0];
    const int64_t outer = pz_prod(x->dims, p->axis), m = x->dims[p->axis];
    const int64_t inner = pz_prod(x->dims + p->axis + 1, x->rank - p->axis - 2);
    const int cin = (int)x->dims[x->rank - 1];
    if (pz_dft_fft_fits(p->length))
        pz_any_dft__fft2(p, l->state, x->dtype, outer, m, inner, cin, x->data, l->out[0]->data,
                         (double *)l->scratch + ith * pz_dft_fft_scratch(p->length), ith, nth);
    else
        pz_any_dft__ref(p, l->state, x->dtype, outer, m, inner, cin, x->data, l->out[0]->data,
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
    .prepare = dft_prepare, .run = dft_run,
};
