/* stft_ref.c - reference STFT (ONNX STFT): each frame's direct DFT of the
 * windowed signal, in double, any float type; twiddles as dft_ref.c's. */
#include "rt/kernels/signal/dft.h"

void pz_any_stft__ref(const pz_stft_params *p, const double *tw, int dt, int64_t batch,
                      int64_t len, int cin, const void *x, const void *w, int64_t frames,
                      void *y, int ith, int nth)
{
    const int64_t n = p->frame_length, K = p->onesided ? n / 2 + 1 : n;
    int64_t lo, hi;
    pz_split(batch * frames * K, ith, nth, &lo, &hi);
    for (int64_t e = lo; e < hi; e++) {
        const int64_t k = e % K, f = e / K % frames, b = e / K / frames;
        double re = 0, im = 0;
        for (int64_t j = 0; j < n; j++) {
            const int64_t xe = (b * len + f * p->frame_step + j) * cin;
            const double wv = w ? pz_ld(w, dt, j) : 1;
            const double xr = pz_ld(x, dt, xe) * wv, xi = cin == 2 ? pz_ld(x, dt, xe + 1) * wv : 0;
            const int64_t a = j * k % n;
            const double c = tw[2 * a], s = -tw[2 * a + 1];   /* e^{-i 2 pi j k / n} */
            re += xr * c - xi * s;
            im += xr * s + xi * c;
        }
        pz_st(y, dt, 2 * e, re);
        pz_st(y, dt, 2 * e + 1, im);
    }
}
