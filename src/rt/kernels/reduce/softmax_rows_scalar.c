/* softmax_rows_scalar.c - the scalar twin of softmax_rows_avx512.c: the
 * softmax (or log-softmax) of contiguous rows in float, the maximum
 * subtracted, e^x taken as 0 below x = -87 (exp_neg_ps, vmath_avx512.h). */
#include <math.h>

#include "rt/kernels/fast.h"

void pz_f32_softmax_rows__scalar(int is_log, int64_t rows, int64_t n, const float *x, float *y,
                                 int ith, int nth)
{
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n, mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < n; j++) mx = xr[j] > mx ? xr[j] : mx;
        for (int64_t j = 0; j < n; j++) {
            float e = xr[j] - mx;
            e = e < -87.0f ? 0.0f : expf(e);
            sum += e;
            if (!is_log) yr[j] = e;
        }
        /* NaN in, +inf in or every element -inf: NaN out, as the reference gives */
        if (isnan(mx) || isinf(mx)) {
            for (int64_t j = 0; j < n; j++) yr[j] = NAN;
            continue;
        }
        const float ls = logf(sum), inv = 1.0f / sum;
        for (int64_t j = 0; j < n; j++) yr[j] = is_log ? xr[j] - (mx + ls) : yr[j] * inv;
    }
}
