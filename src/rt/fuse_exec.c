/* fuse_exec.c - depth-first fused execution of F-Blocks at run: each
 * worker's loop over the strips of a fused run, as fuse.c planned them.
 * See fuse.h for the rules. */
#include <string.h>
#include <time.h>

#include "rt/fuse.h"
#include "rt/fuse_state.h"
#include "rt/pool.h"

/* ---- run ------------------------------------------------------------------------ */

typedef struct {
    fuse_run *r;
    pz_barrier *bar;
    int mp;
    int profile;             /* worker 0 times each layer's rows (and barrier) */
} run_job;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Layer j's output for worker w: its window (bands: worker w's own), or the
 * full-size buffer (bands: private copies for w > 0). */
static void *out_ptr(const run_job *job, int w, int j)
{
    const fuse_run *r = job->r;
    if (r->L[j].win) return r->wbuf[(size_t)(r->nwork > 1 ? w : 0) * (size_t)r->count + (size_t)j];
    if (r->split == PZ_SPLIT_BANDS && w > 0 && j + 1 < r->count)
        return r->priv[(size_t)(w - 1) * (size_t)r->count + (size_t)j];
    return r->L[j].l->out[0]->data;
}

/* Rows [r0, r1) of layer j for worker w (its buffers), the kernel's share
 * ith of nth; wb[]: the windows' first rows. */
static void compute(const run_job *job, int w, int j, int64_t r0, int64_t r1, int ith, int nth,
                    const int64_t *wb)
{
    const fuse_run *r = job->r;
    const fuse_layer *f = &r->L[j];
    const pz_layer *l = f->l;
    const void *in[FUSE_MAX_IN] = {0};
    for (int i = 0; i < l->n_in; i++) in[i] = l->in[i] ? l->in[i]->data : NULL;
    for (int i = 0; i < f->nsrc; i++) in[f->src[i].slot] = out_ptr(job, w, f->src[i].from);
    if (!f->conv_win && !l->row_scratch_bytes) {
        l->op->run_rows(l, in, out_ptr(job, w, j), r0, r1, ith, nth);
        return;
    }
    /* the kernel's share ith takes slice ith of the scratch; with bands
     * worker w is share 0 of 1 and takes slice w */
    void *scratch = r->scratch ? r->scratch + (r->split == PZ_SPLIT_BANDS ? (size_t)w : 0) *
                                                  r->scratch_w
                               : NULL;
    /* a window is only ever input 0 of a layer with run_window (pick_windows) */
    pz_rowwin xw = {0, f->in_h}, yw = {0, f->oh};
    if (f->nsrc && f->src[0].slot == 0 && r->L[f->src[0].from].win)
        xw = (pz_rowwin){wb[f->src[0].from], r->L[f->src[0].from].wrows};
    if (f->win) yw = (pz_rowwin){wb[j], f->wrows};
    l->op->run_window(l, in, xw, out_ptr(job, w, j), yw, r0, r1, scratch, ith, nth);
}

/* Before layer j computes [c0, c1) of a strip that reads its rows from
 * rlo: makes its window (first row wb[j]; INT64_MIN before the first strip)
 * hold [min(rlo, c0), c1). When it does not, the window moves down to
 * start at that row, or to end at the last row (a window never passes it:
 * conv.c counts the rows past a window as padding), and the rows still
 * read, [rlo, c0), move with it. Returns whether rows moved. Worker ith of
 * nth moves its share of the planes. */
static bool slide(const fuse_layer *f, float *buf, int64_t *wb, int64_t c0, int64_t c1,
                  int64_t rlo, int ith, int nth)
{
    int64_t lo = rlo < c0 ? rlo : c0, base = *wb;
    if (c1 <= base + f->wrows && lo >= base) return false;
    int64_t nb = lo < f->oh - f->wrows ? lo : f->oh - f->wrows;
    PZ_RT_ASSERT(c1 - nb <= f->wrows && nb <= lo && (base == INT64_MIN || lo >= base));
    *wb = nb;
    if (base == INT64_MIN || c0 <= lo || nb == base) return false;
    int64_t p0, p1, rf = f->row_floats, ps = f->wrows * rf;
    pz_split(f->planes, ith, nth, &p0, &p1);
    for (int64_t p = p0; p < p1; p++)
        memmove(buf + p * ps + (lo - nb) * rf, buf + p * ps + (lo - base) * rf,
                (size_t)((c0 - lo) * rf) * sizeof(float));
    return true;
}

