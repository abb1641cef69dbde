/* batchnorm_ref.c - reference inference-mode BatchNormalization. */
#include <math.h>

#include "rt/kernels/kernels.h"

void pz_f32_batchnorm__ref(const pz_bn_params *p, int rank, const int64_t *xd, const float *x,
                           const float *scale, const float *bias, const float *mean,
                           const float *var, float *y, int ith, int nth)
{
    int64_t N = rank >= 2 ? xd[0] : 1, C = rank >= 2 ? xd[1] : xd[0];
    int64_t plane = rank > 2 ? pz_prod(xd + 2, rank - 2) : 1;

    /* one unit of work = one (n, c) plane */
    int64_t lo, hi;
    pz_split(N * C, ith, nth, &lo, &hi);
    for (int64_t nc = lo; nc < hi; nc++) {
        int64_t c = nc % C;
        float a = scale[c] / sqrtf(var[c] + p->epsilon);
        float b = bias[c] - mean[c] * a;
        const float *xp = x + nc * plane;
        float *yp = y + nc * plane;
        for (int64_t i = 0; i < plane; i++) yp[i] = xp[i] * a + b;
    }
}
