/* view_fast.c - the strided view's fast twin (bcast_fast.h): rows of Y,
 * the X offset carried from row to row, a repeated element (stride 0) or
 * a strided row by typed loops, a contiguous row by memcpy. */
#include "rt/kernels/bcast_fast.h"

/* n elements from src, s apart, to dst (contiguous): s == 0 fills one value. */
#define VIEW_ROW(T)                                                                         \
    do {                                                                                    \
        const T *restrict S = (const T *)src;                                               \
        T *restrict D = (T *)dst;                                                           \
        if (s == 0) {                                                                       \
            const T v = S[0];                                                               \
            for (int64_t i = 0; i < n; i++) D[i] = v;                                       \
        } else {                                                                            \
            for (int64_t i = 0; i < n; i++) D[i] = S[i * s];                                \
        }                                                                                   \
    } while (0)

static void view_row(size_t es, const char *src, int64_t s, char *dst, int64_t n)
{
    if (s == 1) {
        memcpy(dst, src, (size_t)n * es);
        return;
    }
    switch (es) {
    case 1: VIEW_ROW(uint8_t); break;
    case 2: VIEW_ROW(uint16_t); break;
    case 4: VIEW_ROW(uint32_t); break;
    case 8: VIEW_ROW(uint64_t); break;
    default:
        for (int64_t i = 0; i < n; i++) memcpy(dst + (size_t)i * es, src + i * s * (int64_t)es, es);
        break;
    }
}

void pz_any_view__fast(const pz_view_desc *d, size_t es, const void *x, void *y, int ith,
                       int nth)
{
    const int r = d->rank;
    const int64_t inner = d->dims[r - 1], rows = pz_prod(d->dims, r - 1);
    const int64_t s = d->stride[r - 1], a = d->lo[r - 1], b = d->hi[r - 1];
    if (inner == 0) return;
    /* one unit of work = one row of the last dim, as the reference */
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    if (lo >= hi) return;
    /* row lo's coordinates, X offset and how many axes are outside [lo, hi) */
    int64_t idx[PZ_VIEW_MAX_RANK] = {0}, off = d->base, rem = lo;
    int outside = 0;
    for (int k = r - 2; k >= 0; k--) {
        idx[k] = rem % d->dims[k];
        rem /= d->dims[k];
        off += idx[k] * d->stride[k];
        outside += idx[k] < d->lo[k] || idx[k] >= d->hi[k];
    }
    for (int64_t u = lo; u < hi; u++) {
        char *dst = (char *)y + (size_t)(u * inner) * es;
        if (outside || a >= b) {
            memset(dst, 0, (size_t)inner * es);
        } else {
            if (a > 0) memset(dst, 0, (size_t)a * es);
            if (b < inner) memset(dst + (size_t)b * es, 0, (size_t)(inner - b) * es);
            view_row(es, (const char *)x + (off + a * s) * (int64_t)es, s, dst + (size_t)a * es,
                     b - a);
        }
        /* the next row: carry through the outer axes, last first */
        for (int k = r - 2; k >= 0; k--) {
            outside -= idx[k] < d->lo[k] || idx[k] >= d->hi[k];
            off += d->stride[k];
            if (++idx[k] < d->dims[k]) {
                outside += idx[k] < d->lo[k] || idx[k] >= d->hi[k];
                break;
            }
            off -= d->stride[k] * d->dims[k];
            idx[k] = 0;
            outside += 0 < d->lo[k] || 0 >= d->hi[k];
        }
    }
}
