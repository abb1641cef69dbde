/* dft_fft.c - the DFT and the STFT as an iterative radix-2 FFT (decimation
 * in time) for power-of-two lengths, in double, any float type; the twins
 * of the direct sums in dft_ref.c and stft_ref.c. A line is gathered into the worker's scratch (cut or
 * zero-padded to n; for irfft the whole Hermitian spectrum), transformed in
 * place, and the wanted bins written out. */
#include "rt/kernels/signal/dft_fft.h"

/* In-place FFT of buf (n complex values, n a power of two): sg -1 forward,
 * +1 inverse (unscaled); twiddle t of stage len is tw[t * n / len]. */
static void fft2(double *restrict buf, int64_t n, const double *tw, double sg)
{
    for (int64_t i = 1, j = 0; i < n; i++) {   /* bit-reversal permutation */
        int64_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double r = buf[2 * i], im = buf[2 * i + 1];
            buf[2 * i] = buf[2 * j], buf[2 * i + 1] = buf[2 * j + 1];
            buf[2 * j] = r, buf[2 * j + 1] = im;
        }
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
        const int64_t half = len / 2, step = n / len;
        for (int64_t s = 0; s < n; s += len)
            for (int64_t j = 0; j < half; j++) {
                const double wr = tw[2 * j * step], wi = sg * tw[2 * j * step + 1];
                double *a = buf + 2 * (s + j), *b = buf + 2 * (s + j + half);
                const double br = b[0] * wr - b[1] * wi, bi = b[0] * wi + b[1] * wr;
                b[0] = a[0] - br, b[1] = a[1] - bi;
                a[0] += br, a[1] += bi;
            }
    }
}

void pz_any_dft__fft2(const pz_dft_params *p, const double *tw, int dt, int64_t outer,
                      int64_t m, int64_t inner, int cin, const void *x, void *y,
                      double *restrict buf, int ith, int nth)
{
    const int64_t n = p->length;
    const int irfft = p->inverse && p->onesided;
    const int64_t K = irfft || !p->onesided ? n : n / 2 + 1;
    const double scale = p->inverse ? 1 / (double)n : 1;
    int64_t lo, hi;
    pz_split(outer * inner, ith, nth, &lo, &hi);
    for (int64_t line = lo; line < hi; line++) {
        const int64_t o = line / inner, i = line % inner;
#define XAT(j, c) pz_ld(x, dt, ((o * m + (j)) * inner + i) * cin + (c))
        if (!irfft) {
            for (int64_t j = 0; j < n; j++) {
                buf[2 * j] = j < m ? XAT(j, 0) : 0;
                buf[2 * j + 1] = j < m && cin == 2 ? XAT(j, 1) : 0;
            }
        } else {
            /* bins 0..n/2 as given (zero beyond m), the rest their
             * conjugates; as numpy's irfft, the imaginary parts of bin 0
             * and of the Nyquist bin are not read */
            for (int64_t k = 0; k <= n / 2; k++) {
                const int real_only = k == 0 || 2 * k == n;
                const double re = k < m ? XAT(k, 0) : 0;
                const double im = k < m && cin == 2 && !real_only ? XAT(k, 1) : 0;
                buf[2 * k] = re, buf[2 * k + 1] = im;
                if (k > 0 && k < n - k) buf[2 * (n - k)] = re, buf[2 * (n - k) + 1] = -im;
            }
        }
#undef XAT
        fft2(buf, n, tw, p->inverse ? 1 : -1);
        for (int64_t k = 0; k < K; k++) {
            const int64_t e = (o * K + k) * inner + i;
            if (irfft) {
                pz_st(y, dt, e, buf[2 * k] * scale);
            } else {
                pz_st(y, dt, 2 * e, buf[2 * k] * scale);
                pz_st(y, dt, 2 * e + 1, buf[2 * k + 1] * scale);
            }
        }
    }
}

void pz_any_stft__fft2(const pz_stft_params *p, const double *tw, int dt, int64_t batch,
                       int64_t len, int cin, const void *x, const void *w, int64_t frames,
                       void *y, double *restrict buf, int ith, int nth)
{
    const int64_t n = p->frame_length, K = p->onesided ? n / 2 + 1 : n;
    int64_t lo, hi;
    pz_split(batch * frames, ith, nth, &lo, &hi);
    for (int64_t bf = lo; bf < hi; bf++) {   /* frame f of batch b */
        const int64_t b = bf / frames, f = bf % frames;
        for (int64_t j = 0; j < n; j++) {
            const int64_t xe = (b * len + f * p->frame_step + j) * cin;
            const double wv = w ? pz_ld(w, dt, j) : 1;
            buf[2 * j] = pz_ld(x, dt, xe) * wv;
            buf[2 * j + 1] = cin == 2 ? pz_ld(x, dt, xe + 1) * wv : 0;
        }
        fft2(buf, n, tw, -1);
        for (int64_t k = 0; k < K; k++) {
            pz_st(y, dt, 2 * (bf * K + k), buf[2 * k]);
            pz_st(y, dt, 2 * (bf * K + k) + 1, buf[2 * k + 1]);
        }
    }
}
