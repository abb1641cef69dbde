/* index.c - shared by the indexing layers (GATHER_ELEMENTS, GATHER_ND,
 * SCATTER): the checks their prepare starts with; and by every layer that
 * takes indices or positions at run time: their checks each run. */
#include "rt/ops/ops.h"

int pz_index_layer_check(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *ix = pz_in(l, 1), *y = pz_out(l, 0);
    if (!x || !ix || !y) return pz_layer_fail(l, err, n, "needs X, indices and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (ix->dtype != PZ_I32 && ix->dtype != PZ_I64)
        return pz_layer_fail(l, err, n, "indices have type %s, expected int32 or int64",
                             pz_dtype_name(ix->dtype));
    return 0;
}

int pz_index_run_prepare(pz_layer *l, const pz_tensor *ix, char *err, size_t n)
{
    if (ix->data || l->run_err) return 0;   /* constant: the compiler checked them */
    l->run_err = calloc(1, PZ_RUN_ERR_BYTES);
    return l->run_err ? 0 : pz_layer_fail(l, err, n, "out of memory");
}

int pz_run_check_span(const pz_layer *l, const pz_tensor *t, const char *what, int64_t lo,
                      int64_t hi)
{
    const int64_t count = pz_numel(t);
    for (int64_t e = 0; e < count; e++) {
        const int64_t v = t->dtype == PZ_I64 ? ((const int64_t *)t->data)[e]
                                             : ((const int32_t *)t->data)[e];
        if (v < lo || v > hi) {
            pz_layer_run_fail(l, "%s[%lld] is %lld: outside [%lld, %lld]", what, (long long)e,
                              (long long)v, (long long)lo, (long long)hi);
            return 1;
        }
    }
    return 0;
}

int pz_index_run_check(const pz_layer *l, const pz_tensor *ix, int k, const int64_t *dims,
                       int axis0)
{
    const int64_t count = pz_numel(ix);
    for (int64_t e = 0; e < count; e++) {
        const int64_t i = ix->dtype == PZ_I64 ? ((const int64_t *)ix->data)[e]
                                              : ((const int32_t *)ix->data)[e];
        const int j = k > 1 ? (int)(e % k) : 0;
        if (i < -dims[j] || i >= dims[j]) {
            pz_layer_run_fail(l, "indices[%lld] is %lld: out of range for axis %d of size %lld",
                              (long long)e, (long long)i, axis0 + j, (long long)dims[j]);
            return 1;
        }
    }
    return 0;
}
