/* fuse.c - depth-first fused execution of F-Blocks: the plan (segments, row
 * windows, strips, bands, redundant MACs) made at compile and the workers'
 * loops at run (fuse_exec.c). See fuse.h for the rules. */
#include <string.h>
#include <time.h>

#include "rt/fuse.h"
#include "rt/fuse_state.h"
#include "rt/kernels/kernels.h"
#include "rt/rows.h"

/* ---- row arithmetic (rt/rows.h: the compiler's halo count asks the same) ---- */

/* Input rows [lo, hi) that output rows [a, b) read through layer f's window
 * (k, s, p, d) of its input 0 of in_h rows; empty gives [0, 0). */
static void window_rows(const fuse_layer *f, int64_t a, int64_t b, int64_t *lo, int64_t *hi)
{
    pz_rows_window(a, b, f->k, f->s, f->p, f->d, f->in_h, lo, hi);
}

/* Where worker w's share of a layer's rows starts, of mp workers: the rows
 * in units of its granularity g, balanced (pz_rows_band). The band of the
 * last layer and the owned rows of an exported one. */
int64_t pz_fuse_own_cut(const fuse_layer *f, int w, int mp)
{
    int64_t lo, hi;
    pz_rows_band(f->oh, f->g, w, mp, &lo, &hi);
    return lo;
}

/* The rows each layer of run r must have for the last layer's rows [a, b)
 * and for the share of the owned rows of each exported layer that the strip
 * [b0, b) has reached (worker w of mp owns a 1/mp part of them; band [b0,
 * b1) of the last layer; channels and MP 1: w 0 of 1): going backwards, the
 * hull of its own target and what its consumers in the run need. */
void pz_fuse_need_rows(const fuse_run *r, int w, int mp, int64_t b0, int64_t b1, int64_t a,
                       int64_t b, int64_t *lo, int64_t *hi)
{
    int last = r->count - 1;
    for (int j = 0; j < r->count; j++) {
        lo[j] = hi[j] = 0;
        const fuse_layer *f = &r->L[j];
        if (f->exported) {
            int64_t c0 = pz_fuse_own_cut(f, w, mp), c1 = pz_fuse_own_cut(f, w + 1, mp);
            lo[j] = c0;
            hi[j] = b >= b1 ? c1 : c0 + (c1 - c0) * (b - b0) / (b1 > b0 ? b1 - b0 : 1);
        }
    }
    lo[last] = a;
    hi[last] = b;
    for (int j = last; j >= 0; j--) {
        const fuse_layer *f = &r->L[j];
        pz_rows_align(f->g, f->oh, &lo[j], &hi[j]);
        if (hi[j] <= lo[j]) continue;
        for (int i = 0; i < f->nsrc; i++) {
            int64_t il = lo[j], ih = hi[j];
            if (f->src[i].window) window_rows(f, lo[j], hi[j], &il, &ih);
            if (ih <= il) continue;
            int p = f->src[i].from;
            if (hi[p] <= lo[p]) {
                lo[p] = il;
                hi[p] = ih;
            } else {
                if (il < lo[p]) lo[p] = il;
                if (ih > hi[p]) hi[p] = ih;
            }
            if (hi[p] <= lo[p]) lo[p] = hi[p] = 0;
        }
    }
}

/* One strip: the last layer's rows up to te of a worker (bands: worker w of
 * mpw with band [b0, b1); channels: w 0 of 1, band all rows). Layer j
 * computes rows [c0[j], c1[j]) (c0 = done[j]; done[j] becomes c1[j]) and
 * rlo[j] is the first of its rows the strip's layers read (INT64_MAX when
 * none). Layers read after the run keep pace with the last one (their
 * share of the rows grows with the strips; the last strip completes them).
 * Both the plan (window sizes) and the workers use it. */
