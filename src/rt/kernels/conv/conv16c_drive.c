/* conv16c_drive.c - the ISA-independent driver of the fast NCHW16c convolution:
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
 * a small scalar fix-up). Under a 3x3 kernel with pad 1 a border segment is
 * one tile, and where the ISA has border tiles it goes in one call, every
 * tap, its first (last) pixel skipping tap 0 (2) instead (plan_edges). The border segments are at least one tile wide, so
 * their tiles stay wide (an RW = 1 tile would be latency bound). Rows whose
 * kernel rows are partly outside the input (top/bottom padding) just run fewer
 * kernel rows (nkh). With a dilation along W, or when no pixel has every tap
 * valid, the whole row goes by passes, except a row of one tile under a
 * 3-wide kernel: one call per row with border tiles (plan_border).
 *
 * Two special shapes: a 1x1 conv with stride 1 and no padding is one GEMM
 * over the pixels, so the image is taken as one row of H*W pixels (the
 * workers get equal numbers of pixels, each group's share in one
 * micro-kernel call; see run_flat); and
 * outputs at most rw2max pixels wide (7x7, ResNet's last stage) use tiles
 * spanning two rows, so that each weight load feeds up to 14 pixels instead
 * of 7 (a pair at the top or bottom, whose rows see different kernel rows,
 * runs the common kernel rows as a pair and the others row by row).
 *
 * The register tile (rm blocks x up to rwmax pixels) is the one with the
 * least estimated time per row (tile_cost), ties to the widest.
 *
 * Weights of 1 MB or more go in the k-chunked order (plan_chunks): the rows
 * of a group take the input blocks a chunk at a time, so that the chunk's
 * weights stay in L1 over the rows.
 *
 * ResNet's 7x7 3x3s run a few points below its 28x28 ones: at 7x7 every
 * tile is a border tile and the rows go 2+2+2+1, which spreads the padding's
 * loss over them; the weights and the driver are not the cause
 * (bench/RESULTS.md, 'conv16c: 3x3 at 7x7').
 */
#include <math.h>

#include "rt/kernels/conv/conv16c_plan.h"

/* A flat 1x1 conv in the pixel-major order (run_flat) runs every group
 * over a span of pixels whose input is about this many bytes, then the
 * next span: the span's input stays in L2 while the groups write their
 * outputs. */
#define PZ_CONV16C_SPAN_BYTES (128 * 1024)


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
    const pz_conv16c_plan *p;
    int rows;                /* 1, or 2: the tiles span this row and the next */
    pz_conv16c_uk_args a;    /* the fields common to the row's calls */
    const float *xrow;       /* input: image n, first block, first valid kernel row, column 0 */
    const float *wrow;       /* weights: first output block of the group, first valid kernel row */
    float *yrow;             /* output: first block of the group, row oh, pixel 0 */
    const float *zrow;
    int rm;
    int half;                /* the last of rm >= 2 blocks has at most 8 valid lanes:
                              * ks->pickh's tiles where it has one */
    const float *pf;         /* weights to prefetch over the row's calls: next line */
    int64_t pf_n;            /* lines left */
    int kfirst, klast;       /* the chunk of input blocks is the first / last */
    /* a pair of rows whose kernel rows differ (top and bottom of the image)
     * runs their common kernel rows as a pair and these per row */
    int nextra;
    struct {
        const float *xrow, *wrow;
        float *yrow;
        const float *zrow;
        int nkh;
        int rr;              /* which row of the pair */
    } extra[4];
} row_ctx;

/* Calls the micro-kernel over [p0, p1) in balanced tiles: tap kw (nq = cblk),
 * or all taps (kw < 0, nq = KW * cblk); lb or rb: border tiles (kw < 0, a
 * 3-wide kernel), tap 0 skipping the first pixel, tap 2 the last. */
