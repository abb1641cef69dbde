/* quant_calibrate.c - the calibration of src/quant (calibrate.c): uint8
 * parameters of a range (zero inside it, a zero-width range), minmax over
 * samples given in pieces, percentile and entropy thresholds on a Gaussian
 * with a far outlier (they must clip the outliers, keep the body) and
 * on a Relu's output (zeros left out), entropy on a distribution far from 0
 * (it must not clip everything). */
#include <math.h>
#include <stdlib.h>

#include "quant/quant.h"
#include "test_check.h"

static float gauss(uint64_t *s)
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        u[k] = ((double)((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
    }
    return (float)(sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]));
}

static void params(void)
{
    float s;
    uint8_t zp;
    quant_u8_params(-1.0f, 3.0f, &s, &zp);
    checkf(fabsf(s - 4.0f / 255) < 1e-7f && zp == 64, "[-1, 3]: scale %g zp %d", s, zp);
    quant_u8_params(0.5f, 2.0f, &s, &zp);   /* widened to hold 0 */
    checkf(fabsf(s - 2.0f / 255) < 1e-7f && zp == 0, "[0.5, 2]: scale %g zp %d", s, zp);
    quant_u8_params(-2.0f, -1.0f, &s, &zp);
    checkf(fabsf(s - 2.0f / 255) < 1e-7f && zp == 255, "[-2, -1]: scale %g zp %d", s, zp);
    quant_u8_params(0.0f, 0.0f, &s, &zp);
    checkf(s > 0 && zp == 0, "[0, 0]: scale %g (must be > 0) zp %d", s, zp);
    quant_method m;
    CHECK(quant_method_parse("entropy", &m) == 0 && m == QUANT_ENTROPY);
    CHECK(quant_method_parse("kl", &m) < 0);
}

/* 200000 Gaussian values (sd 1) and one outlier at 40 (5e-6 of them, below
 * percentile's 1e-5), in 4 samples */
static void thresholds(quant_method method, int relu, float want_lo, float want_hi)
{
    enum { N = 200000 };
    float *x = malloc(N * sizeof *x);
    uint64_t s = 42;
    for (int i = 0; i < N; i++) {
        x[i] = gauss(&s);
        if (relu && x[i] < 0) x[i] = 0;
    }
    x[997] = 40.0f;
    quant_range *r = quant_range_new(method);
    for (int pass = 0; pass < quant_range_passes(r); pass++)
        for (int k = 0; k < 4; k++) quant_range_add(r, pass, x + k * (N / 4), N / 4);
    float lo, hi;
    quant_range_get(r, &lo, &hi);
    if (method == QUANT_MINMAX)
        checkf(hi == 40.0f && (relu ? lo == 0.0f : lo < -4.0f), "minmax: [%g, %g]", lo, hi);
    else
        checkf(hi >= want_lo && hi <= want_hi && (relu ? lo == 0 : lo <= -want_lo && lo >= -want_hi),
               "method %d relu %d: [%g, %g], want hi in [%g, %g]", (int)method, relu, lo, hi,
               want_lo, want_hi);
    quant_range_free(r);
    free(x);
}

static void far_from_zero(void)
{
    enum { N = 10000 };
    float x[N];
    uint64_t s = 7;
    for (int i = 0; i < N; i++) x[i] = 2.0f + 0.1f * gauss(&s);
    quant_range *r = quant_range_new(QUANT_ENTROPY);
    for (int pass = 0; pass < 2; pass++) quant_range_add(r, pass, x, N);
    float lo, hi;
    quant_range_get(r, &lo, &hi);
    checkf(hi >= 2.2f && lo >= 1.5f, "entropy on N(2, 0.1): [%g, %g]", lo, hi);
    quant_range_free(r);
}

int main(void)
{
    params();
    thresholds(QUANT_MINMAX, 0, 0, 0);
    thresholds(QUANT_PERCENTILE, 0, 3.5f, 5.5f);
    thresholds(QUANT_PERCENTILE, 1, 3.5f, 5.5f);
    thresholds(QUANT_ENTROPY, 0, 2.0f, 6.0f);
    thresholds(QUANT_ENTROPY, 1, 2.0f, 6.0f);
    far_from_zero();
    return test_summary("quant_calibrate");
}
