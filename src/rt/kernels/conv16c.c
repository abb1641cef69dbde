/* conv16c.c - the ISA-independent driver of the fast NCHW16c convolution:
 * splits the work, chooses the register tile, and walks each output row
 * with the micro-kernels of one ISA (conv16c_avx512.c, conv16c_avx2.c).
 *
 * A row (image n, group of rm output blocks, output row oh) is cut in three:
 *
 *   [0, L)    left border: pixels whose window starts in the left padding
 *   [L, R)    interior: every tap valid; one micro-kernel call per tile runs
 *             all (kh, kw, ic) with the accumulators in registers, bias,
 *             residual and activation fused
 *   [R, OW)   right border
 *
 * The borders go tap by tap ("passes"): pass kw covers the pixels for which
 * column kw is inside the input, so no branch is needed in the inner loop; a
 * pass reloads the accumulators from y, the first initialises them from the
 * bias and the last applies the epilogue (pixels a pass misses get theirs from
 * a small scalar fix-up). The border segments are at least one tile wide, so
 * their tiles stay wide (an RW = 1 tile would be latency bound). Rows whose
 * kernel rows are partly outside the input (top/bottom padding) just run fewer
 * kernel rows (nkh). With a dilation along W, or when no pixel has every tap
 * valid, the whole row goes by passes.
 */
#include <math.h>

#include "rt/kernels/conv16c.h"

static int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

typedef struct {
    const pz_conv16c_desc *d;
    const pz_conv16c_ukset *ks;
    int64_t mb, cb, cbk;     /* output blocks, input blocks, input block size */
    int rm, rwmax, psk;      /* register tile: rm output blocks x up to rwmax pixels */
    int64_t groups;          /* ceil(mb / rm) */
} plan;

/* Cycles per q step of a tile of tw pixels x rm blocks on a core with two FMA
 * and two load ports and an FMA latency of 4: FMA-, load- or latency-bound. */
static double tile_cost(int64_t tw, int rm)
{
    double f = (double)(tw * rm) / 2, l = (double)(tw + rm) / 2, lat = 4;
    return f > l ? (f > lat ? f : lat) : (l > lat ? l : lat);
}

/* The cost of a row of ow pixels in balanced tiles of at most rwmax. */
static double row_cost(int64_t ow, int rwmax, int rm)
{
    int64_t nt = cdiv(ow, rwmax), base = ow / nt, ext = ow % nt;
    return (double)ext * tile_cost(base + 1, rm) + (double)(nt - ext) * tile_cost(base, rm);
}

static void plan_init(plan *p, const pz_conv16c_desc *d, const pz_conv16c_ukset *ks)
{
    p->d = d;
    p->ks = ks;
    p->mb = cdiv(d->m, 16);
    p->cb = cdiv(d->c, d->cblk);
    p->cbk = d->cblk;
    int64_t ps = (int64_t)d->sw * d->cblk;
    p->psk = ps == 16 ? 0 : ps == 32 ? 1 : ps == 6 ? 2 : 3;

    /* the tile with the least estimated time over all output blocks; on a
     * tie the first in this order (wider tiles reuse weights more) */
    static const int order[4] = {2, 4, 3, 1};
    double best = -1;
    p->rm = 1;
    for (int i = 0; i < 4; i++) {
        int rm = order[i];
        if (rm > ks->max_rm || ks->rwmax[rm] < 1 || rm > p->mb) continue;
        int64_t full = p->mb / rm, rem = p->mb % rm;
        double c = (double)full * row_cost(d->ow, ks->rwmax[rm], rm) +
                   (rem ? row_cost(d->ow, ks->rwmax[rm], (int)rem) : 0);
        if (best < 0 || c < best) {
            best = c;
            p->rm = rm;
        }
    }
    p->rwmax = ks->rwmax[p->rm];
    p->groups = cdiv(p->mb, p->rm);
}

/* ---- the scalar fix-ups at the borders ---------------------------------------- */

static void fill_bias(const pz_conv16c_uk_args *a, int rm, int64_t p0, int64_t p1)
{
    for (int r = 0; r < rm; r++)
        for (int64_t px = p0; px < p1; px++)
            for (int l = 0; l < 16; l++)
                a->y[r * a->ys_mb + px * 16 + l] = a->bias ? a->bias[r * 16 + l] : 0.0f;
}

