/* dwconv16c.c - the ISA-neutral driver of the depthwise 3x3 on NCHW16c:
 * how the workers share a layer's (image, channel block, output row) units.
 * Each ISA's kernel (dwconv16c_avx512.c, _avx2.c, _scalar.c) computes a
 * range of units and calls pz_dwconv3x3_drive with it, so the thread split
 * is written once. */
#include "rt/kernels/fast.h"

/* A depthwise conv's share by rows: its rows (n, oh, block) are taken
 * row-major, pz_split over the workers, so each worker takes the same rows
 * of every block, the rows a layer split by pixels before it wrote on the
 * same core (split by blocks, a worker reads half of them from the other
 * core's cache; bench/RESULTS.md, 'dwconv16c'). share_next gives the
 * share block by block, as the kernels' units (n, block, oh) [*u0, *u1);
 * false when there are no more. */
typedef struct {
    int64_t cb, oh, lo, hi, n, bc;
} dw_share;

static void share_init(dw_share *s, int64_t n, int64_t cb, int64_t oh, int ith,
                                    int nth)
{
    s->cb = cb;
    s->oh = oh;
    pz_split(n * oh * cb, ith, nth, &s->lo, &s->hi);
    s->n = s->lo / (oh * cb);
    s->bc = 0;
}

static bool share_next(dw_share *s, int64_t *u0, int64_t *u1)
{
    while (s->lo < s->hi && s->n * s->oh * s->cb < s->hi) {
        int64_t n = s->n, bc = s->bc, base = n * s->oh;
        if (++s->bc == s->cb) {
            s->bc = 0;
            s->n++;
        }
        int64_t a = pz_ceil_div(s->lo - bc, s->cb) - base;
        int64_t e = pz_ceil_div(s->hi - bc, s->cb) - base;
        if (a < 0) a = 0;
        if (e > s->oh) e = s->oh;
        if (a >= e) continue;
        *u0 = (n * s->cb + bc) * s->oh + a;
        *u1 = (n * s->cb + bc) * s->oh + e;
        return true;
    }
    return false;
}

/* The units [lo, hi), then (an activation that is not a clamp: the
 * kernels' register epilogue does RELU and CLIP alone) act over each
 * block's rows just written, block by block while they are in cache. A
 * block's units in two calls give the bits of one call. act16c NULL: the
 * units apply every act themselves (the scalar twin). */
static void units_act(const pz_conv16c_desc *d, pz_dw3x3_units_fn units, pz_act16c_fn act16c,
                      const float *x, const float *w, const float *b, const float *z, float *y,
                      int64_t lo, int64_t hi)
{
    if (!act16c || pz_act_is_clamp(d->act.kind)) {
        units(d, x, w, b, z, y, lo, hi);
        return;
    }
    const int64_t OH = d->oh, cb = (d->c + 15) / 16;
    for (int64_t u = lo; u < hi;) {
        int64_t ue = (u / OH + 1) * OH < hi ? (u / OH + 1) * OH : hi;
        units(d, x, w, b, z, y, u, ue);
        act16c(&d->act, y + u * d->ow * 16, (ue - u) * d->ow, u / OH % cb * 16, d->c);
        u = ue;
    }
}

void pz_dwconv3x3_drive(const pz_conv16c_desc *d, pz_dw3x3_units_fn units, pz_act16c_fn act16c,
                        int whole_blocks, const float *x, const float *w, const float *b,
                        const float *z, float *y, int ith, int nth)
{
    const int64_t cb = (d->c + 15) / 16;
    if (nth > 1 && !whole_blocks) {
        dw_share sh;
        share_init(&sh, d->n, cb, d->oh, ith, nth);
        int64_t u0, u1;
        while (share_next(&sh, &u0, &u1)) units_act(d, units, act16c, x, w, b, z, y, u0, u1);
        return;
    }
    int64_t lo, hi;
    pz_split(d->n * cb * d->oh, ith, nth, &lo, &hi);
    if (lo < hi) units_act(d, units, act16c, x, w, b, z, y, lo, hi);
}
