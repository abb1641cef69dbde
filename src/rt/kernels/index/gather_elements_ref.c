/* gather_elements_ref.c - reference GatherElements, any element type. */
#include "rt/kernels/kernels.h"

void pz_any_gather_elements__ref(size_t es, int rank, const int64_t *id, const int64_t *xs,
                                 int axis, int64_t n, int itype, const void *idx, const void *x,
                                 void *y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(pz_prod(id, rank), ith, nth, &lo, &hi);
    for (int64_t e = lo; e < hi; e++) {
        int64_t off = 0, rem = e;
        for (int d = rank - 1; d >= 0; d--) {   /* e's coordinates, axis skipped */
            if (d != axis) off += (rem % id[d]) * xs[d];
            rem /= id[d];
        }
        int64_t k = pz_index_at(idx, itype, e, n);
        char *dst = (char *)y + (size_t)e * es;
        /* an index out of range is the model's error: it reads zero, never
         * outside X */
        if (k < 0) memset(dst, 0, es);
        else memcpy(dst, (const char *)x + (size_t)(off + k * xs[axis]) * es, es);
    }
}