static void finish(const pz_conv16c_uk_args *a, int rm, int64_t p0, int64_t p1)
{
    for (int r = 0; r < rm; r++)
        for (int64_t px = p0; px < p1; px++)
            for (int l = 0; l < 16; l++) {
                int64_t i = r * a->ys_mb + px * 16 + l;
                float v = a->y[i] + (a->z ? a->z[i] : 0.0f);
                if (a->act) v = v < a->lo ? a->lo : v > a->hi ? a->hi : v;
                if (r == a->tail_r && !(a->tail >> l & 1)) v = 0.0f;
                a->y[i] = v;
            }
}

/* ---- one output row ------------------------------------------------------------ */

typedef struct {
    const plan *p;
    pz_conv16c_uk_args a;    /* the fields common to the row's calls */
    const float *xrow;       /* input: image n, first block, first valid kernel row, column 0 */
    const float *wrow;       /* weights: first output block of the group, first valid kernel row */
    float *yrow;             /* output: first block of the group, row oh, pixel 0 */
    const float *zrow;
    int rm;
} row_ctx;

/* Calls the micro-kernel over [p0, p1) in balanced tiles: tap kw (nq = cblk),
 * or all taps (kw < 0, nq = KW * cblk). */
static void run_tiles(row_ctx *rc, int64_t p0, int64_t p1, int kw, int init, int fin)
{
    const plan *p = rc->p;
    const pz_conv16c_desc *d = p->d;
    int64_t n = p1 - p0;
    if (n <= 0) return;
    int64_t nt = cdiv(n, p->rwmax), base = n / nt, ext = n % nt, t0 = p0;
    pz_conv16c_uk_args a = rc->a;
    int64_t tap = kw < 0 ? 0 : (int64_t)kw * d->dw;
    a.nq = (int)(kw < 0 ? d->kw * p->cbk : p->cbk);
    a.w = rc->wrow + (kw < 0 ? 0 : (int64_t)kw * p->cbk * 16);
    a.init = init;
    a.fin = fin;
    for (int64_t t = 0; t < nt; t++) {
        int64_t tw = base + (t < ext);
        a.x = rc->xrow + (t0 * d->sw - d->pl + tap) * p->cbk;
        a.y = rc->yrow + t0 * 16;
        a.z = rc->zrow ? rc->zrow + t0 * 16 : NULL;
        p->ks->pick(p->psk, rc->rm, (int)tw)(&a);
        t0 += tw;
    }
}

/* The pixels [s0, s1) tap by tap. */
static void run_passes(row_ctx *rc, int64_t s0, int64_t s1)
{
    const pz_conv16c_desc *d = rc->p->d;
    if (s1 <= s0) return;
    int64_t ra[64], rb[64];
    int first = -1, last = -1, used = 0;
    for (int kw = 0; kw < d->kw; kw++) {
        int64_t lo, hi;
        pz_conv_valid_range(d->w, d->ow, d->sw, d->pl, (int64_t)kw * d->dw, &lo, &hi);
        ra[kw] = max64(lo, s0);
        rb[kw] = max64(min64(hi, s1), ra[kw]);
        if (rb[kw] > ra[kw]) used++;
        if (rb[kw] > ra[kw] && (first < 0 || rb[kw] - ra[kw] > rb[first] - ra[first])) first = kw;
    }
    /* the last pass: another wide one, or the first when it is the only one */
    for (int kw = 0; kw < d->kw; kw++)
        if (kw != first && rb[kw] > ra[kw] &&
            (last < 0 || rb[kw] - ra[kw] > rb[last] - ra[last]))
            last = kw;
    if (used == 1) last = first;

    pz_conv16c_uk_args fa = rc->a;   /* for the fix-ups: the row's pixel 0 */
    fa.y = rc->yrow;
    fa.z = rc->zrow;
    if (first < 0) {
        fill_bias(&fa, rc->rm, s0, s1);
        finish(&fa, rc->rm, s0, s1);
        return;
    }
    fill_bias(&fa, rc->rm, s0, ra[first]);
    fill_bias(&fa, rc->rm, rb[first], s1);
    run_tiles(rc, ra[first], rb[first], first, 1, first == last);
    for (int kw = 0; kw < d->kw; kw++)
        if (kw != first && kw != last) run_tiles(rc, ra[kw], rb[kw], kw, 0, 0);
    if (last != first) run_tiles(rc, ra[last], rb[last], last, 0, 1);
    finish(&fa, rc->rm, s0, ra[last]);
    finish(&fa, rc->rm, rb[last], s1);
}

