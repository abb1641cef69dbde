/* conv16c_plan.c - the plan of the fast NCHW16c convolution's driver: the
 * register tile, the cuts of a row and their passes, border tiles, and the
 * k-chunked order (see conv16c_drive.c for what the driver does with them). */
#include <math.h>

#include "rt/kernels/conv/conv16c_plan.h"

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

int pz_conv16c_rows_paired(const pz_conv16c_desc *d, const pz_conv16c_ukset *ks)
{
    return ks && ks->pick2 && d->ow <= ks->rw2max && d->oh >= 2;
}

int pz_conv16c_row_step(const pz_conv16c_desc *d, pz_isa isa)
{
    const pz_conv16c_ukset *ks = pz_fast_kernels_for(isa)->conv16c;
    return pz_conv16c_rows_paired(d, ks) ? 2 : 1;
}

void pz_conv16c_plan_init(pz_conv16c_plan *p, const pz_conv16c_desc *d, const pz_conv16c_ukset *ks)
{
    p->d = d;
    p->ks = ks;
    p->mb = cdiv(d->m, 16);
    p->cb = cdiv(d->c, d->cblk);
    p->cbk = d->cblk;
    int64_t ps = (int64_t)d->sw * d->cblk;
    p->psk = ps == 16 ? 0 : ps == 32 ? 1 : ps == 6 ? 2 : 3;

    /* the tile with the least estimated time over all output blocks; on a
     * tie the first in this order (wider tiles reuse weights more). A 1x1
     * conv with at most 64 input channels (MobileNetV2's expands) takes
     * 9x3 before 14x2: each group reads the input pixels again, and at so
     * few q steps a tile that covers 3 blocks per pixel pays; from 96
     * channels on it does not (bench/RESULTS.md, 'conv16c: tile order'). */
    static const int order_wide[4] = {2, 4, 3, 1}, order_short[4] = {3, 2, 4, 1};
    const int *order = d->kh == 1 && d->kw == 1 && d->c <= 64 ? order_short : order_wide;
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
    p->rows2 = 0;
    /* rows of at most rw2max pixels: two rows per tile, so each weight
     * load feeds twice the pixels */
    if (pz_conv16c_rows_paired(d, ks)) {
        p->rows2 = 1;
        p->rm = p->mb >= 2 ? 2 : 1;
        p->rwmax = ks->rw2max;
    }
    p->groups = cdiv(p->mb, p->rm);
    p->flat = 0;
}

/* The passes of the segment [s0, s1) (see pass_plan). */
static void plan_passes(const pz_conv16c_desc *d, pz_conv16c_passes *pp, int64_t s0, int64_t s1)
{
    int64_t *ra = pp->ra, *rb = pp->rb;
    int first = -1, last = -1, used = 0;
    pp->s0 = s0;
    pp->s1 = s1;
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
    pp->first = first;
    pp->last = last;
}

/* The ISA has border tiles of rw pixels for every group width of the layer. */
static int have_border_tiles(const pz_conv16c_plan *p, int64_t rw, int lb, int rb)
{
    const int rms[2] = {p->rm, (int)(p->mb % p->rm)};
    for (int i = 0; i < 2; i++) {
        if (rms[i] == 0) continue;
        if (!p->ks->pickb(p->psk, rms[i], (int)rw, 1, lb, rb)) return 0;
        if (p->rows2 && !p->ks->pickb(p->psk, rms[i], (int)rw, 2, lb, rb)) return 0;
    }
    return 1;
}

/* A 3-wide kernel (pad 1 on the left, the right or both) over rows that
 * fit one register tile (7x7, 13x13, 14x14 outputs: the narrow stages of
 * ResNet, VGG, AlexNet): such a row has no interior, and by passes each
 * kernel column would reload and store the tile (and the scalar fix-ups do
 * the rest), well below the same conv without padding. The set's border
 * tiles (pickb) run every tap in one call instead, tap 0 skipping the first
 * pixel and tap 2 the last; their q steps go kw by kw, so each skip is a
 * constant of the unrolled code (bench/RESULTS.md, 'conv16c: border
 * tiles'). Sets p->border when the ISA has tiles for every group width the
 * layer takes (NULL: passes). */
