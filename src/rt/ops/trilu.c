/* trilu.c - the TRILU layer: the upper or lower triangle of the last two
 * dims of X, any element type; k (an int64 scalar input, optional) is read
 * at run time. */
#include "rt/ops/ops.h"

static int trilu_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *k = pz_in(l, 1), *y = pz_out(l, 0);
    char bx[96], by[96];
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (x->rank < 2) return pz_layer_fail(l, err, n, "X has rank %d, expected 2 or more", x->rank);
    if (y->rank != x->rank || memcmp(x->dims, y->dims, (size_t)x->rank * sizeof x->dims[0]))
        return pz_layer_fail(l, err, n, "X %s and Y %s differ", pz_shape_str(x, bx, sizeof bx),
                             pz_shape_str(y, by, sizeof by));
    if (k && (k->dtype != PZ_I64 || pz_numel(k) != 1))
        return pz_layer_fail(l, err, n, "k must be one int64, it is %s with %lld elements",
                             pz_dtype_name(k->dtype), (long long)pz_numel(k));
    return 0;
}

static void trilu_run(const pz_layer *l, int ith, int nth)
{
    const pz_trilu_params *p = l->params;
    const pz_tensor *x = l->in[0], *kt = pz_in(l, 1);
    int64_t k = kt ? *(const int64_t *)kt->data : 0;
    int64_t rows = x->dims[x->rank - 2], cols = x->dims[x->rank - 1];
    /* any k is valid (ONNX): clamped to [-rows, cols], the same triangles
     * without overflowing row + k */
    k = k < -rows ? -rows : k > cols ? cols : k;
    pz_any_trilu__ref(pz_dtype_size(x->dtype), pz_prod(x->dims, x->rank - 2), rows, cols, p->upper,
                      k, x->data, l->out[0]->data, ith, nth);
}

static const pz_param_field trilu_fields[] = {
    PZ_FIELD(pz_trilu_params, upper, PZ_F_INT),
};

const pz_rt_op pz_rt_op_trilu = {
    .name = "TRILU", PZ_OP_PARAMS(pz_trilu_params, trilu_fields),
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = trilu_prepare, .run = trilu_run,
};
