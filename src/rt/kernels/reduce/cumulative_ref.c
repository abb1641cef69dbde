/* cumulative_ref.c - reference CumSum and CumProd along one axis, any
 * numeric type: floats accumulate in double, integers in 64-bit integers
 * (exact, wrapping as the type does). */
#include "rt/kernels/kernels.h"

void pz_any_cumulative__ref(const pz_cum_params *p, int dtype, const pz_axis_shape *s,
                            const void *x, void *y, int ith, int nth)
{
    const int prod = p->func == PZ_CUM_PROD, exact = pz_dtype_is_int(dtype);
    int64_t lo, hi;
    pz_split(s->outer * s->inner, ith, nth, &lo, &hi);   /* lines (o, i) */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t o = u / s->inner, i = u % s->inner, base = o * s->n * s->inner + i;
        /* k walks the line from its start (reverse: from its end) */
        const int64_t step = p->reverse ? -s->inner : s->inner;
        int64_t off = p->reverse ? base + (s->n - 1) * s->inner : base;
        double acc = prod;
        uint64_t iacc = (uint64_t)prod;
        for (int64_t k = 0; k < s->n; k++, off += step) {
            if (exact) {
                uint64_t v = pz_load_bits(x, dtype, off), before = iacc;
                iacc = prod ? iacc * v : iacc + v;
                pz_store_bits(y, dtype, off, p->exclusive ? before : iacc);
            } else {
                double v = pz_ld(x, dtype, off), before = acc;
                acc = prod ? acc * v : acc + v;
                pz_st(y, dtype, off, p->exclusive ? before : acc);
            }
        }
    }
}
