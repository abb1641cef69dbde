/* lrn_ref.c - reference LocalResponseNormalization across channels. */
#include <math.h>

#include "rt/kernels/kernels.h"

void pz_f32_lrn__ref(const pz_lrn_params *p, int rank, const int64_t *xd, const float *x,
                     float *y, int ith, int nth)
{
    int64_t N = xd[0], C = xd[1];
    int64_t plane = rank > 2 ? pz_prod(xd + 2, rank - 2) : 1;
    /* the window of channel c: [c - floor((size-1)/2), c + ceil((size-1)/2)] */
    int64_t before = (p->size - 1) / 2, after = p->size - 1 - before;

    int64_t lo, hi;
    pz_split(N * C, ith, nth, &lo, &hi);
    for (int64_t nc = lo; nc < hi; nc++) {
        int64_t n = nc / C, c = nc % C;
        int64_t c0 = c - before < 0 ? 0 : c - before;
        int64_t c1 = c + after > C - 1 ? C - 1 : c + after;
        for (int64_t i = 0; i < plane; i++) {
            float sq = 0;
            for (int64_t cc = c0; cc <= c1; cc++) {
                float v = x[(n * C + cc) * plane + i];
                sq += v * v;
            }
            float v = x[nc * plane + i];
            y[nc * plane + i] = v / powf(p->bias + p->alpha / (float)p->size * sq, p->beta);
        }
    }
}
