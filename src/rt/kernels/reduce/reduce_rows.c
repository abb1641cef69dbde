/* reduce_rows.c - float32 Sum, Max and Mean over the innermost axes (a
 * transformer's x.sum(-1), x.max(-1), x.mean(-1)): each of `rows` rows of
 * `len` contiguous elements into one value, 16 partial results at a time
 * (a fixed-size block the compiler turns into vector code even at -O2).
 * Float partial sums round unlike reduce_ref.c's one double sum;
 * tests/unit/rt_reduce.c bounds the difference. Max keeps NaN, as the
 * reference does: a lane that saw one stays NaN. */
#include <math.h>

#include "rt/kernels/kernels.h"

enum { LANES = 16 };

static float row_sum(int64_t len, const float *restrict x)
{
    float acc[LANES] = {0}, s = 0;
    int64_t i = 0;
    for (; i + LANES <= len; i += LANES)
        for (int j = 0; j < LANES; j++) acc[j] += x[i + j];
    for (int j = 0; j < LANES; j++) s += acc[j];
    for (; i < len; i++) s += x[i];
    return s;
}

static inline float max_nan(float a, float v)
{
    return (v > a || v != v) ? v : a;
}

static float row_max(int64_t len, const float *restrict x)
{
    float acc[LANES], m = -INFINITY;
    for (int j = 0; j < LANES; j++) acc[j] = -INFINITY;
    int64_t i = 0;
    for (; i + LANES <= len; i += LANES)
        for (int j = 0; j < LANES; j++) acc[j] = max_nan(acc[j], x[i + j]);
    for (int j = 0; j < LANES; j++) m = max_nan(m, acc[j]);
    for (; i < len; i++) m = max_nan(m, x[i]);
    return m;
}

void pz_f32_reduce_rows__blocked(pz_reduce_func f, int64_t rows, int64_t len,
                                 const float *restrict x, float *restrict y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        const float *row = x + r * len;
        if (f == PZ_RED_MAX) y[r] = row_max(len, row);
        else if (f == PZ_RED_SUM) y[r] = row_sum(len, row);
        else y[r] = len > 0 ? row_sum(len, row) / (float)len : NAN;
    }
}
