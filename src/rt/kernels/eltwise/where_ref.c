/* where_ref.c - reference Where: y = c ? a : b with numpy broadcasting, for
 * elements of any type (copied as bytes). */
#include "rt/kernels/kernels.h"

void pz_any_where__ref(const pz_where_desc *d, size_t es, const uint8_t *c, const void *a,
                       const void *b, void *y, int ith, int nth)
{
    int64_t n = 1;
    for (int i = 0; i < d->rank; i++) n *= d->dims[i];
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    if (lo >= hi) return;
    /* the index of element lo in Y's shape, and the inputs' offsets there */
    int64_t idx[PZ_MAX_RANK], oc = 0, oa = 0, ob = 0, r = lo;
    for (int i = d->rank - 1; i >= 0; i--) {
        idx[i] = r % d->dims[i];
        r /= d->dims[i];
        oc += idx[i] * d->sc[i];
        oa += idx[i] * d->sa[i];
        ob += idx[i] * d->sb[i];
    }
    const unsigned char *pa = a, *pb = b;
    unsigned char *py = y;
    for (int64_t e = lo; e < hi; e++) {
        memcpy(py + (size_t)e * es, c[oc] ? pa + (size_t)oa * es : pb + (size_t)ob * es, es);
        /* next index: the last axis first, carrying into the outer ones */
        for (int i = d->rank - 1; i >= 0; i--) {
            oc += d->sc[i];
            oa += d->sa[i];
            ob += d->sb[i];
            if (++idx[i] < d->dims[i]) break;
            oc -= d->sc[i] * d->dims[i];
            oa -= d->sa[i] * d->dims[i];
            ob -= d->sb[i] * d->dims[i];
            idx[i] = 0;
        }
    }
}
