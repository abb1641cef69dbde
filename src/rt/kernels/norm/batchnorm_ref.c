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
        for (int64_t i = 0; i < plane; i++) yp[i] = pz_act_f32(&p->act, xp[i] * a + b);
    }
}

/* Training mode: per channel c, the batch's mean and population variance
 * over N and the spatial dims (in double), then Y as above with them, and
 * the running statistics mean * momentum + batch * (1 - momentum). One unit
 * of work = one channel (it reads every (n, c) plane of that channel). */
void pz_f32_batchnorm_train__ref(const pz_bn_params *p, int rank, const int64_t *xd,
                                 const float *x, const float *scale, const float *bias,
                                 const float *mean, const float *var, float *y,
                                 float *run_mean, float *run_var, int ith, int nth)
{
    int64_t N = rank >= 2 ? xd[0] : 1, C = rank >= 2 ? xd[1] : xd[0];
    int64_t plane = rank > 2 ? pz_prod(xd + 2, rank - 2) : 1;
    double count = (double)(N * plane);

    int64_t lo, hi;
    pz_split(C, ith, nth, &lo, &hi);
    for (int64_t c = lo; c < hi; c++) {
        double sum = 0, sq = 0;
        for (int64_t n = 0; n < N; n++) {
            const float *xp = x + (n * C + c) * plane;
            for (int64_t i = 0; i < plane; i++) sum += xp[i];
        }
        double m = count > 0 ? sum / count : 0;
        for (int64_t n = 0; n < N; n++) {
            const float *xp = x + (n * C + c) * plane;
            for (int64_t i = 0; i < plane; i++) sq += (xp[i] - m) * (xp[i] - m);
        }
        double v = count > 0 ? sq / count : 0;
        float a = (float)(scale[c] / sqrt(v + p->epsilon));
        float b = (float)(bias[c] - m * a);
        for (int64_t n = 0; n < N; n++) {
            const float *xp = x + (n * C + c) * plane;
            float *yp = y + (n * C + c) * plane;
            for (int64_t i = 0; i < plane; i++) yp[i] = xp[i] * a + b;
        }
        if (run_mean) run_mean[c] = (float)(mean[c] * p->momentum + m * (1.0 - p->momentum));
        if (run_var) run_var[c] = (float)(var[c] * p->momentum + v * (1.0 - p->momentum));
    }
}
