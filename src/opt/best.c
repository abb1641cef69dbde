/* best.c - "best", our strategy for deployment: cheap, measured, and never
 * worse than the plain schedules it starts from.
 *
 *   1. the algorithm of each conv, measured (opt_measure_algos: Winograd or
 *      direct, whichever runs the layer faster here);
 *   2. candidate schedules, all without fusion unless Algorithm 1 fuses:
 *        fixed    every layer on all cores;
 *        per-layer each layer on 1 or on all cores, whichever its measured
 *                 time favours (the runtime's profiler, both nets timed
 *                 alternately, medians);
 *        dlfusion Algorithm 1 following the target profile (when one
 *                 loads);
 *        fused    all cores, blocks of 4, 8 and 16 layers (the oracle's
 *                 granularity, DLFusion V.3) and one block of all layers:
 *                 where fusion pays across the whole net, as on ResNet-50,
 *                 whose oracle schedule of a few large fused blocks beat
 *                 every layer-by-layer schedule (bench/RESULTS.md, 'best:
 *                 fused candidates');
 *        uniform  all cores, blocks of 2 and 3 layers at every offset:
 *                 the small blocks a net's structure makes (MobileNetV2's
 *                 expand, depthwise and project convs are layers 3k..3k+2);
 *   3. the candidates timed end to end, interleaved (round robin over
 *      `rounds`), each block's time kept too;
 *   4. "stitched": the fastest partition made of the measured blocks of all
 *      candidates (opt_stitch), timed against the fastest candidate,
 *      Algorithm 1's and per-layer when it is none of them;
 *   5. the fastest kept (Algorithm 1's unless another is more than
 *      OPT_BEST_MARGIN faster: opt_best_pick).
 * With one core every block has MP 1: "fixed" is "per-layer", and Algorithm
 * 1 is no favourite (its margin was measured at two cores, where it sets
 * MPs); the fusion still counts. At 1 thread, MobileNetV2's stitched
 * schedule fuses only the first expand, depthwise and project convs (a 4.8 MB
 * expanded tensor that otherwise goes out of L2). */
#include <math.h>
#include <string.h>

#include "../util/progress.h"
#include "opt_internal.h"

/* Blocks of `size` layers (the last one shorter) on mp cores. */
static int uniform_blocks(int n, int size, int mp, int *sizes, int *mps)
{
    int nb = 0;
    for (int i = 0; i < n; i += size, nb++) {
        sizes[nb] = n - i < size ? n - i : size;
        mps[nb] = mp;
    }
    return nb;
}

int opt_best_pick(const double *med, int nc, int alg1)
{
    if (nc < 1) return -1;
    int best = 0;
    for (int k = 1; k < nc; k++)   /* a NaN time (none measured) never wins */
        if (!isnan(med[k]) && (isnan(med[best]) || med[k] < med[best])) best = k;
    /* candidates kept by less than OPT_BEST_MARGIN over Algorithm 1's ran
     * slower than it in the strategies bench (bench/RESULTS.md, 'best:
     * rounds and margin') */
    if (alg1 >= 0 && alg1 < nc && isfinite(med[alg1]) &&
        !(med[best] * (1 + OPT_BEST_MARGIN) < med[alg1]))
        best = alg1;
    return best;
}

int opt_offset_blocks(int n, int size, int offset, int mp, int *sizes, int *mps)
{
    int nb = 0;
    if (offset > 0 && offset < n) {
        sizes[nb] = offset;
        mps[nb++] = mp;
    } else {
        offset = 0;
    }
    return nb + uniform_blocks(n - offset, size, mp, sizes + nb, mps + nb);
}

/* opt_stitch's cost of a block (opt_block_cost_fn): the least measured
 * time of the candidates' blocks [start, start + size), INFINITY if none. */
typedef struct {
    int nc;
    const int *const *sizes, *const *mps;
    const double *const *block_ms;
    const int *at;   /* [k * n + start]: candidate k's block starting there, or -1 */
    int n;
} stitch_ctx;

static double stitch_cost(void *ctx, int start, int size, int *mp)
{
    const stitch_ctx *c = ctx;
    double best = INFINITY;
    for (int k = 0; k < c->nc; k++) {
        int b = c->at[(size_t)k * c->n + start];
        if (b < 0 || c->sizes[k][b] != size) continue;
        double ms = c->block_ms[k][b];
        if (isfinite(ms) && ms >= 0 && ms < best) {   /* a tie: the earlier candidate */
            best = ms;
            *mp = c->mps[k][b];
        }
    }
    return best;
}

