/* compress_ref.c - reference Compress: the slices of X along an axis whose
 * condition is true, in order; a condition shorter than the axis drops the
 * slices past it, one longer is read only as far as the axis goes. */
#include <string.h>

#include "rt/kernels/kernels.h"

int64_t pz_any_compress__ref(size_t esize, int64_t outer, int64_t n, int64_t inner, const void *x,
                             const uint8_t *cond, int64_t ncond, void *y)
{
    int64_t m = ncond < n ? ncond : n, k = 0;
    for (int64_t j = 0; j < m; j++) k += cond[j] != 0;
    const size_t row = (size_t)inner * esize;
    for (int64_t o = 0; o < outer; o++) {
        char *dst = (char *)y + (size_t)(o * k) * row;
        for (int64_t j = 0; j < m; j++) {
            if (!cond[j]) continue;
            memcpy(dst, (const char *)x + (size_t)(o * n + j) * row, row);
            dst += row;
        }
    }
    return k;
}