static void run_task(void *ctx, int ith, int nth)
{
    const run_job *job = ctx;
    const fuse_run *r = job->r;
    int conv = 0;
    for (int j = 0; j < r->count; j++) {
        const pz_layer *l = r->L[j].l;
        for (int c = 0; c < l->n_convs; c++, conv++) {
            const pz_layout_conv *cv = &l->convs[c];
            pz_layout_convert(cv->isa, cv->src->dtype, cv->src->dims, cv->from, cv->to, cv->src->data,
                              cv->view.data, ith, nth);
            if (cv->sync && nth > 1) pz_barrier_wait(job->bar, nth);
        }
    }
    if (conv && nth > 1) pz_barrier_wait(job->bar, nth);

    int64_t nlo[64], nhi[64], done[64], c0[64], c1[64], rlo[64], wb[64];
    PZ_RT_ASSERT(r->count <= 64);
    const fuse_layer *last = &r->L[r->count - 1];
    bool bands = r->split == PZ_SPLIT_BANDS;
    /* bands: this worker's band, each kernel call on one worker; channels:
     * the whole rows, each call split over the nth workers */
    int64_t b0 = bands ? r->band[ith] : 0, b1 = bands ? r->band[ith + 1] : last->oh;
    if (b1 <= b0) return;
    /* bands: worker w also computes its owned rows of each intermediate read
     * after the run (copied into the arena at the end) */
    int mpw = bands ? nth : 1, wi = bands ? ith : 0;
    pz_fuse_need_rows(r, wi, mpw, b0, b1, b0, b1, nlo, nhi);
    bool exported = false;
    for (int j = 0; j + 1 < r->count; j++) exported |= bands && r->L[j].exported;
    for (int j = 0; j < r->count; j++) {
        done[j] = nlo[j];
        wb[j] = INT64_MIN;
    }
    for (int64_t t = b0; t < b1;) {
        int64_t te = t + r->strip > b1 ? b1 : t + r->strip;
        pz_fuse_strip_plan(r, wi, mpw, b0, b1, te, done, c0, c1, rlo);
        for (int j = 0; j < r->count; j++) {
            if (c1[j] <= c0[j]) continue;
            uint64_t t0 = job->profile && ith == 0 ? now_ns() : 0;
            if (bands) {
                if (r->L[j].win) slide(&r->L[j], out_ptr(job, ith, j), &wb[j], c0[j], c1[j],
                                       rlo[j], 0, 1);
                compute(job, ith, j, c0[j], c1[j], 0, 1, wb);
            } else {
                /* the rows moved must be in place before any worker writes
                 * over where they were */
                if (r->L[j].win && slide(&r->L[j], out_ptr(job, 0, j), &wb[j], c0[j], c1[j],
                                         rlo[j], ith, nth) && nth > 1)
                    pz_barrier_wait(job->bar, nth);
                compute(job, 0, j, c0[j], c1[j], ith, nth, wb);
                if (nth > 1) pz_barrier_wait(job->bar, nth);
            }
            if (t0) r->L[j].l->ns += now_ns() - t0;
        }
        t = te;
    }
    if (!exported || nth == 1) return;
    /* worker w > 0 copies its owned rows of each exported intermediate from
     * its private copy into the arena's (worker 0 computed its own there; the
     * owned rows partition the layer's rows; after the barrier nobody reads
     * or writes those buffers but this copy) */
    pz_barrier_wait(job->bar, nth);
    if (ith == 0) return;
    for (int j = 0; j + 1 < r->count; j++) {
        const fuse_layer *f = &r->L[j];
        int64_t o0 = pz_fuse_own_cut(f, ith, nth), o1 = pz_fuse_own_cut(f, ith + 1, nth);
        if (!f->exported || o1 <= o0) continue;
        PZ_RT_ASSERT(done[j] >= o1 && nlo[j] <= o0);
        const int64_t *yd = f->l->out[0]->dims, planes = yd[0] * ((yd[1] + 15) / 16);
        const int64_t row = yd[3] * 16 * (int64_t)pz_dtype_size(f->l->out[0]->dtype);   /* bytes */
        const char *src = out_ptr(job, ith, j);
        char *dst = f->l->out[0]->data;
        for (int64_t pl = 0; pl < planes; pl++)
            memcpy(dst + (pl * yd[2] + o0) * row, src + (pl * yd[2] + o0) * row,
                   (size_t)((o1 - o0) * row));
    }
}

void pz_fuse_block_run(pz_fuse_block *fb, pz_layer *layers, pz_pool *pool, pz_barrier *bar,
                       void (*single)(void *ctx, int layer), void *ctx, int profile)
{
    for (int s = 0; s < fb->nseg; s++) {
        if (fb->seg[s].run < 0) {
            single(ctx, fb->seg[s].layer);
            continue;
        }
        fuse_run *r = &fb->runs[fb->seg[s].run];
        uint64_t t0 = profile ? now_ns() : 0;
        for (int j = 0; j < r->count && profile; j++) layers[r->first + j].ns = 0;
        run_job job = {r, bar, fb->mp, profile};
        if (fb->mp <= 1) run_task(&job, 0, 1);
        else pz_pool_run(pool, fb->mp, run_task, &job);
        if (profile) {
            r->ns = now_ns() - t0;
        }
    }
}
