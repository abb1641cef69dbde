/* resize_fast.c - the float32 Resize's fast twin over the last two axes
 * (an image's H and W), nearest, linear and cubic (and antialiased ones of
 * at most PZ_RESIZE_FAST_TAPS taps): pz_any_resize__ref's taps flattened
 * at plan time into per-axis tables of k (index, weight) pairs, a tap the
 * reference lacks given weight 0 at the kept index. Each output row then
 * reads the tables in order (no pointer chase, no odometer), and a
 * nearest resize is a gather.
 *
 * Bits: the reference's double arithmetic term for term, in its order
 * ((w_h * w_w) * x summed a-major from 0): equal bits for finite inputs
 * (the padded taps add +-0, which changes no sum; -0 comes out +0, as
 * there). An infinite input under
 * a dropped tap gives NaN here (0 * inf), where the reference skips it. */
#include <limits.h>

#include "rt/kernels/twins_fast.h"

int pz_resize_lin_taps(const pz_resize_tap *taps, int64_t in, int64_t out)
{
    int k = 1;
    if (in > INT32_MAX) return 0;
    for (int64_t o = 0; o < out; o++) {
        const pz_resize_tap *p = &taps[o];
        if (p->outside || p->n < 1 || p->n > PZ_RESIZE_FAST_TAPS) return 0;
        if (p->n > k) k = p->n;
    }
    return k;
}

bool pz_resize_lin_table(const pz_resize_tap *taps, int64_t in, int64_t out, pz_resize_lin *t)
{
    const int k = pz_resize_lin_taps(taps, in, out);
    if (!k) return false;
    bool ones = k == 1;
    t->k = k;
    for (int64_t o = 0; o < out; o++) {
        const pz_resize_tap *p = &taps[o];
        for (int j = 0; j < k; j++) {
            /* past its taps: the last index at weight 0 */
            t->i[j][o] = (int32_t)p->idx[j < p->n ? j : p->n - 1];
            t->w[j][o] = j < p->n ? p->w[j] : 0.0;
        }
        t->n[o] = (uint8_t)p->n;
        ones &= p->w[0] == 1.0;
    }
    t->ones = ones;
    return true;
}

/* One output row (pz_resize_row_fn): two taps a side (linear) written out,
 * any other count looped; the same sums in the same order. */
static void plain_row(const pz_resize_lin *w, int64_t ow, const float *const *rows,
                      const double *a, int nh, float *y)
{
    if (w->k == 2 && nh <= 2) {
        const int32_t *i0 = w->i[0], *i1 = w->i[1];
        const double *w0 = w->w[0], *w1 = w->w[1];
        const float *r0 = rows[0], *r1 = rows[nh - 1];
        const double a0 = a[0], a1 = a[nh - 1];
        if (nh == 1) {
            for (int64_t o = 0; o < ow; o++)
                y[o] = (float)((0.0 + a0 * w0[o] * (double)r0[i0[o]]) +
                               a0 * w1[o] * (double)r0[i1[o]]);
            return;
        }
        for (int64_t o = 0; o < ow; o++)
            y[o] = (float)((((0.0 + a0 * w0[o] * (double)r0[i0[o]]) +
                             a0 * w1[o] * (double)r0[i1[o]]) +
                            a1 * w0[o] * (double)r1[i0[o]]) +
                           a1 * w1[o] * (double)r1[i1[o]]);
        return;
    }
    for (int64_t o = 0; o < ow; o++) {
        double s = 0.0;
        for (int j = 0; j < nh; j++)
            for (int b = 0; b < w->k; b++)
                s += a[j] * w->w[b][o] * (double)rows[j][w->i[b][o]];
        y[o] = (float)s;
    }
}

void pz_f32_resize2d__fast(const pz_resize_lin *th, const pz_resize_lin *tw, int64_t planes,
                           int64_t ih, int64_t iw, int64_t oh, int64_t ow, const float *x,
                           float *y, pz_resize_row_fn row, int ith, int nth)
{
    if (!row) row = plain_row;
    int64_t lo, hi;
    pz_split(planes * oh, ith, nth, &lo, &hi);   /* output rows, as the reference */
    for (int64_t r = lo; r < hi; r++) {
        const int64_t h = r % oh;
        const float *xp = x + r / oh * ih * iw;
        float *yr = y + r * ow;
        if (th->ones && tw->ones) {   /* nearest: a gather */
            const float *r0 = xp + (int64_t)th->i[0][h] * iw;
            const int32_t *i0 = tw->i[0];
            /* + 0: the reference's sum from +0 gives +0 for -0 */
            for (int64_t o = 0; o < ow; o++) yr[o] = r0[i0[o]] + 0.0f;
            continue;
        }
        /* H's taps of this row only: the reference's sum has no others */
        const float *rows[PZ_RESIZE_FAST_TAPS];
        double a[PZ_RESIZE_FAST_TAPS];
        const int nh = th->n[h];
        for (int j = 0; j < nh; j++) {
            rows[j] = xp + (int64_t)th->i[j][h] * iw;
            a[j] = th->w[j][h];
        }
        row(tw, ow, rows, a, nh, yr);
    }
}