static void conv_row(const plan *p, const float *x, const float *w, const float *b,
                     const float *z, float *y, int64_t n, int64_t ob0, int rm, int64_t oh)
{
    const pz_conv16c_desc *d = p->d;
    const int64_t H = d->h, W = d->w, OH = d->oh, OW = d->ow, cbk = p->cbk;
    row_ctx rc = {.p = p, .rm = rm};
    pz_conv16c_uk_args *a = &rc.a;
    a->xs_cb = H * W * cbk;
    a->xs_h = d->dh * W * cbk;
    a->ws_cb = (int64_t)d->kh * d->kw * cbk * 16;
    a->ws_mb = p->cb * a->ws_cb;
    a->ws_h = d->kw * cbk * 16;
    a->ys_mb = OH * OW * 16;
    a->ps = d->sw * cbk;
    a->ncb = (int)p->cb;
    a->act = d->act.kind != PZ_ACT_NONE;
    a->lo = d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f;
    a->hi = d->act.kind == PZ_ACT_CLIP ? d->act.hi : INFINITY;
    a->tail_r = -1;
    if (ob0 + rm == p->mb && d->m % 16) {
        a->tail_r = rm - 1;
        a->tail = (1u << (d->m % 16)) - 1;
    }
    a->bias = b ? b + ob0 * 16 : NULL;
    int64_t yoff = ((n * p->mb + ob0) * OH + oh) * OW * 16;
    rc.yrow = y + yoff;
    rc.zrow = z ? z + yoff : NULL;

    /* kernel rows kh with 0 <= oh*sh - pt + kh*dh < H */
    int64_t ih0 = oh * d->sh - d->pt;
    int64_t khlo = max64(0, pz_ceil_div(-ih0, d->dh)), khhi = min64(d->kh, pz_ceil_div(H - ih0, d->dh));
    if (khhi <= khlo) {
        pz_conv16c_uk_args fa = *a;
        fa.y = rc.yrow;
        fa.z = rc.zrow;
        fill_bias(&fa, rm, 0, OW);
        finish(&fa, rm, 0, OW);
        return;
    }
    a->nkh = (int)(khhi - khlo);
    rc.xrow = x + n * p->cb * H * W * cbk + (ih0 + khlo * d->dh) * W * cbk;
    rc.wrow = w + ob0 * a->ws_mb + khlo * a->ws_h;

    /* pixels [ol, orr) have every tap inside the input */
    int64_t ol = min64(OW, max64(0, pz_ceil_div(d->pl, d->sw)));
    int64_t orr = pz_floor_div(W - 1 + d->pl - (int64_t)(d->kw - 1) * d->dw, d->sw) + 1;
    orr = min64(OW, max64(0, orr));
    int64_t L = OW, R = OW;
    if ((d->dw == 1 || d->kw == 1) && ol < orr) {
        L = ol > 0 ? max64(ol, p->rwmax) : 0;
        R = orr < OW ? min64(orr, OW - p->rwmax) : OW;
        if (L >= R) L = R = OW;
    }
    run_passes(&rc, 0, L);
    run_tiles(&rc, L, R, -1, 1, 1);
    run_passes(&rc, R, OW);
}

void pz_conv16c_drive(const pz_conv16c_desc *d, const pz_conv16c_ukset *ks,
                      const float *restrict x, const float *restrict w,
                      const float *restrict b, const float *restrict z, float *restrict y,
                      int ith, int nth)
{
    plan p;
    plan_init(&p, d, ks);
    /* one unit = one output row (n, group, oh), oh fastest: a worker keeps
     * the group's weights in cache over its rows */
    int64_t lo, hi;
    pz_split(d->n * p.groups * d->oh, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t oh = u % d->oh, g = u / d->oh % p.groups, n = u / (d->oh * p.groups);
        int64_t ob0 = g * p.rm;
        int rm = (int)min64(p.rm, p.mb - ob0);
        conv_row(&p, x, w, b, z, y, n, ob0, rm, oh);
    }
}
