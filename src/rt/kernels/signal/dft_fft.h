/* dft_fft.h - the radix-2 FFT path of the DFT layer (dft_fft.c); its
 * reference twin is the direct sum pz_any_dft__ref (kernels.h), which
 * tests/unit/rt_signal.c compares it with.
 *
 *   if (pz_dft_fft_fits(p->length))   // prepare: per-worker scratch
 *       l->scratch_bytes = nth * pz_dft_fft_scratch(p->length) * sizeof(double);
 *   pz_any_dft__fft2(p, tw, dt, outer, m, inner, cin, x, y,
 *                    (double *)l->scratch + ith * pz_dft_fft_scratch(p->length), ith, nth);
 */
#ifndef PZ_RT_KERNELS_SIGNAL_DFT_FFT_H
#define PZ_RT_KERNELS_SIGNAL_DFT_FFT_H

#include "rt/kernels/kernels.h"

/* Whether the FFT takes a DFT of length n: a power of two, at least 2. */
static inline bool pz_dft_fft_fits(int64_t n)
{
    return n >= 2 && (n & (n - 1)) == 0;
}

/* Doubles of scratch each worker needs: one line as complex values. */
static inline int64_t pz_dft_fft_scratch(int64_t n)
{
    return 2 * n;
}

/* pz_any_dft__ref's contract (p->length a power of two, tw its twiddles),
 * by lines: worker ith of nth transforms its share of the outer * inner
 * lines in its own scratch (pz_dft_fft_scratch doubles). */
void pz_any_dft__fft2(const pz_dft_params *p, const double *tw, int dt, int64_t outer,
                      int64_t m, int64_t inner, int cin, const void *x, void *y,
                      double *restrict scratch, int ith, int nth);

#endif
