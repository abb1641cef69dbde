/* unique_ref.c - reference Unique: the distinct slices of X along an axis
 * (X seen as [outer, n, inner]; slice j is x[:, j, :]), as numpy.unique
 * gives them with return_index, return_inverse and return_counts.
 * A stable merge sort orders the slices lexicographically (element (o, i)
 * in row-major order; floats as double, signed and unsigned integers
 * exactly); equal neighbours form a group whose first index is the
 * smallest. sorted = 0 orders the groups by that first index instead. */
#include <string.h>

#include "rt/kernels/kernels.h"

typedef struct {
    int dt;
    int64_t outer, n, inner;
    const void *x;
} slices;

static int cmp_elem(const slices *s, int64_t a, int64_t b)
{
    if (pz_dtype_is_float(s->dt)) {
        double u = pz_load_f64(s->x, s->dt, a), v = pz_load_f64(s->x, s->dt, b);
        return u < v ? -1 : u > v;
    }
    uint64_t u = pz_load_bits(s->x, s->dt, a), v = pz_load_bits(s->x, s->dt, b);
    if (pz_dtype_is_signed(s->dt)) return (int64_t)u < (int64_t)v ? -1 : (int64_t)u > (int64_t)v;
    return u < v ? -1 : u > v;
}

static int cmp_slice(const slices *s, int64_t a, int64_t b)
{
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < s->inner; i++) {
            int c = cmp_elem(s, (o * s->n + a) * s->inner + i, (o * s->n + b) * s->inner + i);
            if (c) return c;
        }
    return 0;
}

/* Stable: on equal slices the lower index comes first. */
static void merge_sort(const slices *s, int64_t *v, int64_t *tmp, int64_t len)
{
    for (int64_t w = 1; w < len; w *= 2) {
        for (int64_t lo = 0; lo < len; lo += 2 * w) {
            int64_t mid = lo + w < len ? lo + w : len, hi = lo + 2 * w < len ? lo + 2 * w : len;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = cmp_slice(s, v[j], v[i]) < 0 ? v[j++] : v[i++];
            while (i < mid) tmp[k++] = v[i++];
            while (j < hi) tmp[k++] = v[j++];
        }
        memcpy(v, tmp, (size_t)len * sizeof *v);
    }
}

int64_t pz_any_unique__ref(int dt, int sorted, int64_t outer, int64_t n, int64_t inner,
                           const void *x, void *y, int64_t *idx, int64_t *inv, int64_t *cnt,
                           int64_t *scratch)
{
    if (n == 0) return 0;   /* no slices; scratch may be NULL */
    slices s = {dt, outer, n, inner, x};
    int64_t *order = scratch, *tmp = scratch + n, *first = scratch + 2 * n,
            *count = scratch + 3 * n, *pos = scratch + 4 * n;
    for (int64_t j = 0; j < n; j++) order[j] = j;
    merge_sort(&s, order, tmp, n);
    /* groups in sorted order; tmp[j]: the group of slice j */
    int64_t u = 0;
    for (int64_t k = 0; k < n; k++) {
        if (k == 0 || cmp_slice(&s, order[k - 1], order[k])) {
            first[u] = order[k];
            count[u++] = 0;
        }
        tmp[order[k]] = u - 1;
        count[u - 1]++;
    }
    /* pos[q]: the group at output position q */
    if (sorted) {
        for (int64_t q = 0; q < u; q++) pos[q] = q;
    } else {
        /* by first index: first indices are distinct, so a sweep over them */
        for (int64_t j = 0; j < n; j++) order[j] = -1;
        for (int64_t g = 0; g < u; g++) order[first[g]] = g;
        int64_t q = 0;
        for (int64_t j = 0; j < n; j++)
            if (order[j] >= 0) pos[q++] = order[j];
    }
    size_t es = pz_dtype_size(dt), row = (size_t)inner * es;
    for (int64_t q = 0; q < u; q++) {
        int64_t grp = pos[q];
        for (int64_t o = 0; o < outer; o++)
            memcpy((char *)y + (size_t)(o * u + q) * row,
                   (const char *)x + (size_t)(o * n + first[grp]) * row, row);
        if (idx) idx[q] = first[grp];
        if (cnt) cnt[q] = count[grp];
    }
    if (inv) {
        /* order is free now: the output position of each group */
        for (int64_t q = 0; q < u; q++) order[pos[q]] = q;
        for (int64_t j = 0; j < n; j++) inv[j] = order[tmp[j]];
    }
    return u;
}
