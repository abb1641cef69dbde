/* dft_fft.c - the DFT and the STFT on FFTs, in double, any float type; the
 * twins of the direct sums in dft_ref.c and stft_ref.c. A line is gathered
 * into the worker's scratch (cut or zero-padded to n; for irfft the whole
 * Hermitian spectrum), transformed in place, and the wanted bins written.
 * Power-of-two lengths: an iterative radix-2 FFT (decimation in time).
 * Others: Bluestein's chirp-z, X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j])
 * with c[t] = e^{-i pi t^2 / n} (jk = (j^2 + k^2 - (k - j)^2) / 2), the
 * convolution done by radix-2 FFTs of length m >= 2n - 1. */
#include <math.h>
#include <stdlib.h>

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

int pz_dft_plan_init(pz_dft_plan *pl, int64_t n, pz_dft_path path)
{
    *pl = (pz_dft_plan){.n = n, .m = n};
    const int pow2 = n >= 2 && (n & (n - 1)) == 0;
    if (path == PZ_DFT_AUTO)
        path = pow2 ? PZ_DFT_RADIX2 : n >= PZ_DFT_BLUESTEIN_MIN ? PZ_DFT_BLUESTEIN : PZ_DFT_DIRECT;
    if (path == PZ_DFT_RADIX2 && !pow2) path = PZ_DFT_DIRECT;
    pl->path = path;
    pl->tw = malloc(sizeof(double) * 2 * (size_t)n);
    if (!pl->tw) return -1;
    pz_dft_twiddles(n, pl->tw);
    if (path != PZ_DFT_BLUESTEIN) return 0;
    for (pl->m = 2; pl->m < 2 * n - 1;) pl->m *= 2;   /* a power of two >= 2n - 1 */
    const int64_t m = pl->m;
    pl->twm = malloc(sizeof(double) * 2 * (size_t)m);
    pl->chirp = malloc(sizeof(double) * 2 * (size_t)n);
    pl->bf = calloc(2 * (size_t)m, sizeof(double));
    if (!pl->twm || !pl->chirp || !pl->bf) {
        pz_dft_plan_free(pl);
        return -1;
    }
    pz_dft_twiddles(m, pl->twm);
    for (int64_t t = 0; t < n; t++) {   /* t^2 mod 2n keeps the angle exact */
        const double a = M_PI * (double)((t * t) % (2 * n)) / (double)n;
        pl->chirp[2 * t] = cos(a), pl->chirp[2 * t + 1] = -sin(a);
    }
    for (int64_t t = 0; t < n; t++) {   /* b[t] = b[m - t] = conj(c[t]) */
        pl->bf[2 * t] = pl->chirp[2 * t], pl->bf[2 * t + 1] = -pl->chirp[2 * t + 1];
        if (t > 0) {
            pl->bf[2 * (m - t)] = pl->bf[2 * t];
            pl->bf[2 * (m - t) + 1] = pl->bf[2 * t + 1];
        }
    }
    fft2(pl->bf, m, pl->twm, -1);
    return 0;
}

void pz_dft_plan_free(pz_dft_plan *pl)
{
    free(pl->tw), free(pl->twm), free(pl->chirp), free(pl->bf);
    *pl = (pz_dft_plan){0};
}

int64_t pz_dft_plan_scratch(const pz_dft_plan *pl)
{
    return pl->path == PZ_DFT_RADIX2 ? 2 * pl->n
         : pl->path == PZ_DFT_BLUESTEIN ? 2 * pl->n + 2 * pl->m : 0;
}

/* The unscaled DFT of buf (n complex) in place, sg -1 forward, +1 inverse;
 * work: Bluestein's m complex. */
static void dft_line(const pz_dft_plan *pl, double *restrict buf, double sg,
                     double *restrict work)
{
    if (pl->path == PZ_DFT_RADIX2) {
        fft2(buf, pl->n, pl->tw, sg);
        return;
    }
    const int64_t n = pl->n, m = pl->m;
    const double *c = pl->chirp, *bf = pl->bf;
    /* the inverse is the conjugate of the forward DFT of the conjugate:
     * -sg is 1 forward, -1 inverse */
    for (int64_t j = 0; j < n; j++) {   /* a[j] = x[j] c[j] */
        const double xr = buf[2 * j], xi = -sg * buf[2 * j + 1];
        work[2 * j] = xr * c[2 * j] - xi * c[2 * j + 1];
        work[2 * j + 1] = xr * c[2 * j + 1] + xi * c[2 * j];
    }
    for (int64_t j = 2 * n; j < 2 * m; j++) work[j] = 0;
    fft2(work, m, pl->twm, -1);
    for (int64_t t = 0; t < m; t++) {   /* times the chirp's transform */
        const double ar = work[2 * t], ai = work[2 * t + 1];
        work[2 * t] = ar * bf[2 * t] - ai * bf[2 * t + 1];
        work[2 * t + 1] = ar * bf[2 * t + 1] + ai * bf[2 * t];
    }
    fft2(work, m, pl->twm, 1);
    for (int64_t k = 0; k < n; k++) {   /* X[k] = c[k] conv[k] / m */
        const double vr = work[2 * k] / (double)m, vi = work[2 * k + 1] / (double)m;
        buf[2 * k] = vr * c[2 * k] - vi * c[2 * k + 1];
        buf[2 * k + 1] = -sg * (vr * c[2 * k + 1] + vi * c[2 * k]);
    }
}

void pz_any_dft__fft(const pz_dft_params *p, const pz_dft_plan *pl, int dt, int64_t outer,
                     int64_t m, int64_t inner, int cin, const void *x, void *y,
                     double *restrict buf, int ith, int nth)
{
    const int64_t n = p->length;
    const int irfft = p->inverse && p->onesided;
    const int64_t K = irfft || !p->onesided ? n : n / 2 + 1;
    const double scale = p->inverse ? 1 / (double)n : 1;
    double *work = buf + 2 * n;
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
        dft_line(pl, buf, p->inverse ? 1 : -1, work);
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

void pz_any_stft__fft(const pz_stft_params *p, const pz_dft_plan *pl, int dt, int64_t batch,
                      int64_t len, int cin, const void *x, const void *w, int64_t frames,
                      void *y, double *restrict buf, int ith, int nth)
{
    const int64_t n = p->frame_length, K = p->onesided ? n / 2 + 1 : n;
    double *work = buf + 2 * n;
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
        dft_line(pl, buf, -1, work);
        for (int64_t k = 0; k < K; k++) {
            pz_st(y, dt, 2 * (bf * K + k), buf[2 * k]);
            pz_st(y, dt, 2 * (bf * K + k) + 1, buf[2 * k + 1]);
        }
    }
}
