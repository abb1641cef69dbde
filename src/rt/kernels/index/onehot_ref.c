/* onehot_ref.c - reference OneHot: y[o, d, i] = values[d == index[o, i]]
 * (an index below 0 counts from depth; one outside [0, depth) sets no d).
 * Indices of any numeric type, truncated toward zero as a cast to int64. */
#include "rt/kernels/kernels.h"

void pz_any_onehot__ref(int itype, const void *ind, int64_t outer, int64_t depth, int64_t inner,
                        size_t es, const void *values, void *y, int ith, int nth)
{
    const char *off = values, *on = (const char *)values + es;
    int64_t lo, hi;
    pz_split(outer * inner, ith, nth, &lo, &hi);   /* indices (o, i) */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t o = u / inner, i = u % inner;
        int64_t at;
        if (pz_dtype_is_float(itype)) {
            double v = pz_load_f64(ind, itype, u);
            at = v != v || v <= -9.2e18 || v >= 9.2e18 ? -1 - depth : (int64_t)v;
        } else if (pz_dtype_is_signed(itype)) {
            at = (int64_t)pz_load_bits(ind, itype, u);
        } else {
            uint64_t b = pz_load_bits(ind, itype, u);
            at = b > (uint64_t)INT64_MAX ? -1 - depth : (int64_t)b;
        }
        if (at < 0) at += depth;
        char *yo = (char *)y + (size_t)((o * depth * inner + i)) * es;
        for (int64_t d = 0; d < depth; d++)
            memcpy(yo + (size_t)(d * inner) * es, d == at ? on : off, es);
    }
}
