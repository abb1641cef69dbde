/* random_ref.c - reference random fills: a counter-based generator, word i
 * of a stream is splitmix64's output mix(base + (i + 1) * golden), so any
 * worker computes any element alone and the values do not depend on nth.
 * Uniform u = top 53 bits / 2^53 in [0, 1); normal by Box-Muller on words
 * 2i and 2i + 1; multinomial by the inverse of the softmax's running sum. */
#include "rt/kernels/kernels.h"

#define PZ_GOLDEN 0x9E3779B97F4A7C15ull

uint64_t pz_random_word(uint64_t base, uint64_t i)
{
    uint64_t z = base + (i + 1) * PZ_GOLDEN;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit(uint64_t base, uint64_t i)
{
    return (double)(pz_random_word(base, i) >> 11) * (1.0 / 9007199254740992.0);
}

/* row r of the logits: a sample per s, the first class whose running sum of
 * exp(logit - max) passes u * total (the last class when rounding leaves u
 * past the end) */
static void multinomial_row(uint64_t base, const void *logits, int ldt, int64_t r,
                            int64_t classes, int dt, void *y, int64_t samples)
{
    double mx = -INFINITY, total = 0;
    for (int64_t c = 0; c < classes; c++) {
        double v = pz_load_f64(logits, ldt, r * classes + c);
        if (v > mx) mx = v;
    }
    for (int64_t c = 0; c < classes; c++)
        total += exp(pz_load_f64(logits, ldt, r * classes + c) - mx);
    for (int64_t s = 0; s < samples; s++) {
        const double want = unit(base, (uint64_t)(r * samples + s)) * total;
        double acc = 0;
        int64_t c = 0;
        for (; c < classes - 1; c++) {
            acc += exp(pz_load_f64(logits, ldt, r * classes + c) - mx);
            if (want < acc) break;
        }
        pz_store_f64(y, dt, r * samples + s, (double)c);
    }
}

void pz_any_random__ref(const pz_random_params *p, uint64_t base, int dt, void *y, int64_t n,
                        const void *logits, int ldt, int64_t rows, int64_t classes,
                        int ith, int nth)
{
    int64_t lo, hi;
    if (p->mode == PZ_RANDOM_MULTINOMIAL) {
        pz_split(rows, ith, nth, &lo, &hi);
        for (int64_t r = lo; r < hi; r++)
            multinomial_row(base, logits, ldt, r, classes, dt, y, rows ? n / rows : 0);
        return;
    }
    pz_split(n, ith, nth, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
        double v;
        if (p->mode == PZ_RANDOM_UNIFORM) {
            v = p->a + (p->b - p->a) * unit(base, (uint64_t)i);
        } else {
            const double u1 = unit(base, 2 * (uint64_t)i), u2 = unit(base, 2 * (uint64_t)i + 1);
            v = p->a + p->b * sqrt(-2.0 * log1p(-u1)) * cos(6.283185307179586 * u2);
        }
        pz_store_f64(y, dt, i, v);
    }
}
