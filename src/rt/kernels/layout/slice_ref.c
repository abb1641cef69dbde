/* slice_ref.c - reference Slice (per-axis start and step, negative steps). */
#include "rt/kernels/kernels.h"

void pz_any_slice__ref(size_t es, int rank, const int64_t *xd, const int64_t *yd,
                       const int64_t *start, const int64_t *step, const void *x, void *y,
                       int ith, int nth)
{
    if (rank == 0) {
        if (ith == 0) memcpy(y, x, es);
        return;
    }
    int64_t xs[PZ_MAX_RANK], s = 1;
    for (int i = rank - 1; i >= 0; i--) { xs[i] = s; s *= xd[i]; }
    int64_t inner = yd[rank - 1], rows = pz_prod(yd, rank - 1);
    if (inner == 0 || rows == 0) return;
    int64_t istep = step[rank - 1] * xs[rank - 1];   /* x elements between row neighbours */

    /* one unit of work = one row of y */
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t off = start[rank - 1], rest = r;   /* x offset of the row's first element */
        for (int i = rank - 2; i >= 0; i--) {
            off += (start[i] + rest % yd[i] * step[i]) * xs[i];
            rest /= yd[i];
        }
        const char *src = (const char *)x + off * (int64_t)es;
        char *dst = (char *)y + r * inner * (int64_t)es;
        if (istep == 1) {
            memcpy(dst, src, (size_t)inner * es);
        } else {
            for (int64_t j = 0; j < inner; j++)
                memcpy(dst + j * (int64_t)es, src + j * istep * (int64_t)es, es);
        }
    }
}
