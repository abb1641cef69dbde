/* loss_ref.c - reference NegativeLogLikelihoodLoss and
 * SoftmaxCrossEntropyLoss (the latter: LogSoftmax over C, then the former),
 * any float type through double. */
#include "rt/kernels/kernels.h"

void pz_any_loss__ref(const pz_loss_params *p, int dt, int64_t N, int64_t C, int64_t D,
                      const void *x, int tt, const void *t, const void *w, void *loss,
                      void *logp, int ith, int nth)
{
    /* one unit of work = one vector u = (n, d): elements (n*C + c)*D + d */
    int64_t lo, hi;
    pz_split(N * D, ith, nth, &lo, &hi);
    const void *src = x;
    if (p->func == PZ_LOSS_SCE) {
        /* the same split over the N*D vectors: this worker reads back only
         * the vectors it wrote */
        pz_any_softmax__ref(1, dt, N, C, D, x, logp, ith, nth);
        src = logp;
    }
    double sum = 0, wsum = 0;
    for (int64_t u = lo; u < hi; u++) {
        int64_t tg = (int64_t)pz_load_bits(t, tt, u), n = u / D, d = u % D;
        double v, wt;
        if (p->has_ignore && tg == p->ignore_index) {
            v = 0;
            wt = 0;
        } else if (tg < 0 || tg >= C) {
            v = NAN;   /* ONNX leaves it undefined: say so rather than read outside X */
            wt = NAN;
        } else {
            wt = w ? pz_ld(w, dt, tg) : 1.0;
            v = -pz_ld(src, dt, (n * C + tg) * D + d) * wt;
        }
        if (p->reduction == PZ_LOSS_NONE) pz_st(loss, dt, u, v);
        sum += v;
        wsum += wt;
    }
    if (p->reduction == PZ_LOSS_SUM) pz_st(loss, dt, 0, sum);
    if (p->reduction == PZ_LOSS_MEAN) pz_st(loss, dt, 0, sum / wsum);
}
