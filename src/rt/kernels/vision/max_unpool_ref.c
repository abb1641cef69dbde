/* max_unpool_ref.c - reference MaxUnpool: Y is zero but for Y.flat[I[i]] =
 * X[i] (indices flat over the whole of Y, as MaxPool writes them). Worker
 * ith of nth owns a slice of Y: it zeroes it and scans every index for the
 * ones that land in it, so no two workers write one element; indices out of
 * Y are skipped. Elements moved as bytes. */
#include "rt/kernels/kernels.h"

void pz_any_max_unpool__ref(size_t es, int64_t nx, int64_t ny, const void *x, const int64_t *idx,
                            void *y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(ny, ith, nth, &lo, &hi);
    if (lo >= hi) return;
    memset((char *)y + (size_t)lo * es, 0, (size_t)(hi - lo) * es);
    for (int64_t i = 0; i < nx; i++)
        if (idx[i] >= lo && idx[i] < hi)
            memcpy((char *)y + (size_t)idx[i] * es, (const char *)x + (size_t)i * es, es);
}
