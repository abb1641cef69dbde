/* mel_weight_matrix.c - MelWeightMatrix (opset 17): num_mel_bins,
 *   dft_length, sample_rate (integer scalars), lower_edge_hertz,
 *   upper_edge_hertz (float scalars), all constant -> W [dft_length / 2 + 1,
 *   num_mel_bins] of type output_datatype (default float32): triangular
 *   filters whose edges are num_mel_bins + 2 points spaced evenly on the mel
 *   scale (mel = 2595 log10(1 + hz / 700)), the step (high - low) / (bins +
 *   2) as the ONNX reference takes it, each point floored to the spectrogram
 *   bin (dft_length + 1) * hz / sample_rate.
 * Always folds to a constant at compile time (signal.c); nothing runs. */
#include <math.h>
#include <stdlib.h>

#include "fold.h"
#include "signal.h"

/* Input i, a constant scalar, as double. */
static pz_status mel_scalar(ir_graph *g, const ir_node *n, int i, const char *what, double *v,
                            pz_err *err)
{
    const ir_tensor *t = op_in(g, n, i);
    if (!t->data)
        return op_need_const(err, g, n, i, what, "the matrix is made at compile time");
    if (ir_tensor_numel(t) != 1 || ir_dtype_size(t->dtype) == 0 || ir_dtype_is_small(t->dtype))
        return op_err(err, n, "input %s must be a scalar", what);
    *v = ir_load_f64(t->data, t->dtype, 0);
    return PZ_OK;
}

static pz_status mel_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const op_signal_params *p = n->params;
    int64_t nm, dl, sr;
    int cnt;
    double lo, hi;
    if (op_const_ints(g, n, 0, "num_mel_bins", &nm, 1, &cnt, err) ||
        op_const_ints(g, n, 1, "dft_length", &dl, 1, &cnt, err) ||
        op_const_ints(g, n, 2, "sample_rate", &sr, 1, &cnt, err) ||
        mel_scalar(g, n, 3, "lower_edge_hertz", &lo, err) ||
        mel_scalar(g, n, 4, "upper_edge_hertz", &hi, err))
        return err->code;
    const int64_t nspec = dl / 2 + 1;
    if (nm < 1 || dl < 1 || sr < 1 || !(lo >= 0) || !(hi > lo) || !isfinite(hi) ||
        nm > OP_FOLD_LIMIT ||
        nspec > OP_FOLD_LIMIT || nm * nspec > OP_FOLD_LIMIT)
        return op_err(err, n, "num_mel_bins %lld, dft_length %lld, sample_rate %lld, edges %g "
                      "to %g Hz: need positive sizes, 0 <= lower < upper < inf and at most %d "
                      "outputs", (long long)nm, (long long)dl, (long long)sr, lo, hi,
                      OP_FOLD_LIMIT);
    int64_t *bin = pz_xcalloc((size_t)nm + 2, sizeof *bin);
    const double lmel = 2595 * log10(1 + lo / 700), hmel = 2595 * log10(1 + hi / 700);
    const double step = (hmel - lmel) / (double)(nm + 2);
    for (int64_t i = 0; i < nm + 2; i++) {
        const double hz = 700 * (pow(10, ((double)i * step + lmel) / 2595) - 1);
        const double b = floor((double)(dl + 1) * hz / (double)sr);
        if (!(b >= 0 && b < (double)nspec)) {   /* checked before the cast: b may be huge */
            free(bin);
            return op_err(err, n, "filter edge %lld falls on spectrogram bin %g, outside the "
                          "%lld of dft_length %lld (upper_edge_hertz above sample_rate / 2?)",
                          (long long)i, b, (long long)nspec, (long long)dl);
        }
        bin[i] = (int64_t)b;
    }
    double *v = pz_xcalloc((size_t)(nspec * nm), sizeof *v);
    for (int64_t i = 0; i < nm; i++) {   /* filter i: up from bin[i], down to bin[i + 2] */
        const int64_t l = bin[i], c = bin[i + 1], h = bin[i + 2];
        if (c == l)
            v[c * nm + i] = 1;
        for (int64_t j = l; c > l && j <= c; j++) v[j * nm + i] = (double)(j - l) / (double)(c - l);
        for (int64_t j = c; j < h; j++) v[j * nm + i] = (double)(h - j) / (double)(h - c);
    }
    free(bin);
    const int64_t dims[2] = {nspec, nm};
    pz_status st = op_signal_set(g, n, (int)p->output_datatype, 2, dims, v, err);
    free(v);
    return st;
}

const op_def op_mel_weight_matrix = {
    .name = "MelWeightMatrix",
    .min_in = 5, .max_in = 5, .min_out = 1, .max_out = 1,
    .params_size = sizeof(op_signal_params),
    .parse = op_signal_parse,
    .infer = mel_infer,
};