static void run_tiles(row_ctx *rc, int64_t p0, int64_t p1, int kw, int init, int fin, int lb,
                      int rb)
{
    const pz_conv16c_plan *p = rc->p;
    const pz_conv16c_desc *d = p->d;
    int64_t n = p1 - p0;
    if (n <= 0) return;
    int64_t nt = cdiv(n, p->rwmax), base = n / nt, ext = n % nt, t0 = p0;
    /* the row's arguments, changed in place: a copy would read with wide
     * loads what conv_row has just written field by field, and a load that
     * no store can forward to waits for every older store to commit, the
     * previous call's output tiles (beyond L1) among them */
    pz_conv16c_uk_args *a = &rc->a;
    int64_t tap = kw < 0 ? 0 : (int64_t)kw * d->dw;
    a->nq = (int)(kw < 0 ? d->kw * p->cbk : p->cbk);
    /* one tap per q run (a pass, or a 1-wide kernel): the last input block
     * stops at channel C */
    a->nq_last = a->nq;
    if ((kw >= 0 || d->kw == 1) && d->c % p->cbk && rc->klast) a->nq_last = (int)(d->c % p->cbk);
    a->w = rc->wrow + (kw < 0 ? 0 : (int64_t)kw * p->cbk * 16);
    a->init = init && rc->kfirst;
    a->fin = fin && rc->klast;
    /* the ext tiles of base + 1 pixels, then those of base: one call each */
    for (int part = 0; part < 2; part++) {
        int64_t tw = base + (part == 0), cnt = part == 0 ? ext : nt - ext;
        if (cnt == 0) continue;
        a->ntile = (int)cnt;
        a->pf = rc->pf;
        a->pf_n = rc->pf_n;
        a->x = rc->xrow + (t0 * d->sw - d->pl + tap) * p->cbk;
        a->y = rc->yrow + t0 * 16;
        a->z = rc->zrow ? rc->zrow + t0 * 16 : NULL;
        pz_conv16c_uk uk = NULL;
        if (lb || rb) uk = p->ks->pickb(p->psk, rc->rm, (int)tw, rc->rows, lb, rb);
        else if (rc->half && rc->rows == 1) uk = p->ks->pickh(p->psk, rc->rm, (int)tw);
        if (!uk) uk = rc->rows == 2 ? p->ks->pick2(p->psk, rc->rm, (int)tw)
                                    : p->ks->pick(p->psk, rc->rm, (int)tw);
        uk(a);
        t0 += tw * cnt;
        /* the call prefetched one line every PZ_CONV16C_PF_EVERY q steps
         * of each run: q = 0, E, 2E, ... */
        const int E = PZ_CONV16C_PF_EVERY;
        int64_t steps = cnt * a->nkh *
                        ((int64_t)(a->ncb - 1) * ((a->nq + E - 1) / E) + (a->nq_last + E - 1) / E);
        steps = min64(steps, rc->pf_n);
        rc->pf += steps * 16;
        rc->pf_n -= steps;
    }
}

/* The scalar fix-up of pixels [p0, p1) of the row (or both rows): the bias
 * (fin = 0) or the epilogue (fin = 1). */
static void fixup(const row_ctx *rc, int fin, int64_t p0, int64_t p1)
{
    if (p1 <= p0) return;   /* no copy of rc->a (see run_tiles) */
    if (fin ? !rc->klast : !rc->kfirst) return;
    for (int rr = 0; rr < rc->rows; rr++) {
        pz_conv16c_uk_args fa = rc->a;
        fa.y = rc->yrow + rr * rc->a.ys_row;
        fa.z = rc->zrow ? rc->zrow + rr * rc->a.ys_row : NULL;
        if (fin) finish(&fa, rc->rm, p0, p1);
        else fill_bias(&fa, rc->rm, p0, p1);
    }
}

/* The part of a row context that an extra of a pair changes. */
typedef struct {
    const float *xrow, *wrow;
    float *yrow;
    const float *zrow;
    int nkh, rows, nextra;
} row_part;

/* rc becomes the e-th extra of its pair (one row, its own kernel rows), in
 * place: a copy of the whole context cost a string move on every call,
 * which told in the k-chunked order (a row a chunk); leave_extra undoes it. */