void pz_fuse_strip_plan(const fuse_run *r, int w, int mpw, int64_t b0, int64_t b1, int64_t te,
                        int64_t *done, int64_t *c0, int64_t *c1, int64_t *rlo)
{
    int64_t slo[64], shi[64];
    pz_fuse_need_rows(r, w, mpw, b0, b1, b0, te, slo, shi);
    for (int j = 0; j < r->count; j++) {
        int64_t h = shi[j];
        c0[j] = done[j];
        c1[j] = h > done[j] ? h : done[j];
        done[j] = c1[j];
        rlo[j] = INT64_MAX;
    }
    for (int k = 0; k < r->count; k++) {
        const fuse_layer *f = &r->L[k];
        if (c1[k] <= c0[k]) continue;
        for (int i = 0; i < f->nsrc; i++) {
            int64_t il = c0[k], ih = c1[k];
            if (f->src[i].window) window_rows(f, c0[k], c1[k], &il, &ih);
            int p = f->src[i].from;
            if (ih > il && il < rlo[p]) rlo[p] = il;
        }
    }
}

/* ---- plan --------------------------------------------------------------------- */

static int in_run(const pz_layer *layers, int first, int count, int tensor)
{
    for (int j = 0; j < count; j++)
        for (int o = 0; o < layers[first + j].n_out; o++)
            if (layers[first + j].out_id[o] == tensor && tensor >= 0) return j;
    return -1;
}

/* The kind's row rule (op_desc.h) for layer l as configured: 1 and m filled
 * when it is row-local, else 0. The optimizer's halo count asks the same
 * rule (opt/halo.c), so a window, a weight and a row-local verdict are one
 * fact for both. */
static int layer_rows(const pz_layer *l, pz_row_map *m)
{
    memset(m, 0, sizeof *m);
    if (!l->op->row_rule || l->n_in > PZ_MAX_IO || l->n_out > PZ_MAX_IO) return 0;
    pz_row_tensor in[PZ_MAX_IO], out[PZ_MAX_IO];
    for (int i = 0; i < l->n_in; i++)
        in[i] = (pz_row_tensor){l->in[i] ? l->in[i]->rank : 0, l->in[i] ? l->in[i]->dims : NULL,
                                !l->in[i], l->in_cblk[i] != 0, 0};
    for (int i = 0; i < l->n_out; i++)
        out[i] = (pz_row_tensor){l->out[i] ? l->out[i]->rank : 0, l->out[i] ? l->out[i]->dims : NULL, 0, 1,
                                 l->out[i] && l->out[i]->dtype == PZ_BOOL};
    pz_row_layer rl = {l->params, l->n_in, l->n_out, in, out, (int)l->isa};
    return l->op->row_rule(&rl, m);
}

/* Whether layer li may join the run [first, li) (fuse.h: row-local): its
 * kernel computes row ranges, its row rule says row-local, and each input
 * from the run is read row by row or through a window. */
static bool row_local(pz_layer *layers, int first, int li)
{
    const pz_layer *l = &layers[li];
    /* a dynamic region's shapes are the run's, fused runs planned ones */
    if (l->dyn || !l->op->rows || !l->op->run_rows || l->n_out != 1 || l->out_id[0] < 0 ||
        (l->scratch_bytes && !l->scratch_run_only) || l->n_in > FUSE_MAX_IN ||
        (l->row_scratch_bytes && !l->op->run_window))
        return false;
    const pz_tensor *y = l->out[0];
    /* float32, or the bytes of int8 layers (no windows: those are float) */
    if (y->rank != 4 || (y->dtype != PZ_F32 && pz_dtype_size(y->dtype) != 1) ||
        l->out_cblk[0] != 16 || l->op->rows(l) < 1)
        return false;
    pz_row_map m;
    if (!layer_rows(l, &m)) return false;
    for (int c = 0; c < l->n_convs; c++)
        if (in_run(layers, first, li - first, l->in_id[l->convs[c].slot]) >= 0) return false;
    /* inputs from the run: NCHW16c, and the rows the mapping expects */
    for (int i = 0; i < l->n_in; i++) {
        if (l->in_id[i] < 0 || in_run(layers, first, li - first, l->in_id[i]) < 0) continue;
        /* a view of another shape moves elements across rows */
        if (i >= 32 || (l->in_reshaped & (1u << i))) return false;
        const pz_tensor *x = l->in[i];
        if (x->rank != 4 || l->in_cblk[i] != 16) return false;
        /* a weight made in the run, or rows at an offset: not run here */
        if (m.in[i].kind != PZ_ROWS_SAME && m.in[i].kind != PZ_ROWS_WINDOW) return false;
        if (m.in[i].kind == PZ_ROWS_SAME && (x->dims[2] != y->dims[2] || x->dims[0] != y->dims[0]))
            return false;
    }
    return true;
}