int opt_stitch(int n, int nc, const int *const *sizes, const int *const *mps, const int *nb,
               const double *const *block_ms, int *out_sizes, int *out_mps)
{
    if (n < 1) return -1;
    int *at = pz_xmalloc((size_t)(nc ? nc : 1) * (size_t)n * sizeof *at);
    for (int k = 0; k < nc; k++) {
        for (int i = 0; i < n; i++) at[(size_t)k * n + i] = -1;
        for (int b = 0, first = 0; b < nb[k] && first < n; first += sizes[k][b++])
            if (sizes[k][b] >= 1 && first + sizes[k][b] <= n) at[(size_t)k * n + first] = b;
            else break;
    }
    stitch_ctx c = {nc, sizes, mps, block_ms, at, n};
    int cnt = opt_dp(n, n, stitch_cost, &c, out_sizes, out_mps, NULL);
    free(at);
    return cnt > 0 ? cnt : -1;
}

/* Whether two schedules are the same partition with the same MPs. */
static int same_schedule(const int *sa, const int *ma, int na, const int *sb, const int *mb, int nbb)
{
    if (na != nbb) return 0;
    for (int i = 0; i < na; i++)
        if (sa[i] != sb[i] || ma[i] != mb[i]) return 0;
    return 1;
}

/* The candidates: at most 3 + 5 uniform + 3 fused + fuse-all. */
enum { MAX_CAND = 16 };