static void enter_extra(row_ctx *rc, int e, row_part *saved)
{
    *saved = (row_part){rc->xrow, rc->wrow, rc->yrow, rc->zrow, rc->a.nkh, rc->rows, rc->nextra};
    rc->rows = 1;
    rc->nextra = 0;
    rc->a.nkh = rc->extra[e].nkh;
    rc->xrow = rc->extra[e].xrow;
    rc->wrow = rc->extra[e].wrow;
    rc->yrow = rc->extra[e].yrow;
    rc->zrow = rc->extra[e].zrow;
}

static void leave_extra(row_ctx *rc, const row_part *saved)
{
    rc->xrow = saved->xrow;
    rc->wrow = saved->wrow;
    rc->yrow = saved->yrow;
    rc->zrow = saved->zrow;
    rc->a.nkh = saved->nkh;
    rc->rows = saved->rows;
    rc->nextra = saved->nextra;
}

/* The pixels [s0, s1) of a border segment tap by tap. */
static void run_passes(row_ctx *rc, const pz_conv16c_passes *pp)
{
    const pz_conv16c_desc *d = rc->p->d;
    const int64_t s0 = pp->s0, s1 = pp->s1, *ra = pp->ra, *rb = pp->rb;
    const int first = pp->first, last = pp->last;
    if (s1 <= s0) return;

    if (first < 0) {
        fixup(rc, 0, s0, s1);
        fixup(rc, 1, s0, s1);
        return;
    }
    fixup(rc, 0, s0, ra[first]);
    fixup(rc, 0, rb[first], s1);
    run_tiles(rc, ra[first], rb[first], first, 1, first == last && !rc->nextra, 0, 0);
    for (int kw = 0; kw < d->kw; kw++)
        if (kw != first && kw != last) run_tiles(rc, ra[kw], rb[kw], kw, 0, 0, 0, 0);
    /* the kernel rows of one row of the pair only, every tap */
    for (int e = 0, ne = rc->nextra; e < ne; e++) {
        row_part saved;
        enter_extra(rc, e, &saved);
        for (int kw = 0; kw < d->kw; kw++) run_tiles(rc, ra[kw], rb[kw], kw, 0, 0, 0, 0);
        leave_extra(rc, &saved);
    }
    if (last != first) run_tiles(rc, ra[last], rb[last], last, 0, 1, 0, 0);
    if (last == first && rc->nextra) {
        fixup(rc, 1, s0, s1);
    } else {
        fixup(rc, 1, s0, ra[last]);
        fixup(rc, 1, rb[last], s1);
    }
}

/* A row (or pair) of one tile with every tap in one call (p->border). A
 * pair whose rows see different kernel rows runs each row's own kernel rows
 * first (the first of a row from the bias), the other row of the pair takes
 * the bias, and then the common kernel rows as a pair finish both. */
static void run_border(row_ctx *rc)
{
    const int64_t OW = rc->p->d->ow;
    int init = 1;
    if (rc->nextra) {
        int seen[2] = {0, 0};
        for (int e = 0, ne = rc->nextra; e < ne; e++) {
            row_part saved;
            enter_extra(rc, e, &saved);
            run_tiles(rc, 0, OW, -1, !seen[rc->extra[e].rr], 0, rc->p->lb, rc->p->rb);
            leave_extra(rc, &saved);
            seen[rc->extra[e].rr] = 1;
        }
        for (int rr = 0; rr < 2 && rc->kfirst; rr++) {
            if (seen[rr]) continue;
            pz_conv16c_uk_args fa = rc->a;
            fa.y = rc->yrow + rr * rc->a.ys_row;
            fill_bias(&fa, rc->rm, 0, OW);
        }
        init = 0;
    }
    run_tiles(rc, 0, OW, -1, init, 1, rc->p->lb, rc->p->rb);
}

/* The kernel rows [*lo, *hi) inside the input for a row whose window
 * starts at input row ih0: 0 <= ih0 + kh*dh < H (no division without a
 * dilation: this runs for every row). */
