/* where_fast.c - Where's fast twin (bcast_fast.h): rows of Y with typed
 * inner loops, condition, X and Z each contiguous or one value per row. */
#include "rt/kernels/bcast_fast.h"

void pz_where_coalesce(pz_where_desc *d)
{
    int w = 0;
    for (int k = 0; k < d->rank; k++) {
        if (d->dims[k] == 1) continue;
        /* axis w-1 steps as dims[k] steps of axis k in every input */
        if (w > 0 && d->sc[w - 1] == d->sc[k] * d->dims[k] &&
            d->sa[w - 1] == d->sa[k] * d->dims[k] && d->sb[w - 1] == d->sb[k] * d->dims[k]) {
            d->dims[w - 1] *= d->dims[k];
            d->sc[w - 1] = d->sc[k];
            d->sa[w - 1] = d->sa[k];
            d->sb[w - 1] = d->sb[k];
            continue;
        }
        d->dims[w] = d->dims[k];
        d->sc[w] = d->sc[k];
        d->sa[w] = d->sa[k];
        d->sb[w] = d->sb[k];
        w++;
    }
    if (w == 0) {   /* one element */
        d->dims[0] = 1;
        d->sc[0] = d->sa[0] = d->sb[0] = 0;
        w = 1;
    }
    d->rank = w;
}

/* n elements of Y from c, a, b advancing by sc, sa, sb: restrict (Y is a
 * new buffer) and unconditional loads (both inputs are readable along the
 * row), so that the select vectorizes. */
#define WHERE_ROW(T)                                                                        \
    do {                                                                                    \
        const T *restrict A = (const T *)a + oa, *restrict B = (const T *)b + ob;           \
        T *restrict Y = (T *)y + oy;                                                        \
        const uint8_t *restrict C = c + oc;                                                 \
        if (sc == 0) {   /* one choice for the whole row */                                 \
            const T *S = C[0] ? A : B;                                                      \
            const int64_t ss = C[0] ? sa : sb;                                              \
            if (ss == 1) memcpy(Y, S, (size_t)n * sizeof(T));                              \
            else {                                                                          \
                const T v = S[0];                                                           \
                for (int64_t i = 0; i < n; i++) Y[i] = ss ? S[i * ss] : v;                  \
            }                                                                               \
        } else if (sc == 1 && sa == 1 && sb == 1) {                                         \
            for (int64_t i = 0; i < n; i++) {                                               \
                const T u = A[i], v = B[i];                                                 \
                Y[i] = C[i] ? u : v;                                                        \
            }                                                                               \
        } else if (sc == 1 && sa == 1 && sb == 0) {                                         \
            const T v = B[0];                                                               \
            for (int64_t i = 0; i < n; i++) {                                               \
                const T u = A[i];                                                           \
                Y[i] = C[i] ? u : v;                                                        \
            }                                                                               \
        } else if (sc == 1 && sa == 0 && sb == 1) {                                         \
            const T u = A[0];                                                               \
            for (int64_t i = 0; i < n; i++) {                                               \
                const T v = B[i];                                                           \
                Y[i] = C[i] ? u : v;                                                        \
            }                                                                               \
        } else if (sc == 1 && sa == 0 && sb == 0) {                                         \
            const T u = A[0], v = B[0];                                                     \
            for (int64_t i = 0; i < n; i++) Y[i] = C[i] ? u : v;                            \
        } else {                                                                            \
            for (int64_t i = 0; i < n; i++) Y[i] = C[i * sc] ? A[i * sa] : B[i * sb];       \
        }                                                                                   \
    } while (0)

static void where_row(size_t es, const uint8_t *c, const void *a, const void *b, void *y,
                      int64_t oc, int64_t oa, int64_t ob, int64_t oy, int64_t sc, int64_t sa,
                      int64_t sb, int64_t n)
{
    switch (es) {
    case 1: WHERE_ROW(uint8_t); break;
    case 2: WHERE_ROW(uint16_t); break;
    case 4: WHERE_ROW(uint32_t); break;
    case 8: WHERE_ROW(uint64_t); break;
    default: {   /* other sizes (complex, strings' handles): bytes */
        const char *pa = a, *pb = b;
        char *py = y;
        for (int64_t i = 0; i < n; i++)
            memcpy(py + (size_t)(oy + i) * es,
                   c[oc + i * sc] ? pa + (size_t)(oa + i * sa) * es
                                  : pb + (size_t)(ob + i * sb) * es, es);
        break;
    }
    }
}

void pz_any_where__fast(const pz_where_desc *d, size_t es, const uint8_t *c, const void *a,
                        const void *b, void *y, int ith, int nth)
{
    const int r = d->rank;
    const int64_t inner = d->dims[r - 1], total = pz_prod(d->dims, r);
    int64_t lo, hi;
    pz_split(total, ith, nth, &lo, &hi);
    if (lo >= hi) return;
    /* element lo: its row's coordinates and the inputs' offsets there */
    int64_t idx[PZ_MAX_RANK] = {0}, pos = lo % inner, rest = lo / inner;
    int64_t oc = pos * d->sc[r - 1], oa = pos * d->sa[r - 1], ob = pos * d->sb[r - 1];
    for (int k = r - 2; k >= 0; k--) {
        idx[k] = rest % d->dims[k];
        rest /= d->dims[k];
        oc += idx[k] * d->sc[k];
        oa += idx[k] * d->sa[k];
        ob += idx[k] * d->sb[k];
    }
    for (int64_t e = lo; e < hi;) {
        const int64_t n = inner - pos < hi - e ? inner - pos : hi - e;
        where_row(es, c, a, b, y, oc, oa, ob, e, d->sc[r - 1], d->sa[r - 1], d->sb[r - 1], n);
        e += n;
        /* the next row: back to the row's start, then carry through the outer axes */
        oc -= pos * d->sc[r - 1];
        oa -= pos * d->sa[r - 1];
        ob -= pos * d->sb[r - 1];
        pos = 0;
        for (int k = r - 2; k >= 0; k--) {
            oc += d->sc[k];
            oa += d->sa[k];
            ob += d->sb[k];
            if (++idx[k] < d->dims[k]) break;
            oc -= d->sc[k] * d->dims[k];
            oa -= d->sa[k] * d->dims[k];
            ob -= d->sb[k] * d->dims[k];
            idx[k] = 0;
        }
    }
}