static void plan_border(pz_conv16c_plan *p)
{
    const pz_conv16c_desc *d = p->d;
    const int64_t OW = d->ow;
    p->border = p->lb = p->rb = 0;
    if (!p->ks->pickb || d->kw != 3 || d->dw != 1 || OW > p->rwmax || OW < 2) return;
    int64_t lo[3], hi[3];
    for (int kw = 0; kw < 3; kw++) pz_conv_valid_range(d->w, OW, d->sw, d->pl, kw, &lo[kw], &hi[kw]);
    if (!(lo[0] <= 1 && lo[1] == 0 && lo[2] == 0 && hi[0] == OW && hi[1] == OW &&
          hi[2] >= OW - 1 && (lo[0] || hi[2] < OW)))
        return;
    const int lb = (int)lo[0], rb = (int)(OW - hi[2]);
    if (!have_border_tiles(p, OW, lb, rb)) return;
    p->border = 1;
    p->lb = lb;
    p->rb = rb;
}

/* Rows wider than a tile under a 3-wide kernel with pad 1: the left border
 * segment [0, L) is one tile whose first pixel misses tap 0, the right one
 * [R, OW) one whose last pixel misses tap 2. Each goes as one border tile
 * (edge[s]) instead of a pass per kernel column, where the ISA has one
 * (bench/RESULTS.md, 'conv16c: border tiles'). */
static void plan_edges(pz_conv16c_plan *p)
{
    const pz_conv16c_desc *d = p->d;
    const int64_t OW = d->ow, L = p->L, R = p->R;
    p->edge[0] = p->edge[1] = 0;
    if (!p->ks->pickb || d->kw != 3 || d->dw != 1 || p->rows2 || p->border || L > R) return;
    int64_t lo[3], hi[3], lmax = 0, hmin = OW;
    for (int kw = 0; kw < 3; kw++) {
        pz_conv_valid_range(d->w, OW, d->sw, d->pl, kw, &lo[kw], &hi[kw]);
        lmax = max64(lmax, lo[kw]);
        hmin = min64(hmin, hi[kw]);
    }
    if (L > 0 && L <= p->rwmax && lo[0] == 1 && lo[1] == 0 && lo[2] == 0 && hmin >= L &&
        have_border_tiles(p, L, 1, 0))
        p->edge[0] = 1;
    if (R < OW && OW - R <= p->rwmax && hi[2] == OW - 1 && hi[0] == OW && hi[1] == OW &&
        lmax <= R && have_border_tiles(p, OW - R, 0, 1))
        p->edge[1] = 1;
}

/* What every row shares: the strides and epilogue of the micro-kernel
 * arguments, and the cuts L and R of the row (see the top of the file). */
