/* gather_ref.c - reference Gather along one axis, any element type. */
#include "rt/kernels/kernels.h"

void pz_any_gather__ref(size_t es, int64_t outer, int64_t n, int64_t inner, int itype,
                        const void *idx, int64_t nidx, const void *x, void *y, int ith, int nth)
{
    size_t chunk = (size_t)inner * es;   /* bytes per gathered slice */

    /* one unit of work = one gathered slice (o, j) */
    int64_t lo, hi;
    pz_split(outer * nidx, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t o = u / nidx, j = u % nidx;
        int64_t k = itype == PZ_I32 ? ((const int32_t *)idx)[j] : ((const int64_t *)idx)[j];
        if (k < 0) k += n;
        char *dst = (char *)y + (size_t)u * chunk;
        if (k < 0 || k >= n) memset(dst, 0, chunk);
        else memcpy(dst, (const char *)x + (size_t)(o * n + k) * chunk, chunk);
    }
}
