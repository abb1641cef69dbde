/* det.c - the DET layer (ONNX Det): X [..., M, M] of a float type -> Y
 * [...]; per worker, scratch for one matrix (M * M doubles). */
#include "rt/ops/ops.h"

static int det_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
        return pz_layer_fail(l, err, n, "X must be [..., M, M]");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    int ok = y->rank == x->rank - 2;
    for (int a = 0; ok && a < y->rank; a++) ok = y->dims[a] == x->dims[a];
    if (!ok) return pz_layer_fail(l, err, n, "Y must be X's shape without the last two dims");
    const int64_t m = x->dims[x->rank - 1];
    l->scratch_bytes = (size_t)(l->nth > 0 ? l->nth : 1) * (size_t)(m * m) * sizeof(double);
    l->scratch_run_only = 1;
    return 0;
}

static void det_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    const int64_t m = x->dims[x->rank - 1];
    pz_any_det__ref(x->dtype, pz_numel(l->out[0]), m, x->data, l->out[0]->data, l->scratch, ith,
                    nth);
}

const pz_rt_op pz_rt_op_det = {
    .name = "DET", .params_size = 0,
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = det_prepare, .run = det_run,
};
