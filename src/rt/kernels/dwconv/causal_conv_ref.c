/* causal_conv_ref.c - reference CausalConvWithState: one (batch, channel)
 * row at a time, the taps over past_state ++ X, in double. */
#include "rt/kernels/kernels.h"

/* Column j of the row's P = past ++ X (K-1 past columns, then L of X). */
static double cc_col(const pz_causal_conv_desc *d, int dt, const void *x, const void *past,
                     int64_t row, int64_t j)
{
    int64_t np = d->K - 1;
    if (j >= np) return pz_ld(x, dt, row * d->L + j - np);
    return past ? pz_ld(past, dt, row * np + j) : 0.0;
}

void pz_any_causal_conv__ref(const pz_causal_conv_desc *d, int dt, const void *x, const void *w,
                             const void *bias, const void *past, void *y, void *present,
                             int ith, int nth)
{
    int64_t lo, hi, np = d->K - 1;
    pz_split(d->B * d->C, ith, nth, &lo, &hi);
    for (int64_t row = lo; row < hi; row++) {
        int64_t c = row % d->C;
        double b = bias ? pz_ld(bias, dt, c) : 0.0;
        for (int64_t t = 0; t < d->L; t++) {
            double acc = b;
            for (int64_t j = 0; j < d->K; j++)   /* output t reads P columns t .. t+K-1 */
                acc += pz_ld(w, dt, c * d->K + j) * cc_col(d, dt, x, past, row, t + j);
            if (d->silu) acc = acc / (1.0 + exp(-acc));
            pz_st(y, dt, row * d->L + t, acc);
        }
        if (present)   /* P has L + K-1 columns; the state is its last K-1 */
            for (int64_t j = 0; j < np; j++)
                pz_st(present, dt, row * np + j, cc_col(d, dt, x, past, row, d->L + j));
    }
}
