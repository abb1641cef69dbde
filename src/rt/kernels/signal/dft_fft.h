/* dft_fft.h - the FFT paths of the DFT and STFT layers (dft_fft.c): a
 * radix-2 FFT for power-of-two lengths and Bluestein's chirp-z transform
 * (three radix-2 FFTs of a power of two >= 2n - 1) for other lengths from
 * PZ_DFT_BLUESTEIN_MIN; their reference twins are the direct sums
 * pz_any_dft__ref and pz_any_stft__ref (dft.h), which
 * tests/unit/rt_signal.c compares them with.
 *
 *   pz_dft_plan pl;
 *   if (pz_dft_plan_init(&pl, n, PZ_DFT_AUTO)) ...;          // prepare
 *   l->scratch_bytes = nth * pz_dft_plan_scratch(&pl) * sizeof(double);
 *   pz_any_dft__fft(p, &pl, dt, outer, m, inner, cin, x, y,  // run
 *                   (double *)l->scratch + ith * pz_dft_plan_scratch(&pl), ith, nth);
 *   pz_dft_plan_free(&pl);                                   // release
 */
#ifndef PZ_RT_KERNELS_SIGNAL_DFT_FFT_H
#define PZ_RT_KERNELS_SIGNAL_DFT_FFT_H

#include "rt/kernels/signal/dft.h"

/* Below this length a non-power-of-two DFT keeps the direct sum: its n^2
 * terms cost less than Bluestein's three FFTs of a length >= 2n. */
#define PZ_DFT_BLUESTEIN_MIN 64

typedef enum { PZ_DFT_AUTO = -1, PZ_DFT_DIRECT, PZ_DFT_RADIX2, PZ_DFT_BLUESTEIN } pz_dft_path;

/* A DFT of length n as prepare plans it. */
typedef struct {
    int64_t n, m;             /* the length; the radix-2 length the FFT runs (n, or Bluestein's) */
    pz_dft_path path;
    double *tw;               /* twiddles of n (pz_dft_twiddles): the direct sums read them */
    double *twm;              /* twiddles of m (Bluestein), else NULL */
    double *chirp;            /* Bluestein: e^{-i pi (t^2 mod 2n) / n}, t < n */
    double *bf;               /* Bluestein: the FFT of the conjugate chirp, m complex */
} pz_dft_plan;

/* Plans length n (>= 1) on `path` (AUTO: radix-2 for powers of two >= 2,
 * Bluestein from PZ_DFT_BLUESTEIN_MIN, else direct); 0, or -1 when out of
 * memory (nothing to free then). */
int pz_dft_plan_init(pz_dft_plan *pl, int64_t n, pz_dft_path path);
void pz_dft_plan_free(pz_dft_plan *pl);
/* Doubles of scratch each worker needs on the plan's FFT path (0: direct). */
int64_t pz_dft_plan_scratch(const pz_dft_plan *pl);

/* pz_any_dft__ref's contract on an FFT path (pl for p->length), by lines:
 * worker ith of nth transforms its share of the outer * inner lines in its
 * own scratch (pz_dft_plan_scratch doubles). */
void pz_any_dft__fft(const pz_dft_params *p, const pz_dft_plan *pl, int dt, int64_t outer,
                     int64_t m, int64_t inner, int cin, const void *x, void *y,
                     double *restrict scratch, int ith, int nth);
/* pz_any_stft__ref's contract on an FFT path (pl for p->frame_length), by
 * frames: worker ith of nth takes its share of the batch * frames frames. */
void pz_any_stft__fft(const pz_stft_params *p, const pz_dft_plan *pl, int dt, int64_t batch,
                      int64_t len, int cin, const void *x, const void *w, int64_t frames,
                      void *y, double *restrict scratch, int ith, int nth);

#endif
