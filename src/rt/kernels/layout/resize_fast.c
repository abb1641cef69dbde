/* resize_fast.c - the float32 Resize's fast twin over the last two axes
 * (an image's H and W), nearest and linear: pz_any_resize__ref's taps
 * flattened at plan time into per-axis tables of two (index, weight)
 * pairs, a tap the reference drops given weight 0 at the kept index.
 * Each output row then reads the tables in order (no pointer chase, no
 * odometer), and a nearest resize is a gather.
 *
 * Bits: the reference's double arithmetic term for term, in its order
 * ((w_h * w_w) * x summed a-major from 0): equal bits for finite inputs
 * (the padded taps add +-0, which changes no sum; -0 comes out +0, as
 * there). An infinite input under
 * a dropped tap gives NaN here (0 * inf), where the reference skips it. */
#include <limits.h>

#include "rt/kernels/twins_fast.h"

bool pz_resize_lin_table(const pz_resize_tap *taps, int64_t in, int64_t out,
                         pz_resize_lin *t)
{
    bool ones = true;
    if (in > INT32_MAX) return false;
    for (int64_t o = 0; o < out; o++) {
        const pz_resize_tap *p = &taps[o];
        if (p->outside || p->n < 1 || p->n > 2) return false;
        t->i0[o] = (int32_t)p->idx[0];
        t->w0[o] = p->w[0];
        t->i1[o] = (int32_t)p->idx[p->n - 1];   /* one tap: its index, weight 0 */
        t->w1[o] = p->n == 2 ? p->w[1] : 0.0;
        ones &= p->n == 1 && p->w[0] == 1.0;
    }
    t->ones = ones;
    return true;
}

/* One output row from input rows r0 (weight a0) and r1 (a1; 0 when H has
 * one tap, r1 then unread): pz_resize_row_fn. */
static void lin_row(const pz_resize_lin *w, int64_t ow, const float *r0, const float *r1,
                    double a0, double a1, bool two, float *y)
{
    const int32_t *i0 = w->i0, *i1 = w->i1;
    const double *w0 = w->w0, *w1 = w->w1;
    if (!two) {
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
}

void pz_f32_resize2d__fast(const pz_resize_lin *th, const pz_resize_lin *tw, int64_t planes,
                           int64_t ih, int64_t iw, int64_t oh, int64_t ow, const float *x,
                           float *y, pz_resize_row_fn row, int ith, int nth)
{
    if (!row) row = lin_row;
    int64_t lo, hi;
    pz_split(planes * oh, ith, nth, &lo, &hi);   /* output rows, as the reference */
    for (int64_t r = lo; r < hi; r++) {
        const int64_t h = r % oh;
        const float *xp = x + r / oh * ih * iw;
        const float *r0 = xp + (int64_t)th->i0[h] * iw, *r1 = xp + (int64_t)th->i1[h] * iw;
        float *yr = y + r * ow;
        if (th->ones && tw->ones) {   /* nearest: a gather */
            const int32_t *i0 = tw->i0;
            /* + 0: the reference's sum from +0 gives +0 for -0 */
            for (int64_t o = 0; o < ow; o++) yr[o] = r0[i0[o]] + 0.0f;
            continue;
        }
        /* a row of H with one tap (w1 0): the reference's sum has no second row */
        row(tw, ow, r0, r1, th->w0[h], th->w1[h], th->w1[h] != 0.0, yr);
    }
}
