/* dft_fft.h - the radix-2 FFT paths of the DFT and STFT layers
 * (dft_fft.c); their reference twins are the direct sums pz_any_dft__ref and
 * pz_any_stft__ref (kernels.h), which tests/unit/rt_signal.c compares them
 * with.
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

/* pz_any_stft__ref's contract (p->frame_length a power of two, tw its
 * twiddles), by frames: worker ith of nth takes its share of the batch *
 * frames frames in its own scratch (pz_dft_fft_scratch doubles). */
void pz_any_stft__fft2(const pz_stft_params *p, const double *tw, int dt, int64_t batch,
                       int64_t len, int cin, const void *x, const void *w, int64_t frames,
                       void *y, double *restrict scratch, int ith, int nth);

#endif
