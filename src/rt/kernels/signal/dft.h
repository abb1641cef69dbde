/* dft.h - the reference DFT and STFT kernels (dft_ref.c, stft_ref.c): the
 * direct sums, twins of the FFT paths (dft_fft.h). */
#ifndef PZ_RT_KERNELS_SIGNAL_DFT_H
#define PZ_RT_KERNELS_SIGNAL_DFT_H

#include "rt/kernels/kernels.h"

/* tw[2t], tw[2t + 1] = cos, sin(2 pi t / n), t < n: the twiddles the DFT
 * kernels read (exact angles: (j * k) mod n indexes them). */
void pz_dft_twiddles(int64_t n, double *tw);
/* DFT: X viewed as [outer, m, inner, cin] (cin 1: real, 2: complex), Y as
 * [outer, K, inner, cout] (pz_dft_params); tw for p->length. Any float type
 * through double; worker ith of nth takes a slice of Y's outputs. */
void pz_any_dft__ref(const pz_dft_params *p, const double *tw, int dt, int64_t outer, int64_t m,
                     int64_t inner, int cin, const void *x, void *y, int ith, int nth);
/* STFT: signal [batch, len, cin], window [frame_length] or NULL (ones) ->
 * Y [batch, frames, K, 2]; tw for p->frame_length. */
void pz_any_stft__ref(const pz_stft_params *p, const double *tw, int dt, int64_t batch,
                      int64_t len, int cin, const void *x, const void *w, int64_t frames,
                      void *y, int ith, int nth);

#endif