static void fill_layer(fuse_layer *f, pz_layer *layers, int first, int li)
{
    pz_layer *l = &layers[li];
    const pz_tensor *y = l->out[0];
    pz_row_map m;
    layer_rows(l, &m);   /* row_local() took the layer: row-local */
    memset(f, 0, sizeof *f);
    f->l = l;
    f->g = l->op->rows(l);
    f->oh = y->dims[2];
    f->bytes = pz_layout_bytes(y, 16);
    f->row_bytes = f->oh ? f->bytes / (size_t)f->oh : 0;
    f->planes = y->dims[0] * ((y->dims[1] + 15) / 16);
    f->row_floats = y->dims[3] * 16;
    f->k = 1, f->s = 1, f->p = 0, f->d = 1;
    f->in_h = l->in[0] && l->in[0]->rank == 4 ? l->in[0]->dims[2] : f->oh;
    f->macs_row = m.macs_row;
    for (int i = 0; i < l->n_in; i++) {
        const pz_row_input *ri = &m.in[i];
        if (ri->kind != PZ_ROWS_WINDOW) continue;
        /* one window per layer (fuse_layer keeps one): input 0's */
        f->k = ri->kernel, f->s = ri->stride, f->p = ri->pad, f->d = ri->dilation;
        break;
    }
    for (int i = 0; i < l->n_in; i++) {
        int from = l->in_id[i] >= 0 ? in_run(layers, first, li - first, l->in_id[i]) : -1;
        if (from < 0) continue;
        f->src[f->nsrc++] = (fuse_src){i, from, m.in[i].kind == PZ_ROWS_WINDOW};
    }
}

/* Rows of the last layer per strip. Strips cost something each (a kernel
 * call per layer, and with channels a barrier per layer) and pay only where
 * a layer's input and output would not stay in L2 from one layer to the
 * next. So: when every layer of the run fits FUSE_L2_BUDGET whole (its
 * input, its output and its weights), one strip of all rows (the run goes
 * layer by layer, and with bands each worker keeps to its band without a
 * barrier). Otherwise the most rows whose rows (all layers, scaled to the
 * last layer's rows, with the scratch a Winograd layer's rows fill: its
 * transformed input is 2.25x its input rows) and input halos fit
 * FUSE_L2_BUDGET. */
static int64_t auto_strip(const fuse_run *r)
{
    const fuse_layer *last = &r->L[r->count - 1];
    double per_row = 0, halo = 0, widest = 0;
    for (int j = 0; j < r->count; j++) {
        const fuse_layer *f = &r->L[j];
        per_row += (double)(f->row_bytes + f->l->row_scratch_row) * (double)f->oh /
                   (double)(last->oh ? last->oh : 1);
        if (f->k > 1 && f->nsrc && f->in_h)
            halo += (double)((f->k - 1) * f->d) * (double)r->L[f->src[0].from].row_bytes;
        double whole = (double)f->bytes;
        for (int i = 0; i < f->l->n_in; i++)
            if (f->l->in[i])
                whole += (double)pz_numel(f->l->in[i]) * (double)pz_dtype_size(f->l->in[i]->dtype);
        if (whole > widest) widest = whole;
    }
    if (widest <= (double)FUSE_L2_BUDGET) return last->oh;
    double room = (double)FUSE_L2_BUDGET - halo;
    int64_t s = per_row > 0 && room > per_row ? (int64_t)(room / per_row) : 1;
    if (s < 1) s = 1;
    /* each strip reads a Winograd layer's transformed weights U again
     * (4x the direct ones; 37.7 MB for VGG's 512 -> 512): strips pay only
     * while those re-reads cost less than the round trip through memory of
     * the intermediates they keep in cache (write and read). VGG-16's pool +
     * conv5_1 took 15.4 ms in strips of 8 rows, 7.7 unfused. */
    double reread = 0, kept = 0;
    for (int j = 0; j < r->count; j++) {
        reread += (double)r->L[j].l->row_weight_bytes;
        if (j + 1 < r->count) kept += 2.0 * (double)r->L[j].bytes;
    }
    if (reread > 0) {
        double most = 1.0 + kept / reread;   /* strips worth it */
        if ((double)last->oh / (double)s > most) s = (int64_t)((double)last->oh / most) + 1;
        if (s > last->oh) s = last->oh;
    }
    /* as many strips as that takes, evened out: 7 rows in strips of 6
     * would leave a last strip of 1 row, paying a call (and with channels
     * a barrier) per layer for a seventh of the work */
    if (s < last->oh) {
        int64_t n = (last->oh + s - 1) / s;
        s = (last->oh + n - 1) / n;
    }
    return s;
}

