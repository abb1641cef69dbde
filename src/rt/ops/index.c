/* index.c - shared by the indexing layers (GATHER_ELEMENTS, GATHER_ND,
 * SCATTER): the checks their prepare starts with. */
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
