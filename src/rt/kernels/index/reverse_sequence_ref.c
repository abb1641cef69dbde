/* reverse_sequence_ref.c - reference ReverseSequence: y[.., b, .., t, ..] =
 * x[.., b, .., lens[b] - 1 - t, ..] for t < lens[b], else x's element. */
#include "rt/kernels/kernels.h"

void pz_any_reverse_sequence__ref(size_t es, int rank, const int64_t *xd, int batch_axis,
                                  int time_axis, const int64_t *lens, const void *x, void *y,
                                  int ith, int nth)
{
    int64_t st[PZ_MAX_RANK], n = 1;
    for (int a = rank - 1; a >= 0; a--) {
        st[a] = n;
        n *= xd[a];
    }
    const int64_t T = xd[time_axis];
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t b = u / st[batch_axis] % xd[batch_axis], t = u / st[time_axis] % T;
        const int64_t len = lens[b];
        int64_t from = u;
        if (len >= 0 && len <= T && t < len) from = u + (len - 1 - 2 * t) * st[time_axis];
        memcpy((char *)y + (size_t)u * es, (const char *)x + (size_t)from * es, es);
    }
}
