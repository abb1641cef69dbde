/* calibrate.c - activation ranges from calibration samples: minmax,
 * percentile and entropy (KL divergence, TensorRT's method). See quant.h. */
#include <math.h>
#include <string.h>

#include "quant.h"

#define HIST_BINS 2048
#define QUANT_BINS 128
#define PERCENTILE 99.999

struct quant_range {
    quant_method m;
    float lo, hi;          /* running min and max (pass 0) */
    double *hist;          /* HIST_BINS bins of |x| over [0, amax] (pass 1) */
    float amax;
    int seen;
};

int quant_method_parse(const char *s, quant_method *m)
{
    if (!strcmp(s, "minmax")) *m = QUANT_MINMAX;
    else if (!strcmp(s, "percentile")) *m = QUANT_PERCENTILE;
    else if (!strcmp(s, "entropy")) *m = QUANT_ENTROPY;
    else return -1;
    return 0;
}

quant_range *quant_range_new(quant_method m)
{
    quant_range *r = pz_xcalloc(1, sizeof *r);
    r->m = m;
    if (m != QUANT_MINMAX) r->hist = pz_xcalloc(HIST_BINS, sizeof *r->hist);
    return r;
}

int quant_range_passes(const quant_range *r)
{
    return r->m == QUANT_MINMAX ? 1 : 2;
}

void quant_range_free(quant_range *r)
{
    if (!r) return;
    free(r->hist);
    free(r);
}

void quant_range_add(quant_range *r, int pass, const float *x, size_t n)
{
    if (pass == 0) {
        float lo = r->seen ? r->lo : INFINITY, hi = r->seen ? r->hi : -INFINITY;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(x[i])) continue;
            if (x[i] < lo) lo = x[i];
            if (x[i] > hi) hi = x[i];
        }
        if (lo <= hi) {
            r->lo = lo;
            r->hi = hi;
            r->seen = 1;
        }
        r->amax = fmaxf(fabsf(r->lo), fabsf(r->hi));
        return;
    }
    if (!r->hist || !(r->amax > 0)) return;
    double w = (double)r->amax / HIST_BINS;
    for (size_t i = 0; i < n; i++) {
        /* exact zeros (a Relu's half) cost no quantization error: left
         * out of entropy's histogram, they would swamp bin 0 and pull the
         * threshold down */
        if (!isfinite(x[i]) || (x[i] == 0 && r->m == QUANT_ENTROPY)) continue;
        long b = (long)(fabs((double)x[i]) / w);
        r->hist[b >= HIST_BINS ? HIST_BINS - 1 : b] += 1;
    }
}

/* The first bin index i such that bins [0, i) hold PERCENTILE % of all. */
static int percentile_bins(const double *h)
{
    double total = 0, acc = 0;
    for (int i = 0; i < HIST_BINS; i++) total += h[i];
    for (int i = 0; i < HIST_BINS; i++) {
        acc += h[i];
        if (acc >= total * (PERCENTILE / 100.0)) return i + 1;
    }
    return HIST_BINS;
}

/* TensorRT's entropy calibration: for each candidate i in [QUANT_BINS,
 * HIST_BINS], P = hist[0, i) with the outliers added to its last bin; Q = P
 * merged into QUANT_BINS levels and spread back evenly over the bins that
 * were non-zero; the i with the least KL(P || Q) wins. */
static int entropy_bins(const double *h)
{
    double *p = pz_xmalloc(HIST_BINS * sizeof *p), *q = pz_xmalloc(HIST_BINS * sizeof *q);
    int best = HIST_BINS;
    double best_kl = INFINITY;
    /* above: the mass at and above bin i, added to P's last bin */
    double above = 0;
    for (int i = QUANT_BINS; i < HIST_BINS; i++) above += h[i];
    for (int i = QUANT_BINS; i <= HIST_BINS; i++) {
        memcpy(p, h, (size_t)i * sizeof *p);
        p[i - 1] += above;
        if (i < HIST_BINS) above -= h[i];
        double total = 0;
        for (int j = 0; j < i; j++) total += p[j];
        /* a threshold that clips more than 1% of the values is not one: it
         * would win on a distribution far from 0 (a mean pool's output) */
        if (!(total > 0) || p[i - 1] - h[i - 1] > 0.01 * total) continue;
        /* merge h[0, i) (without outliers, as TensorRT does) into QUANT_BINS levels */
        for (int k = 0; k < QUANT_BINS; k++) {
            int a = (int)((int64_t)k * i / QUANT_BINS), b = (int)((int64_t)(k + 1) * i / QUANT_BINS);
            double sum = 0;
            int nz = 0;
            for (int j = a; j < b; j++) {
                sum += h[j];
                nz += h[j] != 0;
            }
            for (int j = a; j < b; j++) q[j] = h[j] != 0 ? sum / nz : 0;
        }
        double qt = 0;
        for (int j = 0; j < i; j++) qt += q[j];
        double kl = 0;
        for (int j = 0; j < i; j++) {
            if (p[j] == 0) continue;
            double pj = p[j] / total, qj = qt > 0 ? q[j] / qt : 0;
            kl += qj > 0 ? pj * log(pj / qj) : pj * log(pj / 1e-12);   /* smoothed as TensorRT does */
        }
        if (kl < best_kl) {
            best_kl = kl;
            best = i;
        }
    }
    free(p);
    free(q);
    return best;
}

void quant_range_get(const quant_range *r, float *lo, float *hi)
{
    *lo = r->seen ? r->lo : 0;
    *hi = r->seen ? r->hi : 0;
    if (r->m == QUANT_MINMAX || !(r->amax > 0)) return;
    int bins = r->m == QUANT_PERCENTILE ? percentile_bins(r->hist) : entropy_bins(r->hist);
    float t = (float)((double)r->amax * bins / HIST_BINS);
    if (*lo < -t) *lo = -t;
    if (*hi > t) *hi = t;
}

void quant_u8_params(float lo, float hi, float *scale, uint8_t *zp)
{
    double a = lo < 0 ? lo : 0, b = hi > 0 ? hi : 0;
    double s = (b - a) / 255.0;
    if (!(s > 0) || !isfinite(s)) {
        *scale = 1.0f;
        *zp = 0;
        return;
    }
    double z = nearbyint(-a / s);
    *scale = (float)s;
    *zp = (uint8_t)(z < 0 ? 0 : z > 255 ? 255 : z);
}
