/* reduce_ref.c - reference ReduceMean over a set of axes. */
#include <math.h>

#include "rt/kernels/kernels.h"

PZ_ALWAYS_INLINE void reduce_mean_body(unsigned mask, int dt, int rank, const int64_t *xd,
                                       const void *x, void *y, int ith, int nth)
{
    /* split x's axes into kept (k*) and reduced (r*) ones, with x's strides */
    int64_t kd[PZ_MAX_RANK], ks[PZ_MAX_RANK], rd[PZ_MAX_RANK], rs[PZ_MAX_RANK];
    int nk = 0, nr = 0;
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; i--) {
        if (mask >> i & 1) { rd[nr] = xd[i]; rs[nr] = stride; nr++; }
        else { kd[nk] = xd[i]; ks[nk] = stride; nk++; }
        stride *= xd[i];
    }
    /* kd/rd are innermost first */
    int64_t nout = pz_prod(kd, nk), nred = pz_prod(rd, nr);

    /* one unit of work = one output element */
    int64_t lo, hi;
    pz_split(nout, ith, nth, &lo, &hi);
    /* the reduced axes the innermost ones (a LayerNorm's mean over the last
     * axis): each output the mean of one contiguous run, summed in the same
     * order as below */
    if (nr > 0 && (nk == 0 || ks[0] == nred)) {
        for (int64_t o = lo; o < hi; o++) {
            double sum = 0;
            for (int64_t r = 0; r < nred; r++) sum += pz_ld(x, dt, o * nred + r);
            pz_st(y, dt, o, sum / (double)nred);
        }
        return;
    }
    for (int64_t o = lo; o < hi; o++) {
        int64_t base = 0, rest = o;
        for (int i = 0; i < nk; i++) { base += rest % kd[i] * ks[i]; rest /= kd[i]; }
        double sum = 0;
        for (int64_t r = 0; r < nred; r++) {
            int64_t off = base;
            rest = r;
            for (int i = 0; i < nr; i++) { off += rest % rd[i] * rs[i]; rest /= rd[i]; }
            sum += pz_ld(x, dt, off);
        }
        pz_st(y, dt, o, nred > 0 ? sum / (double)nred : NAN);
    }
}

void pz_f32_reduce_mean__ref(unsigned mask, int rank, const int64_t *xd, const float *x,
                             float *y, int ith, int nth)
{
    reduce_mean_body(mask, PZ_F32, rank, xd, x, y, ith, nth);
}

void pz_any_reduce_mean__ref(unsigned mask, int dtype, int rank, const int64_t *xd,
                             const void *x, void *y, int ith, int nth)
{
    reduce_mean_body(mask, dtype, rank, xd, x, y, ith, nth);
}
