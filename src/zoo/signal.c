/* signal.c - the Gaussian model of activations the zoo's weights are scaled by.
 *
 * A value is described per channel by its mean and variance over positions
 * for a white-noise network input (see builder.c). These functions carry
 * the description through ReLU, max pooling and the borders of a padded
 * convolution. Pure math; only zoo_tap_mask allocates (its result). */
#include <math.h>

#include "../ir/status.h"
#include "signal.h"

static double norm_pdf(double x) { return exp(-0.5 * x * x) / sqrt(2 * M_PI); }
static double norm_cdf(double x) { return 0.5 * erfc(-x / M_SQRT2); }

/* Mean and variance of relu(z), z ~ N(mu, var). */
void zoo_relu_moments(double mu, double var, double *m_out, double *v_out)
{
    double sd = sqrt(var > 0 ? var : 0);
    if (sd < 1e-12) {
        *m_out = mu > 0 ? mu : 0;
        *v_out = 0;
        return;
    }
    double a = mu / sd, cdf = norm_cdf(a), pdf = norm_pdf(a);
    double m1 = mu * cdf + sd * pdf, m2 = (mu * mu + var) * cdf + mu * sd * pdf;
    *m_out = m1;
    *v_out = m2 > m1 * m1 ? m2 - m1 * m1 : 0;
}

/* E[relu(z)] and E[relu(z)^2] / sd^2 for z ~ N(a sd, sd^2), as functions of a. */
static double rect_m1(double a) { return a * norm_cdf(a) + norm_pdf(a); }
static double rect_m2(double a) { return (a * a + 1) * norm_cdf(a) + a * norm_pdf(a); }

/* The N(mu, sd^2) whose ReLU has mean m and variance v: the ratio
 * E[x^2] / E[x]^2 = rect_m2(a) / rect_m1(a)^2 falls from infinity to 1 as a
 * rises, so a is found by bisection. */
static void rectified_fit(double m, double v, double *mu, double *sd)
{
    double t = (v + m * m) / (m * m), lo = -8, hi = 8;
    for (int i = 0; i < 60; i++) {
        double a = 0.5 * (lo + hi), r = rect_m2(a) / (rect_m1(a) * rect_m1(a));
        if (r > t) lo = a;
        else hi = a;
    }
    double a = 0.5 * (lo + hi);
    *sd = m / rect_m1(a);
    *mu = a * *sd;
}

/* Mean and variance of relu(r + g) with r = relu(z) of mean mr, variance vr
 * (z Gaussian, fitted) and g ~ N(mg, vg) independent: ResNet's relu(branch +
 * shortcut). relu(r + g) is relu(g) where z < 0 and relu(z + g) elsewhere;
 * the second part is integrated over z by the trapezoid rule. */
void zoo_relu_of_sum(double mr, double vr, double mg, double vg, double *m_out, double *v_out)
{
    if (mr <= 1e-12 || vr <= 1e-12 * mr * mr) {
        zoo_relu_moments(mr + mg, vg, m_out, v_out);
        return;
    }
    double mu, sd, m, v;
    rectified_fit(mr, vr, &mu, &sd);
    zoo_relu_moments(mg, vg, &m, &v);
    double p0 = norm_cdf(-mu / sd), e1 = p0 * m, e2 = p0 * (v + m * m);
    const int steps = 256;
    double hi = (mu > 0 ? mu : 0) + 8 * sd, h = hi / steps;
    for (int i = 0; i <= steps; i++) {
        double z = i * h, w = (i == 0 || i == steps ? 0.5 : 1.0) * h * norm_pdf((z - mu) / sd) / sd;
        zoo_relu_moments(z + mg, vg, &m, &v);
        e1 += w * m;
        e2 += w * (v + m * m);
    }
    *m_out = e1;
    *v_out = e2 > e1 * e1 ? e2 - e1 * e1 : 0;
}

/* Mean and variance of the largest of n independent N(0, 1): integrates
 * x n pdf(x) cdf(x)^(n-1) by the trapezoid rule (smooth, so 4000 steps is
 * plenty: n = 9 gives 1.48501 and 0.35735). */
void zoo_max_moments(int n, double *m_out, double *v_out)
{
    const double lo = -10, hi = 10;
    const int steps = 4000;
    double h = (hi - lo) / steps, m1 = 0, m2 = 0;
    for (int i = 0; i <= steps; i++) {
        double x = lo + i * h, w = (i == 0 || i == steps) ? 0.5 : 1.0;
        double p = n * norm_pdf(x) * pow(norm_cdf(x), n - 1);
        m1 += w * h * x * p;
        m2 += w * h * x * x * p;
    }
    *m_out = m1;
    *v_out = m2 - m1 * m1;
}

/* valid[y * k + t] = 1 if output row y (stride s, padding p) reads input
 * row y*s - p + t inside an input of n rows. */
unsigned char *zoo_tap_mask(int64_t n, int64_t o, int k, int s, int p)
{
    unsigned char *valid = pz_xmalloc((size_t)(o * k));
    for (int64_t y = 0; y < o; y++)
        for (int t = 0; t < k; t++) {
            int64_t r = y * s - p + t;
            valid[y * k + t] = r >= 0 && r < n;
        }
    return valid;
}

/* Mean and spread of conv output channel o: its mean at output position
 * (y, x) is the sum of a[ty][tx] = sum_c w[o, c, ty, tx] * mean[c] over the
 * taps that fall inside the input. */
void zoo_conv_mean_map(const double *a, int k, const unsigned char *vy, int64_t h,
                          const unsigned char *vx, int64_t w, double *row, double *mean,
                          double *spread)
{
    double s1 = 0, s2 = 0;
    for (int ty = 0; ty < k; ty++) /* row[ty * w + x] = sum over valid tx */
        for (int64_t x = 0; x < w; x++) {
            double r = 0;
            for (int tx = 0; tx < k; tx++) r += vx[x * k + tx] ? a[ty * k + tx] : 0;
            row[ty * w + x] = r;
        }
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            double m = 0;
            for (int ty = 0; ty < k; ty++) m += vy[y * k + ty] ? row[ty * w + x] : 0;
            s1 += m;
            s2 += m * m;
        }
    *mean = s1 / (double)(h * w);
    *spread = s2 / (double)(h * w) - *mean * *mean;
}