/* Which layers keep their rows in windows: a CONV output (FAST or DW, no Z) read
 * only inside the run, and there only as the X of CONVs. Its readers then
 * need, per strip, a bounded range of its rows; the window holds that range
 * (its rows are written once, read while the strips pass over them, then
 * overwritten: the buffer stays in cache instead of streaming a full-size
 * tensor out to memory). */
static void pick_windows(fuse_run *r)
{
    /* the run options' fuse_windows = 0 (PZ_FUSE_WINDOWS=0): full-size
     * buffers (A/B). A run of one strip takes none: its windows would hold
     * every row, and a 1x1 conv that reads or writes a window loses its
     * one-long-row path. */
    bool windows = r->L[0].l->opts->fuse_windows && r->strip < r->L[r->count - 1].oh;
    for (int j = 0; j + 1 < r->count; j++) {
        fuse_layer *f = &r->L[j];
        /* (a residual Z is laid out like Y: full size) */
        int readers = 0, ok = !f->exported && f->l->op->run_window &&
                              f->l->out[0]->dtype == PZ_F32 &&
                              !(f->l->n_in > 3 && f->l->in[3]);
        for (int k = j + 1; k < r->count && ok; k++)
            for (int i = 0; i < r->L[k].nsrc; i++)
                if (r->L[k].src[i].from == j) {
                    readers++;
                    ok &= r->L[k].l->op->run_window && r->L[k].src[i].slot == 0;
                }
        f->win = ok && readers > 0 && windows;
    }
    for (int k = 0; k < r->count; k++) {
        fuse_layer *f = &r->L[k];
        f->conv_win = f->l->op->run_window && f->win;
        for (int i = 0; i < f->nsrc; i++) f->conv_win |= r->L[f->src[i].from].win;
    }
}

/* Rows of each window: the most rows of it one strip needs (rows the strip
 * computes and the earlier ones it reads again), over every strip of every
 * worker, walked as the workers will; then the buffers, one per worker
 * with bands. Returns 1 when out of memory. */
