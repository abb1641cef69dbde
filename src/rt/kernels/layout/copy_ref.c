/* copy_ref.c - reference byte copy (Identity, Reshape, Flatten, ...). */
#include "rt/kernels/kernels.h"

void pz_any_copy__ref(size_t bytes, const void *x, void *y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split((int64_t)bytes, ith, nth, &lo, &hi);
    if (hi > lo && x != y) memcpy((char *)y + lo, (const char *)x + lo, (size_t)(hi - lo));
}