void pz_conv16c_plan_rows(pz_conv16c_plan *p)
{
    const pz_conv16c_desc *d = p->d;
    const int64_t H = d->h, W = d->w, OW = d->ow, cbk = p->cbk;
    pz_conv16c_uk_args *a = &p->tmpl;
    *a = (pz_conv16c_uk_args){0};
    a->xs_cb = H * W * cbk;
    a->xs_h = d->dh * W * cbk;
    a->ws_cb = (int64_t)d->kh * d->kw * cbk * 16;
    a->ws_mb = p->cb * a->ws_cb;
    a->ws_h = d->kw * cbk * 16;
    a->ys_mb = d->oh * OW * 16;
    a->ps = d->sw * cbk;
    a->xs_row = d->sh * W * cbk;
    a->ys_row = OW * 16;
    a->ncb = (int)p->cb;
    a->act = d->act.kind != PZ_ACT_NONE && pz_act_is_clamp(d->act.kind);   /* else conv_row's */
    a->lo = d->act.kind == PZ_ACT_CLIP ? d->act.lo : 0.0f;
    a->hi = d->act.kind == PZ_ACT_CLIP ? d->act.hi : INFINITY;
    if (a->act && a->hi == INFINITY) a->act = 2;
    a->tail_r = -1;

    /* pixels [ol, orr) have every tap inside the input */
    int64_t ol = min64(OW, max64(0, pz_ceil_div(d->pl, d->sw)));
    int64_t orr = pz_floor_div(W - 1 + d->pl - (int64_t)(d->kw - 1) * d->dw, d->sw) + 1;
    orr = min64(OW, max64(0, orr));
    p->L = p->R = OW;
    if ((d->dw == 1 || d->kw == 1) && ol < orr) {
        p->L = ol > 0 ? max64(ol, p->rwmax) : 0;
        p->R = orr < OW ? min64(orr, OW - p->rwmax) : OW;
        /* a row with both borders, two tiles wide or a little less: the two
         * border segments meet in the middle, each one tile for the ISA's
         * border tiles (AVX-512's 14 + 14 on 28-wide rows). Narrower tiles
         * lose more than the passes cost (bench/RESULTS.md, 'conv16c:
         * border tiles'). */
        if (p->L >= p->R && ol > 0 && orr < OW && OW <= 2 * p->rwmax &&
            OW / 2 >= p->rwmax - 1 && ol <= OW / 2 && orr >= OW / 2)
            p->L = p->R = OW / 2 + OW % 2;
        else if (p->L >= p->R)
            p->L = p->R = OW;
    }
    plan_border(p);
    if (p->border) {
        p->L = 0;
        p->R = OW;
    }
    plan_edges(p);
    plan_passes(d, &p->seg[0], 0, p->L);
    plan_passes(d, &p->seg[1], p->R, OW);
}


/* The k-chunked order. A group's weights that do not fit L1 stream from
 * L2 into every unit (row, or flat run of tiles) of the group, and into the
 * first from memory: in a net the layers before have evicted them. Even
 * with the prefetch of the next group's weights (pz_conv16c_drive) such a
 * layer runs well below its time from L3; probably the units' misses to L2
 * and the prefetches queue for the same fill buffers (a guess: the host
 * measured had no PMU to tell). In this order each unit runs a chunk of
 * input blocks (about PZ_CONV16C_CHUNK_BYTES of the group's weights, which
 * stay in L1), its partial sums stored in y and reloaded for the next
 * chunk; the units of a group take the chunks in turn, so each weight
 * comes once from beyond L1, and each unit prefetches its share of the
 * next chunk (chunk_pf).
 * A tile of all taps sums in the same order as without chunks (cb
 * outermost); the border passes of a chunk go before the next chunk's.
 * For weights of PZ_CONV16C_L2_WEIGHTS on (smaller ones gain nothing),
 * except 1x1 convs with a stride (ResNet's downsamples), which chunked run
 * slower from L3 and gain nothing cold (bench/RESULTS.md, 'conv16c:
 * k-chunked order'). d->kc > 0 sets the chunk (the tests). */
void pz_conv16c_plan_chunks(pz_conv16c_plan *p, int64_t wfloats)
{
    const pz_conv16c_desc *d = p->d;
    p->kc = p->cb;
    if (d->kc > 0) {
        p->kc = min64(d->kc, p->cb);
    } else if (wfloats * (int64_t)sizeof(float) >= PZ_CONV16C_L2_WEIGHTS &&
               !(d->kh == 1 && d->kw == 1 && !p->flat)) {
        /* the group's weights in chunks of about CHUNK_BYTES, balanced */
        int64_t gbytes = p->rm * p->tmpl.ws_mb * (int64_t)sizeof(float);
        int64_t nch = min64(p->cb, (gbytes + PZ_CONV16C_CHUNK_BYTES / 2) / PZ_CONV16C_CHUNK_BYTES);
        if (nch > 1) p->kc = cdiv(p->cb, nch);
    }
    if (p->kc < p->cb) p->tmpl.pf_stride = p->tmpl.ws_mb;
}

/* The orders that take the groups fastest (the image outweighs the
 * weights) run whole groups, no chunks. */
void pz_conv16c_no_chunks(pz_conv16c_plan *p)
{
    p->kc = p->cb;
    p->tmpl.pf_stride = 0;
}