static void kh_range(const pz_conv16c_desc *d, int64_t ih0, int64_t *lo, int64_t *hi)
{
    if (d->dh == 1) {
        *lo = max64(0, -ih0);
        *hi = min64(d->kh, d->h - ih0);
    } else {
        *lo = max64(0, pz_ceil_div(-ih0, d->dh));
        *hi = min64(d->kh, pz_ceil_div(d->h - ih0, d->dh));
    }
}

/* Output rows oh .. oh + nrows - 1 (nrows 1 or 2) of image n for output
 * blocks [ob0, ob0 + rm); a flat 1x1 conv (one row of H*W pixels) does only
 * the pixels [f0, f1). Two rows go together when their kernel rows agree. */
static void conv_row_body(const pz_conv16c_plan *p, const float *x, const float *w,
                          const float *b, const float *z, float *y, int64_t n, int64_t ob0,
                          int rm, int64_t oh, int nrows, int64_t f0, int64_t f1, int64_t cb0,
                          int64_t cb1, const float *pf, int64_t pf_n)
{
    const pz_conv16c_desc *d = p->d;
    const int64_t H = d->h, W = d->w, OH = d->oh, OW = d->ow, cbk = p->cbk;
    /* field by field: an initializer would zero all of rc first (extra[]
     * too) with string stores */
    row_ctx rc;
    rc.p = p;
    rc.rm = rm;
    rc.rows = 1;
    rc.a = p->tmpl;
    rc.pf = pf;
    rc.pf_n = pf_n;
    rc.nextra = 0;
    rc.kfirst = cb0 == 0;
    rc.klast = cb1 == p->cb;
    pz_conv16c_uk_args *a = &rc.a;
    a->ncb = (int)(cb1 - cb0);
    /* lanes past M come out zero from the zero weights and bias (and a
     * residual's zero lanes) unless a clip moves 0: only then mask them */
    a->tail_r = -1;
    int moves0 = a->act && (a->lo > 0.0f || a->hi < 0.0f);
    if (moves0 && ob0 + rm == p->mb && d->m % 16) {
        a->tail_r = rm - 1;
        a->tail = (1u << (d->m % 16)) - 1;
    }
    rc.half = p->ks->pickh && rm >= 2 && ob0 + rm == p->mb && d->m % 16 && d->m % 16 <= 8;
    a->bias = b ? b + ob0 * 16 : NULL;
    int64_t yoff = ((n * p->mb + ob0) * OH + oh) * OW * 16;
    rc.yrow = y + yoff;
    rc.zrow = z ? z + yoff : NULL;

    const int64_t L = p->L, R = p->R;
    const int whole = L == OW && !p->flat;

    /* kernel rows kh with 0 <= oh*sh - pt + kh*dh < H */
    const float *ximg = x + n * p->cb * H * W * cbk + cb0 * a->xs_cb;
    const float *wgrp = w + ob0 * a->ws_mb + cb0 * a->ws_cb;
    int64_t ih0 = oh * d->sh - d->pt;
    int64_t khlo, khhi;
    kh_range(d, ih0, &khlo, &khhi);
    if (nrows == 2) {
        int64_t ih1 = ih0 + d->sh, lo1, hi1;
        kh_range(d, ih1, &lo1, &hi1);
        if (lo1 != khlo || hi1 != khhi) {
            /* a pair with different kernel rows: the common ones as a pair,
             * the others per row (where the rows go by passes or as border
             * tiles; else the two rows one by one) */
            int64_t clo = max64(khlo, lo1), chi = min64(khhi, hi1);
            if ((!whole && !p->border) || chi <= clo) {
                conv_row_body(p, x, w, b, z, y, n, ob0, rm, oh, 1, f0, f1, cb0, cb1, pf, pf_n / 2);
                conv_row_body(p, x, w, b, z, y, n, ob0, rm, oh + 1, 1, f0, f1, cb0, cb1,
                         pf + pf_n / 2 * 16, pf_n - pf_n / 2);
                return;
            }
            const int64_t lo_[2] = {khlo, lo1}, hi_[2] = {khhi, hi1}, ih_[2] = {ih0, ih1};
            for (int rr = 0; rr < 2; rr++) {
                const int64_t seg[2][2] = {{lo_[rr], clo}, {chi, hi_[rr]}};
                for (int sg = 0; sg < 2; sg++) {
                    if (seg[sg][1] <= seg[sg][0]) continue;
                    int e = rc.nextra++;
                    rc.extra[e].xrow = ximg + (ih_[rr] + seg[sg][0] * d->dh) * W * cbk;
                    rc.extra[e].wrow = wgrp + seg[sg][0] * a->ws_h;
                    rc.extra[e].yrow = rc.yrow + rr * a->ys_row;
                    rc.extra[e].zrow = rc.zrow ? rc.zrow + rr * a->ys_row : NULL;
                    rc.extra[e].nkh = (int)(seg[sg][1] - seg[sg][0]);
                    rc.extra[e].rr = rr;
                }
            }
            khlo = clo;
            khhi = chi;
        }
        rc.rows = 2;
    }
    if (khhi <= khlo) {
        fixup(&rc, 0, 0, OW);
        fixup(&rc, 1, 0, OW);
        return;
    }
    a->nkh = (int)(khhi - khlo);
    rc.xrow = ximg + (ih0 + khlo * d->dh) * W * cbk;
    rc.wrow = wgrp + khlo * a->ws_h;

    if (p->flat) {
        run_tiles(&rc, f0, f1, -1, 1, 1, 0, 0);
        return;
    }
    if (p->border) {
        run_border(&rc);
        return;
    }
    if (p->edge[0]) run_tiles(&rc, 0, L, -1, 1, 1, 1, 0);
    else run_passes(&rc, &p->seg[0]);
    run_tiles(&rc, L, R, -1, 1, 1, 0, 0);
    if (p->edge[1]) run_tiles(&rc, R, OW, -1, 1, 1, 0, 1);
    else run_passes(&rc, &p->seg[1]);
}


