/* gather_fast.c - the fast twins of Gather, GatherElements and GatherND
 * (bcast_fast.h): whole slices by memcpy, single elements by typed loads
 * and stores, coordinates carried row to row. An index out of range gives
 * zeros, as in the references (the model's error; never a read outside X). */
#include "rt/kernels/bcast_fast.h"

/* Index j of idx (int32 or int64) normalised for an axis of n; -1 outside. */
#define IDX_AT(j) pz_index_at(idx, itype, (j), n)

/* y[i] = x[index i] (0 outside) for i in [j0, j1) of one outer row. */
#define GATHER1(T)                                                                          \
    do {                                                                                    \
        const T *restrict X = (const T *)x + o * n;                                         \
        T *restrict Y = (T *)y + o * nidx;                                                  \
        for (int64_t j = j0; j < j1; j++) {                                                 \
            const int64_t k = IDX_AT(j);                                                    \
            Y[j] = k >= 0 ? X[k] : 0;                                                       \
        }                                                                                   \
    } while (0)

void pz_any_gather__fast(size_t es, int64_t outer, int64_t n, int64_t inner, int itype,
                         const void *idx, int64_t nidx, const void *x, void *y, int ith, int nth)
{
    const size_t chunk = (size_t)inner * es;   /* bytes per gathered slice */
    int64_t lo, hi;
    pz_split(outer * nidx, ith, nth, &lo, &hi);   /* units (o, j), as the reference */
    if (lo >= hi) return;
    for (int64_t o = lo / nidx, u = lo; u < hi; o++) {
        const int64_t j0 = u - o * nidx, j1 = hi - o * nidx < nidx ? hi - o * nidx : nidx;
        if (inner == 1 && (es == 1 || es == 2 || es == 4 || es == 8)) {
            switch (es) {
            case 1: GATHER1(uint8_t); break;
            case 2: GATHER1(uint16_t); break;
            case 4: GATHER1(uint32_t); break;
            default: GATHER1(uint64_t); break;
            }
        } else {
            const char *xo = (const char *)x + (size_t)(o * n) * chunk;
            char *dst = (char *)y + (size_t)(o * nidx + j0) * chunk;
            for (int64_t j = j0; j < j1; j++, dst += chunk) {
                const int64_t k = IDX_AT(j);
                if (k < 0) memset(dst, 0, chunk);
                else memcpy(dst, xo + (size_t)k * chunk, chunk);
            }
        }
        u += j1 - j0;
    }
}

/* m elements of a row of GatherElements from element e: X read from o0,
 * along the axis (last) by the index alone, else also xl per element. */
#define GATHER_EL(T)                                                                        \
    do {                                                                                    \
        const T *restrict X = (const T *)x + o0;                                            \
        T *restrict Y = (T *)y + e;                                                         \
        if (last)                                                                           \
            for (int64_t i = 0; i < m; i++) {                                               \
                const int64_t k = IDX_AT(e + i);                                            \
                Y[i] = k >= 0 ? X[k] : 0;                                                   \
            }                                                                               \
        else                                                                                \
            for (int64_t i = 0; i < m; i++) {                                               \
                const int64_t k = IDX_AT(e + i);                                            \
                Y[i] = k >= 0 ? X[i * xl + k * xa] : 0;                                     \
            }                                                                               \
    } while (0)

void pz_any_gather_elements__fast(size_t es, int rank, const int64_t *id, const int64_t *xs,
                                  int axis, int64_t n, int itype, const void *idx, const void *x,
                                  void *y, int ith, int nth)
{
    const int64_t inner = id[rank - 1], xl = xs[rank - 1], xa = xs[axis];
    const int last = axis == rank - 1;
    if (!(es == 1 || es == 2 || es == 4 || es == 8) || inner == 0) {
        pz_any_gather_elements__ref(es, rank, id, xs, axis, n, itype, idx, x, y, ith, nth);
        return;
    }
    int64_t lo, hi;
    pz_split(pz_prod(id, rank), ith, nth, &lo, &hi);
    if (lo >= hi) return;
    /* element lo: its row's coordinates; off = X's offset of the row's
     * start with the axis coordinate left out (the index gives it) */
    int64_t c[PZ_MAX_RANK] = {0}, pos = lo % inner, rem = lo / inner, off = 0;
    for (int d = rank - 2; d >= 0; d--) {
        c[d] = rem % id[d];
        rem /= id[d];
        if (d != axis) off += c[d] * xs[d];
    }
    for (int64_t e = lo; e < hi;) {
        const int64_t m = inner - pos < hi - e ? inner - pos : hi - e;
        const int64_t o0 = off + (last ? 0 : pos * xl);   /* X at the row's element pos */
        switch (es) {
        case 1: GATHER_EL(uint8_t); break;
        case 2: GATHER_EL(uint16_t); break;
        case 4: GATHER_EL(uint32_t); break;
        default: GATHER_EL(uint64_t); break;
        }
        e += m;
        pos = 0;
        for (int d = rank - 2; d >= 0; d--) {   /* carry, axis steps not in off */
            if (d != axis) off += xs[d];
            if (++c[d] < id[d]) break;
            if (d != axis) off -= xs[d] * id[d];
            c[d] = 0;
        }
    }
}

/* One element per tuple: y[t] = x[offset of tuple t] (0 outside). */
#define GATHER_ND1(T)                                                                       \
    do {                                                                                    \
        const T *restrict X = (const T *)x;                                                 \
        T *restrict Y = (T *)y;                                                             \
        for (int64_t t = lo; t < hi; t++) {                                                 \
            const int64_t o = nd_offset(t, k, xd, itype, idx);                              \
            Y[t] = o >= 0 ? X[(t / per_batch) * batch_elems + o] : 0;                       \
        }                                                                                   \
    } while (0)

/* The offset (in slices) of tuple t's k indices in the batch, -1 outside. */
static inline int64_t nd_offset(int64_t t, int k, const int64_t *xd, int itype, const void *idx)
{
    int64_t off = 0;
    for (int j = 0; j < k; j++) {
        const int64_t i = pz_index_at(idx, itype, t * k + j, xd[j]);
        if (i < 0) return -1;
        off = off * xd[j] + i;
    }
    return off;
}

void pz_any_gather_nd__fast(size_t es, int64_t tuples, int64_t per_batch, int k,
                            const int64_t *xd, int64_t batch_elems, int64_t slice, int itype,
                            const void *idx, const void *x, void *y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(tuples, ith, nth, &lo, &hi);
    if (slice == 1 && (es == 1 || es == 2 || es == 4 || es == 8)) {
        switch (es) {
        case 1: GATHER_ND1(uint8_t); break;
        case 2: GATHER_ND1(uint16_t); break;
        case 4: GATHER_ND1(uint32_t); break;
        default: GATHER_ND1(uint64_t); break;
        }
        return;
    }
    const size_t chunk = (size_t)slice * es;
    for (int64_t t = lo; t < hi; t++) {
        const int64_t o = nd_offset(t, k, xd, itype, idx);
        char *dst = (char *)y + (size_t)t * chunk;
        if (o < 0) memset(dst, 0, chunk);
        else memcpy(dst, (const char *)x + (size_t)((t / per_batch) * batch_elems + o * slice) * es,
                    chunk);
    }
}