static int plan_windows(fuse_run *r, int mp)
{
    bool bands = r->split == PZ_SPLIT_BANDS;
    const fuse_layer *last = &r->L[r->count - 1];
    int64_t done[64], c0[64], c1[64], rlo[64], most[64] = {0};
    r->nwork = bands ? mp : 1;
    for (int w = 0; w < r->nwork; w++) {
        int64_t b0 = bands ? r->band[w] : 0, b1 = bands ? r->band[w + 1] : last->oh;
        if (b1 <= b0) continue;
        pz_fuse_need_rows(r, w, r->nwork, b0, b1, b0, b1, done, c1);
        for (int64_t t = b0; t < b1;) {
            int64_t te = t + r->strip > b1 ? b1 : t + r->strip;
            pz_fuse_strip_plan(r, w, r->nwork, b0, b1, te, done, c0, c1, rlo);
            for (int j = 0; j < r->count; j++) {
                int64_t lo = rlo[j] < c0[j] ? rlo[j] : c0[j];
                if (c1[j] - lo > most[j]) most[j] = c1[j] - lo;
            }
            t = te;
        }
    }
    r->wbuf = calloc((size_t)r->nwork * (size_t)r->count, sizeof *r->wbuf);
    if (!r->wbuf) return 1;
    for (int j = 0; j < r->count; j++) {
        fuse_layer *f = &r->L[j];
        if (!f->win) continue;
        f->wrows = most[j] < 2 ? 2 : most[j];
        if (f->wrows > f->oh) f->wrows = f->oh;
        size_t b = (size_t)(f->planes * f->wrows * f->row_floats) * sizeof(float);
        b = (b + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
        for (int w = 0; w < r->nwork; w++) {
            float *p = aligned_alloc(PZ_ALIGN, b ? b : PZ_ALIGN);
            if (!p) return 1;
            r->wbuf[(size_t)w * (size_t)r->count + (size_t)j] = p;
        }
    }
    return 0;
}

static int plan_run(fuse_run *r, pz_layer *layers, int n_layers, const int *last_use, int mp,
                    pz_split_mode split, int strip, char *err, size_t n)
{
    (void)n_layers;
    r->L = calloc((size_t)r->count, sizeof *r->L);
    if (!r->L) return snprintf(err, n, "out of memory"), 1;
    for (int j = 0; j < r->count; j++) fill_layer(&r->L[j], layers, r->first, r->first + j);
    fuse_layer *last = &r->L[r->count - 1];
    int64_t g = last->g;
    for (int j = 0; j < r->count; j++) r->macs += r->L[j].macs_row * r->L[j].oh;

    /* bands: one of at least g rows per worker (an empty band would skip
     * the barrier of the copies below) */
    bool bands_ok = mp > 1 && (last->oh + g - 1) / g >= mp;
    for (int j = 0; j + 1 < r->count; j++)
        r->L[j].exported = last_use[r->L[j].l->out_id[0]] >= r->first + r->count;
    r->band = calloc((size_t)mp + 1, sizeof *r->band);
    if (!r->band) return snprintf(err, n, "out of memory"), 1;
    for (int w = 0; w <= mp; w++) r->band[w] = pz_fuse_own_cut(last, w, mp);
    /* redundant MACs: per layer, the rows the workers compute minus the
     * rows of their union (rows nobody needs are not computed and do not
     * count: src/opt/halo.c counts the same) */
    int64_t red = 0;
    if (bands_ok) {
        int64_t *lo = calloc((size_t)r->count * 2 + (size_t)mp * 2 * (size_t)r->count,
                             sizeof *lo);
        if (!lo) return snprintf(err, n, "out of memory"), 1;
        int64_t *rg = lo + 2 * r->count;   /* rg[(j * mp + w) * 2 + 0/1] */
        for (int w = 0; w < mp; w++) {
            pz_fuse_need_rows(r, w, mp, r->band[w], r->band[w + 1], r->band[w], r->band[w + 1], lo,
                        lo + r->count);
            for (int j = 0; j < r->count; j++) {
                rg[((size_t)j * (size_t)mp + (size_t)w) * 2] = lo[j];
                rg[((size_t)j * (size_t)mp + (size_t)w) * 2 + 1] = lo[r->count + j];
            }
        }
        for (int j = 0; j < r->count; j++) {
            int64_t *q = rg + (size_t)j * (size_t)mp * 2, sum = 0;
            for (int w = 0; w < mp; w++) sum += q[2 * w + 1] - q[2 * w];
            red += r->L[j].macs_row * (sum - pz_rows_union(q, mp));
        }
        free(lo);
    }
    if (split == PZ_SPLIT_AUTO)
        split = bands_ok && red * 100 <= r->macs * FUSE_BANDS_MAX_PCT ? PZ_SPLIT_BANDS
                                                                       : PZ_SPLIT_CHANNELS;
    if (split == PZ_SPLIT_BANDS && !bands_ok) split = PZ_SPLIT_CHANNELS;
    if (mp == 1) split = PZ_SPLIT_CHANNELS;
    r->split = split;
    r->redundant = split == PZ_SPLIT_BANDS ? red : 0;
    r->strip = strip > 0 ? strip : auto_strip(r);
    r->strip = (r->strip + g - 1) / g * g;
    if (r->strip > last->oh) r->strip = last->oh;
    if (r->strip < 1) r->strip = 1;
    pick_windows(r);
    if (plan_windows(r, mp)) return snprintf(err, n, "out of memory: row windows"), 1;
    /* each worker's scratch for the layers whose row ranges take one
     * (Winograd): one slice per worker, reused layer after layer */
    for (int j = 0; j < r->count; j++)
        if (r->L[j].l->row_scratch_bytes > r->scratch_w) r->scratch_w = r->L[j].l->row_scratch_bytes;
    r->scratch_w = (r->scratch_w + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
    if (r->scratch_w) {
        r->scratch = aligned_alloc(PZ_ALIGN, r->scratch_w * (size_t)mp);
        if (!r->scratch) return snprintf(err, n, "out of memory: row scratch"), 1;
    }
    if (split == PZ_SPLIT_BANDS) {
        r->priv = calloc((size_t)(mp - 1) * (size_t)r->count, sizeof *r->priv);
        if (!r->priv) return snprintf(err, n, "out of memory"), 1;
        for (int w = 1; w < mp; w++)
            for (int j = 0; j + 1 < r->count; j++) {
                if (r->L[j].win) continue;
                size_t b = (r->L[j].bytes + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
                void *p = aligned_alloc(PZ_ALIGN, b ? b : PZ_ALIGN);
                if (!p) return snprintf(err, n, "out of memory: band copies"), 1;
                r->priv[(size_t)(w - 1) * (size_t)r->count + (size_t)j] = p;
            }
    }
    return 0;
}

/* Whether a run over mp > 1 cores ends before layer li (the run so far:
 * [first, li)): li reads an intermediate of the run through a window of
 * several rows (a conv or pool with a kernel taller than 1) and that
 * intermediate fits FUSE_L2_BUDGET whole. Such an intermediate gains nothing
 * from row windows or strips, while keeping li in the run costs: with
 * bands, every earlier layer recomputes the halo rows of li's window (a
 * MobileNetV2 block of five 3x3 depthwise layers at 14x14 recomputed 23% of
 * its MACs), and with channels, a barrier per layer. Cut there, li starts the
 * next run (one fork-join more) and reads the intermediate from the arena,
 * so its bands recompute nothing. Larger intermediates stay in the run: there
 * the windows keep them in L2. Only with split auto: a split the schedule
 * names holds for the whole block. */
static bool cut_before(pz_layer *layers, int first, int li, int mp, pz_split_mode split)
{
    const pz_layer *l = &layers[li];
    /* the run options' fuse_cut = 0 (PZ_FUSE_CUT=0): no cuts (A/B) */
    if (mp < 2 || split != PZ_SPLIT_AUTO || !l->opts->fuse_cut) return false;
    pz_row_map m;
    if (!layer_rows(l, &m) || m.in[0].kind != PZ_ROWS_WINDOW || m.in[0].kernel <= 1 ||
        in_run(layers, first, li - first, l->in_id[0]) < 0)
        return false;
    return pz_layout_bytes(l->in[0], 16) <= FUSE_L2_BUDGET;
}

/* Whether layer li, a window with one output row that reads several rows
 * of the run (a conv as wide as its input at a net's end), would end the
 * run [first, li). Strips are counted in the last layer's rows, so with it
 * last the run is one strip: every layer whole, one after the other, and no
 * intermediate in a row window. It runs alone instead. (A global pool is
 * not row-local by its own rule and never joins a run.) */
static bool collapses_run(pz_layer *layers, int first, int li)
{
    const pz_layer *l = &layers[li];
    pz_row_map m;
    if (!layer_rows(l, &m) || m.in[0].kind != PZ_ROWS_WINDOW || l->out[0]->rank != 4 ||
        l->out[0]->dims[2] != 1)
        return false;
    return l->in[0] && l->in[0]->rank == 4 && l->in[0]->dims[2] > 1 &&
           in_run(layers, first, li - first, l->in_id[0]) >= 0;
}

pz_fuse_block *pz_fuse_plan(pz_layer *layers, int n_layers, const int *last_use, int first,
                            int count, int mp, pz_split_mode split, int strip, char *err,
                            size_t n)
{
    pz_fuse_block *fb = calloc(1, sizeof *fb);
    if (!fb) return snprintf(err, n, "out of memory"), NULL;
    fb->first = first;
    fb->count = count;
    fb->mp = mp;
    fb->seg = calloc((size_t)count, sizeof *fb->seg);
    fb->runs = calloc((size_t)count, sizeof *fb->runs);
    if (!fb->seg || !fb->runs) {
        pz_fuse_free(fb);
        return snprintf(err, n, "out of memory"), NULL;
    }
    for (int li = first; li < first + count;) {
        int end = li;
        while (end < first + count && end - li < 64 && row_local(layers, li, end) &&
               !(end > li && (cut_before(layers, li, end, mp, split) ||
                              collapses_run(layers, li, end))))
            end++;
        if (end - li >= 2) {
            fuse_run *r = &fb->runs[fb->nruns];
            r->first = li;
            r->count = end - li;
            fb->seg[fb->nseg++] = (fuse_seg){fb->nruns++, li};
            if (plan_run(r, layers, n_layers, last_use, mp, split, strip, err, n)) {
                pz_fuse_free(fb);
                return NULL;
            }
            li = end;
        } else {
            fb->seg[fb->nseg++] = (fuse_seg){-1, li};
            li++;
        }
    }
    return fb;
}

void pz_fuse_free(pz_fuse_block *fb)
{
    if (!fb) return;
    for (int i = 0; i < fb->nruns; i++) {
        fuse_run *r = &fb->runs[i];
        if (r->priv)
            for (int k = 0; k < (fb->mp - 1) * r->count; k++) free(r->priv[k]);
        free(r->priv);
        if (r->wbuf)
            for (int k = 0; k < r->nwork * r->count; k++) free(r->wbuf[k]);
        free(r->wbuf);
        free(r->scratch);
        free(r->band);
        free(r->L);
    }
    free(fb->runs);
    free(fb->seg);
    free(fb);
}

void pz_fuse_widen(const pz_fuse_block *fb, int *first, int *last)
{
    if (!fb) return;
    for (int i = 0; i < fb->nruns; i++) {
        int a = fb->runs[i].first, b = a + fb->runs[i].count - 1;
        if (*first <= b && a <= *last) {
            if (a < *first) *first = a;
            if (b > *last) *last = b;
        }
    }
}

int pz_fuse_windowed(const pz_fuse_block *fb, int layer)
{
    if (!fb) return 0;
    for (int i = 0; i < fb->nruns; i++) {
        const fuse_run *r = &fb->runs[i];
        if (layer >= r->first && layer < r->first + r->count) return r->L[layer - r->first].win;
    }
    return 0;
}

void pz_fuse_get_info(const pz_fuse_block *fb, pz_fuse_info *info)
{
    memset(info, 0, sizeof *info);
    info->split = PZ_SPLIT_AUTO;
    if (!fb) return;
    info->runs = fb->nruns;
    for (int i = 0; i < fb->nruns; i++) {
        const fuse_run *r = &fb->runs[i];
        info->fused_layers += r->count;
        info->redundant_macs += r->redundant;
        info->macs += r->macs;
        for (int j = 0; j < r->count; j++)
            if (r->L[j].win) {
                info->windows++;
                info->window_bytes += (int64_t)sizeof(float) * r->L[j].planes *
                                      r->L[j].wrows * r->L[j].row_floats;
                info->full_bytes += (int64_t)r->L[j].bytes;
            }
        if (i == 0) {
            info->split = r->split;
            info->strip = (int)r->strip;
        }
    }
}