/* One output row (or pair) of rm blocks: conv_row_body, then, once the last
 * chunk of input blocks is in (the sums final), an activation that is not a
 * clamp over the pixels just written, while they are in L1 (the micro-
 * kernels' register epilogue does RELU and CLIP; a->act is 0 for the rest). */
static void conv_row(const pz_conv16c_plan *p, const float *x, const float *w, const float *b,
                     const float *z, float *y, int64_t n, int64_t ob0, int rm, int64_t oh,
                     int nrows, int64_t f0, int64_t f1, int64_t cb0, int64_t cb1, const float *pf,
                     int64_t pf_n)
{
    conv_row_body(p, x, w, b, z, y, n, ob0, rm, oh, nrows, f0, f1, cb0, cb1, pf, pf_n);
    const pz_conv16c_desc *d = p->d;
    if (pz_act_is_clamp(d->act.kind) || cb1 != p->cb) return;
    const int64_t p0 = p->flat ? f0 : 0, np = p->flat ? f1 - f0 : d->ow;
    float *yr = y + ((n * p->mb + ob0) * d->oh + oh) * d->ow * 16 + p0 * 16;
    for (int r = 0; r < rm; r++)
        for (int rr = 0; rr < nrows; rr++)
            p->ks->act16c(&d->act, yr + r * p->tmpl.ys_mb + rr * p->tmpl.ys_row, np,
                          (ob0 + r) * 16, d->m);
}

/* k-chunked order: the weights to prefetch while unit i of nu runs chunk c0
 * of group g: its share of the next chunk (c0 + kc of g, or the first of g + 1),
 * RM lines a step, one per output block (pf_stride). */
