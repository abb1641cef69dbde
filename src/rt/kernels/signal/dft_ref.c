/* dft_ref.c - reference DFT (ONNX DFT): the direct sum over the signal, in
 * double, any float type. The angle of term j of bin k is 2 pi (j k mod n) /
 * n, read from a table of the n twiddles, so it stays exact for long n. */
#include <math.h>

#include "rt/kernels/signal/dft.h"

void pz_dft_twiddles(int64_t n, double *tw)
{
    for (int64_t t = 0; t < n; t++) {
        const double a = 2 * M_PI * (double)t / (double)n;
        tw[2 * t] = cos(a);
        tw[2 * t + 1] = sin(a);
    }
}

/* irfft output t of line (o, i): (1/n) [Re X0 + sum 2 Re(Xb e^{+i 2 pi b t / n})
 * + Re(X_{n/2}) (-1)^t], the Hermitian spectrum's sum; as numpy's irfft, the
 * imaginary parts of X0 and of the Nyquist bin are not read. */
static double irfft_at(const pz_dft_params *p, const double *tw, int dt, int64_t m,
                       int64_t inner, int cin, const void *x, int64_t o, int64_t i, int64_t t)
{
    const int64_t n = p->length, nb = m < n / 2 + 1 ? m : n / 2 + 1;
    double acc = 0;
    for (int64_t b = 0; b < nb; b++) {
        const int64_t xe = ((o * m + b) * inner + i) * cin;
        const double xr = pz_ld(x, dt, xe), xi = cin == 2 ? pz_ld(x, dt, xe + 1) : 0;
        const int64_t a = b * t % n;
        if (b == 0)
            acc += xr;
        else if (2 * b == n)
            acc += t % 2 ? -xr : xr;
        else
            acc += 2 * (xr * tw[2 * a] - xi * tw[2 * a + 1]);
    }
    return acc / (double)n;
}

void pz_any_dft__ref(const pz_dft_params *p, const double *tw, int dt, int64_t outer, int64_t m,
                     int64_t inner, int cin, const void *x, void *y, int ith, int nth)
{
    const int64_t n = p->length;
    const int irfft = p->inverse && p->onesided;
    const int64_t K = irfft || !p->onesided ? n : n / 2 + 1;
    const int64_t mm = m < n ? m : n;            /* terms read: X cut or zero-padded to n */
    const double sg = p->inverse ? 1 : -1;       /* e^{sg i 2 pi j k / n} */
    const double scale = p->inverse ? 1 / (double)n : 1;
    int64_t lo, hi;
    pz_split(outer * K * inner, ith, nth, &lo, &hi);
    for (int64_t e = lo; e < hi; e++) {
        const int64_t i = e % inner, k = e / inner % K, o = e / inner / K;
        if (irfft) {
            pz_st(y, dt, e, irfft_at(p, tw, dt, m, inner, cin, x, o, i, k));
            continue;
        }
        double re = 0, im = 0;
        for (int64_t j = 0; j < mm; j++) {
            const int64_t xe = ((o * m + j) * inner + i) * cin;
            const double xr = pz_ld(x, dt, xe), xi = cin == 2 ? pz_ld(x, dt, xe + 1) : 0;
            const int64_t a = j * k % n;
            const double c = tw[2 * a], s = sg * tw[2 * a + 1];
            re += xr * c - xi * s;
            im += xr * s + xi * c;
        }
        pz_st(y, dt, 2 * e, re * scale);
        pz_st(y, dt, 2 * e + 1, im * scale);
    }
}