int opt_best(ir_model *m, const pz_layer_features *f, int cores, const pz_machine *mc,
             const lab_profile_tables *t, int have_profile, const opt_search_opts *o, int *sizes,
             int *mps, pz_err *err)
{
    int n = m->n_layers;
    if (opt_measure_algos(m, cores, 3, o->quiet, err) < 0) return -1;
    if (n <= 1) return opt_each_layer(n, 1, sizes, mps);
    pz_progress_begin("best", 0);   /* its timings nest under it */

    char names[MAX_CAND][24];
    int *cs[MAX_CAND], *cm[MAX_CAND], nb[MAX_CAND], nc = 0, alg1 = -1;
    double *bt[MAX_CAND];
    for (int k = 0; k < MAX_CAND; k++) {
        cs[k] = pz_xmalloc((size_t)n * sizeof(int));
        cm[k] = pz_xmalloc((size_t)n * sizeof(int));
        bt[k] = pz_xmalloc((size_t)n * sizeof(double));
    }
    int rc = 0;
    /* fixed: all cores (at one core the same as per-layer's) */
    if (cores > 1) {
        snprintf(names[nc], sizeof names[nc], "fixed");
        nb[nc] = opt_each_layer(n, cores, cs[nc], cm[nc]);
        nc++;
    }
    /* per-layer: each layer's time at MP 1 and at all cores */
    const int per_layer = nc;
    snprintf(names[nc], sizeof names[nc], "per-layer");
    nb[nc] = opt_each_layer(n, 1, cs[nc], cm[nc]);
    if (cores > 1) {
        int *one = pz_xmalloc((size_t)n * sizeof(int)), *all = pz_xmalloc((size_t)n * sizeof(int));
        int *s1 = pz_xmalloc((size_t)n * sizeof(int));
        opt_each_layer(n, 1, s1, one);
        opt_each_layer(n, cores, s1, all);
        const int *sz[2] = {s1, s1}, *mp[2] = {one, all};
        int nbs[2] = {n, n};
        double med[2], *t2[2] = {pz_xmalloc((size_t)n * sizeof(double)), pz_xmalloc((size_t)n * sizeof(double))};
        lab_meter *mt = lab_meter_new(m, cores, 1);
        if (lab_meter_interleaved(mt, 2, sz, mp, nbs, 5, med, t2, err)) rc = -1;
        lab_meter_free(mt);
        for (int i = 0; i < n && !rc; i++) cm[nc][i] = t2[0][i] <= t2[1][i] ? 1 : cores;
        free(t2[0]);
        free(t2[1]);
        free(one);
        free(all);
        free(s1);
    }
    nc++;
    if (!rc && have_profile) {
        snprintf(names[nc], sizeof names[nc], "dlfusion");
        nb[nc] = opt_dlfusion(f, n, mc, t, cs[nc], cm[nc]);
        /* at one core Algorithm 1 sets no MP: no favourite (see the top) */
        if (cores > 1) alg1 = nc;
        nc++;
    }
    /* blocks of 2 and 3 at every offset, then 4, 8 and 16: only sizes that
     * make more than one block (a size >= n is fuse-all). Each candidate
     * costs 2 * rounds runs of the net: VGG-16 at 2 cores tunes in 64 s,
     * 30 s with the seven candidates before stitching */
    for (int size = 2; size <= 4 && !rc; size++)
        for (int off = 0; off < (size < 4 ? size : 1) && size < n; off++) {
            snprintf(names[nc], sizeof names[nc], off ? "fused-%d+%d" : "fused-%d", size, off);
            nb[nc] = opt_offset_blocks(n, size, off, cores, cs[nc], cm[nc]);
            nc++;
        }
    static const int fused_size[] = {8, 16};
    for (int i = 0; i < 2 && !rc; i++)
        if (fused_size[i] < n) {
            snprintf(names[nc], sizeof names[nc], "fused-%d", fused_size[i]);
            nb[nc] = uniform_blocks(n, fused_size[i], cores, cs[nc], cm[nc]);
            nc++;
        }
    if (!rc) {
        snprintf(names[nc], sizeof names[nc], "fuse-all");
        nb[nc] = uniform_blocks(n, n, cores, cs[nc], cm[nc]);
        nc++;
    }
    int best = 0;
    double med[MAX_CAND];
    /* 15 rounds: the candidates are often within 2% of each other. More
     * rounds do not remove every miss (bench/RESULTS.md, 'best: rounds and
     * margin'). */
    const int rounds = o->repeat > 5 ? o->repeat : 15;
    if (!rc) {
        const int *sz[MAX_CAND], *mp[MAX_CAND];
        for (int k = 0; k < nc; k++) sz[k] = cs[k], mp[k] = cm[k];
        lab_meter *mt = lab_meter_new(m, cores, 1);
        if (lab_meter_interleaved(mt, nc, sz, mp, nb, rounds, med, bt, err)) rc = -1;
        lab_meter_free(mt);
        for (int k = 0; k < nc && !rc; k++)
            if (!o->quiet) pz_progress_note("best: candidate %-11s %8.3f ms\n", names[k], med[k]);
        if (!rc) best = opt_best_pick(med, nc, alg1);
    }
    /* stitched: the measured blocks of every candidate, the fastest
     * partition; timed against the kept candidate (and Algorithm 1's) */
    if (!rc) {
        int *ss = pz_xmalloc((size_t)n * sizeof(int)), *sm = pz_xmalloc((size_t)n * sizeof(int));
        int ns = opt_stitch(n, nc, (const int *const *)cs, (const int *const *)cm, nb,
                            (const double *const *)bt, ss, sm);
        int fresh = ns > 0;
        for (int k = 0; k < nc && fresh; k++)
            if (same_schedule(ss, sm, ns, cs[k], cm[k], nb[k])) fresh = 0;
        if (fresh) {
            /* the final round: [kept, Algorithm 1 and per-layer (when
             * others), stitched] */
            int idx[4], nf = 0, a1 = -1;
            idx[nf++] = best;
            if (alg1 >= 0 && alg1 != best) idx[nf++] = alg1;
            if (per_layer != best) idx[nf++] = per_layer;
            const int *sz[4], *mp[4];
            int nbf[4];
            for (int i = 0; i < nf; i++) {
                sz[i] = cs[idx[i]], mp[i] = cm[idx[i]], nbf[i] = nb[idx[i]];
                if (idx[i] == alg1) a1 = i;
            }
            sz[nf] = ss, mp[nf] = sm, nbf[nf] = ns;
            double fm[4];
            lab_meter *mt = lab_meter_new(m, cores, 1);
            if (lab_meter_interleaved(mt, nf + 1, sz, mp, nbf, rounds, fm, NULL, err)) rc = -1;
            lab_meter_free(mt);
            if (!rc) {
                if (!o->quiet) {
                    pz_progress_note("best: stitched %d blocks from the candidates' blocks\n", ns);
                    for (int i = 0; i < nf; i++)
                        pz_progress_note("best: again     %-11s %8.3f ms\n", names[idx[i]], fm[i]);
                    pz_progress_note("best: candidate %-11s %8.3f ms\n", "stitched", fm[nf]);
                }
                int pick = opt_best_pick(fm, nf + 1, a1);
                if (pick == nf) {
                    /* the stitched schedule replaces the kept candidate */
                    memcpy(cs[best], ss, (size_t)ns * sizeof(int));
                    memcpy(cm[best], sm, (size_t)ns * sizeof(int));
                    nb[best] = ns;
                    snprintf(names[best], sizeof names[best], "stitched");
                } else {
                    best = idx[pick];
                }
            }
        }
        free(ss);
        free(sm);
    }
    int out = -1;
    if (!rc) {
        memcpy(sizes, cs[best], (size_t)nb[best] * sizeof(int));
        memcpy(mps, cm[best], (size_t)nb[best] * sizeof(int));
        out = nb[best];
        if (!o->quiet) pz_progress_note("best: kept %s\n", names[best]);
    }
    pz_progress_end();
    for (int k = 0; k < MAX_CAND; k++) {
        free(cs[k]);
        free(cm[k]);
        free(bt[k]);
    }
    return out;
}
