/* rotary_ref.c - reference RotaryEmbedding: each head row's first rot
 * elements turn by the angles of its position, pairs (x[i], x[i + rot/2])
 * or, interleaved, (x[2i], x[2i+1]):
 *   x1' = cos x1 - sin x2,  x2' = sin x1 + cos x2;
 * the rest is copied. Any float type through double. */
#include "rt/kernels/kernels.h"

void pz_any_rotary__ref(const pz_rotary_desc *d, int dt, const void *x, const void *cosc,
                        const void *sinc, const int64_t *pos, void *y, int ith, int nth)
{
    int64_t lo, hi, half = d->rot / 2;
    pz_split(d->B * d->S * d->H, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t h = r % d->H, s = (r / d->H) % d->S, b = r / (d->H * d->S);
        int64_t o = b * d->xs[0] + h * d->xs[1] + s * d->xs[2];
        /* the cache row: position_ids[b, s], or row (b, s) of a [B, S, w] cache */
        int64_t row = pos ? pos[b * d->S + s] : b * d->S + s, c = row * d->cw;
        bool bad = row < 0 || row >= d->crows;
        for (int64_t i = 0; i < half; i++) {
            int64_t i1 = d->interleaved ? 2 * i : i, i2 = d->interleaved ? 2 * i + 1 : i + half;
            double co = bad ? NAN : pz_ld(cosc, dt, c + i), si = bad ? NAN : pz_ld(sinc, dt, c + i);
            double x1 = pz_ld(x, dt, o + i1), x2 = pz_ld(x, dt, o + i2);
            pz_st(y, dt, o + i1, co * x1 - si * x2);
            pz_st(y, dt, o + i2, si * x1 + co * x2);
        }
        for (int64_t i = d->rot; i < d->D; i++) pz_st(y, dt, o + i, pz_ld(x, dt, o + i));
    }
}
