/* arg_ref.c - reference ArgMax, ArgMin and Hardmax along one axis, any
 * element type: integers compared exactly as integers, floats as doubles. A
 * NaN counts as the largest and the smallest value (numpy: the first NaN
 * wins), so a line with a NaN points at it. */
#include "rt/kernels/kernels.h"

/* 1 when v replaces best: beyond it (ties: only with select_last). */
PZ_ALWAYS_INLINE int arg_better_f(double v, double best, int want_min, int last)
{
    if (best != best) return last && v != v;
    if (v != v) return 1;
    return want_min ? (v < best || (last && v == best)) : (v > best || (last && v == best));
}

PZ_ALWAYS_INLINE int arg_better_i(uint64_t v, uint64_t best, int sgn, int want_min, int last)
{
    int gt = sgn ? (int64_t)v > (int64_t)best : v > best;
    int lt = sgn ? (int64_t)v < (int64_t)best : v < best;
    return (want_min ? lt : gt) || (last && v == best);
}

/* The index along the axis of line (o, i)'s extreme, n >= 1. */
static int64_t arg_line(const pz_arg_params *p, int dt, const pz_axis_shape *s, const void *x,
                        int64_t base)
{
    const int want_min = p->func == PZ_ARG_MIN, last = p->select_last && p->func != PZ_ARG_HARDMAX;
    int64_t best_k = 0;
    if (pz_dtype_is_int(dt) || dt == PZ_BOOL) {
        const int sgn = pz_dtype_is_signed(dt);
        uint64_t best = pz_load_bits(x, dt, base);
        for (int64_t k = 1; k < s->n; k++) {
            uint64_t v = pz_load_bits(x, dt, base + k * s->inner);
            if (arg_better_i(v, best, sgn, want_min, last)) { best = v; best_k = k; }
        }
    } else {
        double best = pz_ld(x, dt, base);
        for (int64_t k = 1; k < s->n; k++) {
            double v = pz_ld(x, dt, base + k * s->inner);
            if (arg_better_f(v, best, want_min, last)) { best = v; best_k = k; }
        }
    }
    return best_k;
}

void pz_any_arg__ref(const pz_arg_params *p, int dtype, const pz_axis_shape *s, const void *x,
                     void *y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(s->outer * s->inner, ith, nth, &lo, &hi);   /* lines (o, i) */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t o = u / s->inner, i = u % s->inner, base = o * s->n * s->inner + i;
        if (s->n == 0) continue;
        const int64_t k = arg_line(p, dtype, s, x, base);
        if (p->func != PZ_ARG_HARDMAX) {
            ((int64_t *)y)[u] = k;
            continue;
        }
        for (int64_t j = 0; j < s->n; j++) pz_st(y, dtype, base + j * s->inner, j == k);
    }
}
