/* gather_nd_ref.c - reference GatherND (with batch dims), any element type. */
#include "rt/kernels/kernels.h"

void pz_any_gather_nd__ref(size_t es, int64_t tuples, int64_t per_batch, int k, const int64_t *xd,
                           int64_t batch_elems, int64_t slice, int itype, const void *idx,
                           const void *x, void *y, int ith, int nth)
{
    size_t chunk = (size_t)slice * es;
    int64_t lo, hi;
    pz_split(tuples, ith, nth, &lo, &hi);
    for (int64_t t = lo; t < hi; t++) {
        /* offset in X: batch t / per_batch, then the tuple's k entries */
        int64_t off = 0, ok = 1;
        for (int j = 0; j < k; j++) {
            int64_t i = pz_index_at(idx, itype, t * k + j, xd[j]);
            ok = ok && i >= 0;
            off = off * xd[j] + i;
        }
        char *dst = (char *)y + (size_t)t * chunk;
        /* out of range: zeros, never a read outside X */
        if (!ok) memset(dst, 0, chunk);
        else memcpy(dst, (const char *)x + (size_t)((t / per_batch) * batch_elems + off * slice) * es,
                    chunk);
    }
}
