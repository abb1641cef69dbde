/* rows.c - row arithmetic of fused runs and of the compiler's halo count
 * (rows.h). The per-layer queries live with their ops (ops/conv.c,
 * ops/pool.c). */
#include "rt/rows.h"

#include "rt/kernels/kernels.h"

void pz_rows_window(int64_t lo, int64_t hi, int64_t kernel, int64_t stride, int64_t pad_begin,
                    int64_t dilation, int64_t in_rows, int64_t *in_lo, int64_t *in_hi)
{
    if (lo >= hi) {
        *in_lo = *in_hi = 0;
        return;
    }
    /* first row read by output row lo; one past the last read by row hi-1 */
    int64_t a = lo * stride - pad_begin;
    int64_t b = (hi - 1) * stride - pad_begin + (kernel - 1) * dilation + 1;
    if (a < 0) a = 0;
    if (b > in_rows) b = in_rows;
    if (a >= b) a = b = 0;
    *in_lo = a;
    *in_hi = b;
}

void pz_rows_align(int64_t step, int64_t rows, int64_t *lo, int64_t *hi)
{
    if (*hi <= *lo || step <= 1) return;
    *lo = *lo / step * step;
    *hi = (*hi + step - 1) / step * step;
    if (*hi > rows) *hi = rows;
}

void pz_rows_band(int64_t rows, int64_t step, int ith, int nth, int64_t *lo, int64_t *hi)
{
    if (step < 1) step = 1;
    if (ith >= nth) {
        *lo = *hi = rows;
        return;
    }
    int64_t a, b;
    pz_split((rows + step - 1) / step, ith, nth, &a, &b);
    *lo = a * step < rows ? a * step : rows;
    *hi = b * step < rows ? b * step : rows;
}

int64_t pz_rows_union(int64_t *r, int n)
{
    /* insertion sort by start: n is a number of workers */
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && r[2 * k] < r[2 * k - 2]; k--) {
            int64_t a = r[2 * k], b = r[2 * k + 1];
            r[2 * k] = r[2 * k - 2], r[2 * k + 1] = r[2 * k - 1];
            r[2 * k - 2] = a, r[2 * k - 1] = b;
        }
    int64_t total = 0, end = INT64_MIN;
    for (int i = 0; i < n; i++) {
        int64_t lo = r[2 * i] > end ? r[2 * i] : end, hi = r[2 * i + 1];
        if (hi > lo) total += hi - lo;
        if (hi > end) end = hi;
    }
    return total;
}
