/* softmax_ref.c - reference Softmax and LogSoftmax along one axis. */
#include <math.h>

#include "rt/kernels/kernels.h"

PZ_ALWAYS_INLINE void softmax_body(int is_log, int dt, int64_t outer, int64_t n, int64_t inner,
                                   const void *x, void *y, int ith, int nth)
{
    /* one unit of work = one vector u = (o, i): elements (o*n + j)*inner + i */
    int64_t lo, hi;
    pz_split(outer * inner, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t base = (u / inner) * n * inner + u % inner;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < n; j++) {
            double v = pz_ld(x, dt, base + j * inner);
            mx = v > mx ? v : mx;
        }
        for (int64_t j = 0; j < n; j++) sum += exp(pz_ld(x, dt, base + j * inner) - mx);
        double lsum = log(sum);
        for (int64_t j = 0; j < n; j++) {
            double v = pz_ld(x, dt, base + j * inner) - mx;
            pz_st(y, dt, base + j * inner, is_log ? v - lsum : exp(v) / sum);
        }
    }
}

void pz_f32_softmax__ref(int is_log, int64_t outer, int64_t n, int64_t inner, const float *x,
                         float *y, int ith, int nth)
{
    softmax_body(is_log, PZ_F32, outer, n, inner, x, y, ith, nth);
}

void pz_any_softmax__ref(int is_log, int dtype, int64_t outer, int64_t n, int64_t inner,
                         const void *x, void *y, int ith, int nth)
{
    softmax_body(is_log, dtype, outer, n, inner, x, y, ith, nth);
}
