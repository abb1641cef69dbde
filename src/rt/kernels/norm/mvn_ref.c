/* mvn_ref.c - reference MeanVarianceNormalization: for each group of
 * elements sharing the indices off the axes of mask, y = (x - mean) /
 * (sqrt(variance) + 1e-9), mean and population variance in double (ONNX's
 * function body adds the epsilon to the standard deviation). */
#include <math.h>

#include "rt/kernels/kernels.h"

void pz_any_mvn__ref(int dt, int rank, const int64_t *xd, int mask, const void *x, void *y,
                     int ith, int nth)
{
    int64_t st[PZ_MAX_RANK], kd[PZ_MAX_RANK], ks[PZ_MAX_RANK], rd[PZ_MAX_RANK], rs[PZ_MAX_RANK];
    int nk = 0, nr = 0;
    int64_t n = 1, groups = 1, m = 1;
    for (int a = rank - 1; a >= 0; a--) {
        st[a] = n;
        n *= xd[a];
    }
    for (int a = 0; a < rank; a++) {
        if (mask >> a & 1) {
            rd[nr] = xd[a];
            rs[nr++] = st[a];
            m *= xd[a];
        } else {
            kd[nk] = xd[a];
            ks[nk++] = st[a];
            groups *= xd[a];
        }
    }
    int64_t lo, hi;
    pz_split(groups, ith, nth, &lo, &hi);
    for (int64_t gi = lo; gi < hi; gi++) {
        int64_t base = 0, rest = gi;
        for (int k = nk - 1; k >= 0; k--) {
            base += rest % kd[k] * ks[k];
            rest /= kd[k];
        }
        /* pass 0: the mean, 1: the variance, 2: y */
        double mean = 0, var = 0;
        for (int pass = 0; pass < 3; pass++) {
            for (int64_t j = 0; j < m; j++) {
                int64_t off = base, r = j;
                for (int k = nr - 1; k >= 0; k--) {
                    off += r % rd[k] * rs[k];
                    r /= rd[k];
                }
                double v = pz_ld(x, dt, off);
                if (pass == 0) mean += v;
                else if (pass == 1) var += (v - mean) * (v - mean);
                else pz_st(y, dt, off, (v - mean) / (sqrt(var) + 1e-9));
            }
            if (pass == 0) mean /= (double)(m ? m : 1);
            if (pass == 1) var /= (double)(m ? m : 1);
        }
    }
}