static void chunk_pf(const pz_conv16c_plan *p, const float *w, int64_t g, int64_t c0, int64_t i,
                     int64_t nu, const float **pf, int64_t *pf_n)
{
    int64_t ng = g, nc = c0 + p->kc;
    if (nc >= p->cb) {
        ng = g + 1;
        nc = 0;
    }
    *pf = NULL;
    *pf_n = 0;
    if (!p->prefetch || ng >= p->groups) return;
    int64_t lines = min64(p->kc, p->cb - nc) * p->tmpl.ws_cb / 16;
    int64_t l0 = lines * i / nu, l1 = lines * (i + 1) / nu;
    *pf = w + ng * p->rm * p->tmpl.ws_mb + nc * p->tmpl.ws_cb + l0 * 16;
    *pf_n = l1 - l0;
}

/* Groups [g0, g1) of image n over the pixels [f0, f1) of a flat 1x1 conv
 * whose worker's share is [F0, F0 + P): one row of the micro-kernel each
 * (or one per chunk of input blocks in the k-chunked order). */
static void flat_groups(const pz_conv16c_plan *p, const float *x, const float *w, const float *b,
                        const float *z, float *y, int64_t n, int64_t g0, int64_t g1, int64_t f0,
                        int64_t f1, int64_t F0, int64_t P)
{
    const int64_t glines = p->tmpl.ws_mb / 16;   /* 64-byte lines of one output block */
    for (int64_t g = g0; g < g1; g++) {
        int64_t ob0 = g * p->rm;
        int rm = (int)min64(p->rm, p->mb - ob0);
        const float *pf = NULL;
        int64_t pf_n = 0;
        if (p->kc < p->cb) {
            for (int64_t c0 = 0; c0 < p->cb; c0 += p->kc) {
                chunk_pf(p, w, g, c0, 0, 1, &pf, &pf_n);
                conv_row(p, x, w, b, z, y, n, ob0, rm, 0, 1, f0, f1, c0,
                         min64(p->cb, c0 + p->kc), pf, pf_n);
            }
            continue;
        }
        if (p->prefetch && g + 1 < p->groups) {
            int64_t nl = glines * min64(p->rm, p->mb - ob0 - p->rm);
            int64_t l0 = nl * (f0 - F0) / P;
            pf = w + (ob0 + p->rm) * p->tmpl.ws_mb + l0 * 16;
            pf_n = nl * (f1 - F0) / P - l0;
        }
        conv_row(p, x, w, b, z, y, n, ob0, rm, 0, 1, f0, f1, 0, p->cb, pf, pf_n);
    }
}

/* The worker's share of a flat 1x1 conv (one row of pixels [F0, F1) per
 * image): balanced by pixels, not by whole units: fixed chunks split a
 * small map unevenly, and the worker with the larger share sets the time.
 *
 * pixel_major (groups fastest, see pz_conv16c_drive): each worker takes an
 * equal run of (image, pixel) and runs every group over it, span by span:
 * spans of about PZ_CONV16C_SPAN_BYTES of input, so that a span's input
 * stays in L2 while the groups write their outputs (over the whole run,
 * each group would read the input again from beyond L2 where it and the
 * outputs outweigh L2).
 * Otherwise: an equal run of (image, group, pixel), so a worker may take
 * part of a group; the prefetch of the next group's weights is shared out
 * by pixels.
 * Each (image, group) of a run or span is one row of the micro-kernel,
 * however long: a chunk (say one whose input stays in L1 for every group)
 * costs a call chain (conv_row, run_tiles, the micro-kernel's set-up and
 * drain), and the input comes from L2 as fast as from L1 (bench/RESULTS.md,
 * 'conv16c: flat 1x1 convs'). A pixel's sums do not depend on the cut. In
 * the k-chunked order (plan_chunks) a run goes chunk by chunk of input
 * blocks, one call each. */
