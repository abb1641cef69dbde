/* cast_fast.c - Cast's plain-C twin (bcast_fast.h): the conversions
 * between masks or bytes and float32 that the reference takes through
 * double per element (a Cast after a comparison: (y > t).float()), each
 * a typed loop gcc vectorizes. The values are the reference's: a bool,
 * uint8 or int8 is exact in float32; float32 -> bool is x != 0 (NaN
 * true, as (double)x != 0). */
#include "rt/kernels/bcast_fast.h"

bool pz_any_cast_fast_takes(int tx, int ty)
{
    return (ty == PZ_F32 && (tx == PZ_BOOL || tx == PZ_U8 || tx == PZ_I8)) ||
           (tx == PZ_F32 && ty == PZ_BOOL);
}

void pz_any_cast__fast(int tx, const void *x, int ty, void *y, int64_t n, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    if (ty == PZ_BOOL) {
        const float *xv = x;
        uint8_t *yv = y;
        for (int64_t i = lo; i < hi; i++) yv[i] = xv[i] != 0;
    } else if (tx == PZ_I8) {
        const int8_t *xv = x;
        float *yv = y;
        for (int64_t i = lo; i < hi; i++) yv[i] = (float)xv[i];
    } else {   /* bool bytes are 0 or 1; != 0 as the reference reads them */
        const uint8_t *xv = x;
        float *yv = y;
        if (tx == PZ_BOOL) for (int64_t i = lo; i < hi; i++) yv[i] = xv[i] != 0;
        else for (int64_t i = lo; i < hi; i++) yv[i] = (float)xv[i];
    }
}
