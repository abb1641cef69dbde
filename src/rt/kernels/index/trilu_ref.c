/* trilu_ref.c - reference Trilu: the upper or lower triangle of each
 * matrix, the rest zero, any element type. */
#include "rt/kernels/kernels.h"

void pz_any_trilu__ref(size_t es, int64_t batch, int64_t rows, int64_t cols, int upper, int64_t k,
                       const void *x, void *y, int ith, int nth)
{
    /* one unit of work = one matrix row */
    int64_t lo, hi;
    pz_split(batch * rows, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t i = u % rows;
        /* kept columns: [i + k, cols) upper, [0, i + k] lower, clamped */
        int64_t a = upper ? i + k : 0, b = upper ? cols : i + k + 1;
        a = a < 0 ? 0 : a > cols ? cols : a;
        b = b < a ? a : b > cols ? cols : b;
        const char *src = (const char *)x + (size_t)(u * cols) * es;
        char *dst = (char *)y + (size_t)(u * cols) * es;
        memset(dst, 0, (size_t)a * es);
        memcpy(dst + (size_t)a * es, src + (size_t)a * es, (size_t)(b - a) * es);
        memset(dst + (size_t)b * es, 0, (size_t)(cols - b) * es);
    }
}