static void run_flat(const pz_conv16c_plan *p, const float *x, const float *w, const float *b,
                     const float *z, float *y, int64_t F0, int64_t F1, int pixel_major, int ith,
                     int nth)
{
    const pz_conv16c_desc *d = p->d;
    const int64_t P = F1 - F0, G = pixel_major ? 1 : p->groups;
    /* pixels per span: the input of one pixel is cb blocks of cbk floats */
    const int64_t span = max64(1, PZ_CONV16C_SPAN_BYTES /
                                      (p->cb * p->cbk * (int64_t)sizeof(float)));
    int64_t lo, hi;
    if (P <= 0) return;
    pz_split(d->n * G * P, ith, nth, &lo, &hi);
    for (int64_t q = lo; q < hi;) {
        int64_t n = q / (G * P), g = q / P % G, p0 = q % P;
        int64_t p1 = min64(P, p0 + (hi - q));
        if (pixel_major) {
            /* ns spans of equal length */
            const int64_t ns = cdiv(p1 - p0, span);
            for (int64_t s = 0; s < ns; s++)
                flat_groups(p, x, w, b, z, y, n, 0, p->groups,
                            F0 + p0 + (p1 - p0) * s / ns, F0 + p0 + (p1 - p0) * (s + 1) / ns,
                            F0, P);
        } else {
            flat_groups(p, x, w, b, z, y, n, g, g + 1, F0 + p0, F0 + p1, F0, P);
        }
        q += p1 - p0;
    }
}

/* Units [lo, hi) in the k-chunked order (plan_chunks): each (image, group)
 * of the range chunk by chunk, its units in turn within a chunk. A unit is
 * output row w0 + r*step (and the next when step is 2) of the window [w0, w1). */
static void run_chunked(const pz_conv16c_plan *p, const float *x, const float *w, const float *b,
                        const float *z, float *y, int64_t lo, int64_t hi, int64_t w0, int64_t w1,
                        int64_t step)
{
    const int64_t rows = cdiv(w1 - w0, step);
    for (int64_t u = lo; u < hi;) {
        int64_t g = u / rows % p->groups, n = u / (rows * p->groups);
        int64_t ue = min64(hi, (u / rows + 1) * rows);   /* the end of (n, g) in the range */
        int64_t ob0 = g * p->rm;
        int rm = (int)min64(p->rm, p->mb - ob0);
        for (int64_t c0 = 0; c0 < p->cb; c0 += p->kc)
            for (int64_t uu = u; uu < ue; uu++) {
                int64_t oh = w0 + (uu % rows) * step;
                const float *pf;
                int64_t pf_n;
                chunk_pf(p, w, g, c0, uu - u, ue - u, &pf, &pf_n);
                conv_row(p, x, w, b, z, y, n, ob0, rm, oh, (int)min64(step, w1 - oh), 0, p->d->ow,
                         c0, min64(p->cb, c0 + p->kc), pf, pf_n);
            }
        u = ue;
    }
}

