/* max_unpool_ref.c - reference MaxUnpool: Y is zero but for Y.flat[I[i]] =
 * X[i] (indices flat over the whole of Y, as MaxPool writes them). When I
 * indexes a smaller tensor (the default output that output_shape pads), an
 * index is unravelled in its dims and ravelled in Y's. Worker ith of nth
 * owns a slice of Y: it zeroes it and scans every index for the ones that
 * land in it, so no two workers write one element; indices out of range are
 * skipped. Elements moved as bytes. */
#include "rt/kernels/kernels.h"

/* Index t of p's dims as an index of Y; -1 when out of range. */
static int64_t unpool_index(const pz_max_unpool_params *p, const int64_t *ydims, int64_t t)
{
    if (t < 0 || t >= pz_prod(p->dims, p->rank)) return -1;
    int64_t c[PZ_MAX_RANK], r = t, o = 0;
    for (int k = p->rank - 1; k >= 0; k--) {
        c[k] = r % p->dims[k];
        r /= p->dims[k];
    }
    for (int k = 0; k < p->rank; k++) {
        if (c[k] >= ydims[k]) return -1;
        o = o * ydims[k] + c[k];
    }
    return o;
}

void pz_any_max_unpool__ref(const pz_max_unpool_params *p, int yrank, const int64_t *ydims,
                            size_t es, int64_t nx, const void *x, const int64_t *idx, void *y,
                            int ith, int nth)
{
    int64_t lo, hi;
    pz_split(pz_prod(ydims, yrank), ith, nth, &lo, &hi);
    if (lo >= hi) return;
    memset((char *)y + (size_t)lo * es, 0, (size_t)(hi - lo) * es);
    for (int64_t i = 0; i < nx; i++) {
        const int64_t t = p->rank > 0 ? unpool_index(p, ydims, idx[i]) : idx[i];
        if (t >= lo && t < hi)
            memcpy((char *)y + (size_t)t * es, (const char *)x + (size_t)i * es, es);
    }
}
