/* tfidf_ref.c - reference TfIdfVectorizer over rows of C tokens. A row's
 * output first holds each pool n-gram's count (at its output index), found
 * by binary search among the n-grams of its size (sorted by tokens); then
 * the mode turns counts into values. Floats count exactly up to 2^24. */
#include "rt/kernels/kernels.h"

static int64_t token(int dt, const void *x, int64_t i)
{
    return dt == PZ_I32 ? (int64_t)((const int32_t *)x)[i] : ((const int64_t *)x)[i];
}

/* The position among the m sorted n-grams at g of the n tokens of row r
 * from i spaced d apart, or -1. */
static int64_t find(int dt, const void *r, int64_t i, int64_t d, int n, const int64_t *g,
                    int64_t m)
{
    int64_t lo = 0, hi = m;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int64_t *e = g + mid * n;
        int c = 0;
        for (int k = 0; k < n && !c; k++) {
            const int64_t t = token(dt, r, i + k * d);
            c = t < e[k] ? -1 : t > e[k];
        }
        if (!c) return mid;
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return -1;
}

void pz_any_tfidf__ref(const pz_tfidf_params *p, int dt, int64_t rows, int64_t C, const void *x,
                       const int64_t *pool, const int64_t *index, const float *weight,
                       float *y, int ith, int nth)
{
    int64_t first[17], tok[17];   /* per size s: its first n-gram and first token */
    first[0] = tok[0] = 0;
    for (int s = 0; s < 16; s++) {
        first[s + 1] = first[s] + p->count[s];
        tok[s + 1] = tok[s] + p->count[s] * (s + 1);
    }
    const size_t es = dt == PZ_I32 ? 4 : 8;
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        const void *xr = (const char *)x + (size_t)(r * C) * es;
        float *yr = y + r * p->width;
        for (int64_t k = 0; k < p->width; k++) yr[k] = 0.0f;
        for (int64_t d = 1; d <= p->max_skip + 1; d++) {
            /* unigrams do not depend on d: counted at d = 1 only */
            const int n0 = d == 1 || p->min_gram > 1 ? p->min_gram : 2;
            for (int64_t i = 0; i < C; i++)
                for (int n = n0; n <= p->max_gram && i + (n - 1) * d < C; n++) {
                    const int64_t m = p->count[n - 1];
                    const int64_t at = m ? find(dt, xr, i, d, n, pool + tok[n - 1], m) : -1;
                    if (at >= 0) yr[index[first[n - 1] + at]] += 1.0f;
                }
        }
        for (int64_t k = 0; k < first[16]; k++) {
            float *v = &yr[index[k]];
            if (p->mode == PZ_TFIDF_IDF) *v = *v > 0.0f ? weight[k] : 0.0f;
            else if (p->mode == PZ_TFIDF_TFIDF) *v *= weight[k];
        }
    }
}