void pz_conv16c_drive(const pz_conv16c_desc *d, const pz_conv16c_ukset *ks,
                      const float *restrict x, const float *restrict w,
                      const float *restrict b, const float *restrict z, float *restrict y,
                      int ith, int nth)
{
    /* a 1x1 conv with stride 1 and no padding is one GEMM over the pixels:
     * the image is one row of H*W pixels (contiguous in NCHW16c), split
     * over the workers by run_flat */
    pz_conv16c_desc fd = *d;
    const int64_t orig_w = d->w;
    int flat = d->kh == 1 && d->kw == 1 && d->sh == 1 && d->sw == 1 && d->pt == 0 &&
               d->pl == 0 && d->oh == d->h && d->ow == d->w;
    if (flat) {
        fd.w = fd.ow = d->h * d->w;
        fd.h = fd.oh = 1;
        d = &fd;
    }
    pz_conv16c_plan p;
    pz_conv16c_plan_init(&p, d, ks);
    p.flat = flat;
    pz_conv16c_plan_rows(&p);
    p.tmpl.w0 = w;
    /* In a net a layer's weights come from memory (the layers before have
     * streamed theirs through the caches). A group's weights come from L2
     * after its first unit, but that unit would wait on memory for all of
     * them at once. So unit r of a group prefetches the r-th share of the
     * next group's weights, spread over its q steps (a line every
     * PZ_CONV16C_PF_EVERY), and the memory traffic overlaps the FMAs. For
     * weights of every size: the nets gain, cold weights most, and only a
     * warm 1x1/2 downsample loses a little (bench/RESULTS.md, 'conv16c:
     * next-group prefetch'). */
    const int64_t wfloats = pz_conv16c_weights_size(d);
    p.prefetch = 1;
    pz_conv16c_plan_chunks(&p, wfloats);
    const int64_t glines = p.tmpl.ws_mb / 16;   /* 64-byte lines of one output block */
    if (flat) {
        /* a row window [r0, r1) (d->r1 != 0, a fused F-Block) of a flat
         * conv is its pixels [r0*W, r1*W). A flat conv whose image outweighs
         * its weights (few input channels, a large map: MobileNetV2's
         * expands) goes groups fastest, the workers split by pixels: each
         * reads the half of the input that the layer before wrote on its
         * core. */
        const int64_t F0 = d->r1 ? d->r0 * orig_w : 0, F1 = d->r1 ? d->r1 * orig_w : d->ow;
        const int pixel_major = p.groups > 1 && p.tmpl.xs_cb * p.cb > wfloats;
        if (pixel_major) {
            p.prefetch = 0;
            pz_conv16c_no_chunks(&p);
        }
        run_flat(&p, x, w, b, z, y, F0, F1, pixel_major, ith, nth);
        return;
    }
    /* one unit = one output row (or pair of rows) of (n, group), rows
     * fastest: a worker keeps the group's weights in cache over its rows;
     * a row window [r0, r1) (d->r1 != 0, a fused F-Block): those rows only.
     * Where the image outweighs weights of at most 1 MB (ResNet-50's 3x3
     * stride-2 conv at 56x56), groups go fastest instead: the weights stay
     * in L2, and each band of input rows is read once for every group,
     * where rows fastest would read the whole image once per group, from
     * beyond L2 when it is large (bench/RESULTS.md, 'conv16c: unit order').
     * On several workers, a worker takes a band of rows, whose input rows
     * the layer before, split by pixels, wrote on the same core; split by
     * groups, each worker read the whole image, half of it from the other
     * core's cache. The order of the units changes no sum. */
    const int64_t w0 = d->r1 ? d->r0 : 0, w1 = d->r1 ? d->r1 : d->oh;
    const int64_t step = p.rows2 ? 2 : 1, rows = cdiv(w1 - w0, step);
    const int row_major = p.groups > 1 &&
                          wfloats * (int64_t)sizeof(float) <= PZ_CONV16C_L2_WEIGHTS &&
                          p.tmpl.xs_cb * p.cb > wfloats;
    int64_t lo, hi;
    pz_split(d->n * p.groups * rows, ith, nth, &lo, &hi);
    if (row_major) pz_conv16c_no_chunks(&p);
    if (p.kc < p.cb) {
        run_chunked(&p, x, w, b, z, y, lo, hi, w0, w1, step);
        return;
    }
    for (int64_t u = lo; u < hi; u++) {
        int64_t r = u % rows, g = u / rows % p.groups, n = u / (rows * p.groups);
        if (row_major) {
            g = u % p.groups;
            r = u / p.groups % rows;
        }
        int64_t ob0 = g * p.rm, oh = w0 + r * step;
        int rm = (int)min64(p.rm, p.mb - ob0);
        const float *pf = NULL;
        int64_t pf_n = 0;
        if (p.prefetch && g + 1 < p.groups) {
            int64_t nl = glines * min64(p.rm, p.mb - ob0 - p.rm), l0 = nl * r / rows;
            pf = w + (ob0 + p.rm) * p.tmpl.ws_mb + l0 * 16;
            pf_n = nl * (r + 1) / rows - l0;
        }
        conv_row(&p, x, w, b, z, y, n, ob0, rm, oh, (int)min64(step, w1 - oh), 0, d->ow, 0, p.cb,
                 pf, pf_n);
    }
}
