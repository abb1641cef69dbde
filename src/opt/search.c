/* search.c - the measured strategies.
 *
 * Both time candidate blocks on this machine and then search exactly over
 * the table of measured block costs:
 *
 *   oracle  DLFusion V.3's reduced brute force, widened so that it bounds
 *           every other strategy: dp's MPs (opt_oracle_mps); blocks of one
 *           layer, of all the layers, of 2 to 8 layers at every offset
 *           (dp's space), and of multiples of 4 layers at the multiples of
 *           4 (V.3's; the last block takes what is left). Every such block
 *           is timed (in that order, within the time budget; the one-layer
 *           blocks always), the space is enumerated on those times
 *           (opt_enumerate), and the best few partitions, the best one at
 *           each single MP, the DP optima of one-layer and of up-to-8-layer
 *           blocks, the schedules of the strategies that need no measuring
 *           (opt_oracle_seeds: none, fixed-mp at each MP, fuse-all, best's
 *           uniform blocks and, with a profile, dynamic-mp,
 *           fusion-fixed-mp, dlfusion:paper and dlfusion) and those given
 *           (bench: every other strategy's, dp's and best's included) are
 *           then timed end to end, interleaved; the fastest measured wins,
 *           after paired rounds against the runner-up (when close) and
 *           against fixed-mp's schedule (fastest() says how). A DLFusion
 *           V.3 oracle of blocks of 4 and more was beaten by fixed-mp: it
 *           never tried one-layer blocks on all the cores.
 *   dp      ours: blocks of 1 to max_block layers (default 8), MP from
 *           opt_oracle_mps ({1,2,3,4,6,8,12,16,24,32} below the core count,
 *           and the core count), exact dynamic program over contiguous
 *           partitions (opt_dp): O(n * max_block) block costs, from
 *           max_block * (max_block + 1) / 2 builds per MP; then the optimum
 *           and the next best partitions on the same times (verify, default
 *           4) are timed end to end and the fastest
 *           is kept, as for oracle.
 *
 * How blocks are timed: a net is built with every block of one size s at one
 * MP, shifted by an offset o (a first block of o layers, then blocks of s,
 * then what is left); the runtime's profiler gives each block's time in the
 * same run. The offsets 0, align, 2*align, ... < s give every block of size
 * s that starts on the alignment. The nets of one offset at the different
 * MPs run interleaved, `repeat` rounds, so that the MPs are compared under
 * the same machine load. */
#include <string.h>

#include "../util/progress.h"
#include "opt_internal.h"

typedef struct {
    int n, n_mp;
    int mp[16];
    double *t;          /* [(start * (n + 1) + size) * n_mp + j]: ms, NAN = not timed */
} btable;

static double *cell(btable *b, int start, int size, int j)
{
    return &b->t[((size_t)start * (size_t)(b->n + 1) + (size_t)size) * (size_t)b->n_mp + (size_t)j];
}

/* The least time of a block over the MPs timed (opt_block_cost_fn). */
static double table_cost(void *ctx, int start, int size, int *mp)
{
    btable *b = ctx;
    double best = INFINITY;
    for (int j = 0; j < b->n_mp; j++) {
        double t = *cell(b, start, size, j);
        if (!isnan(t) && t < best) best = t, *mp = b->mp[j];
    }
    return best;
}

/* The time of a block at one MP only (ctx: a one_mp). */
typedef struct {
    btable *b;
    int j;
} one_mp;

static double table_cost_at(void *ctx, int start, int size, int *mp)
{
    one_mp *c = ctx;
    double t = *cell(c->b, start, size, c->j);
    *mp = c->b->mp[c->j];
    return isnan(t) ? INFINITY : t;
}

/* Times every block of size s that starts at a multiple of align, at every
 * MP of the table: per offset, one schedule per MP, run interleaved (so the
 * MPs are compared under the same load). Returns builds done, -1 on
 * failure. */
static int time_size(lab_meter *mt, btable *b, int s, int align, int repeat, pz_err *err)
{
    int n = b->n, builds = 0, nm = b->n_mp;
    int *sizes = pz_xmalloc((size_t)(n + 1) * sizeof(int)), *mps = pz_xmalloc((size_t)nm * (n + 1) * sizeof(int));
    double *blk = pz_xmalloc((size_t)nm * (n + 1) * sizeof(double));
    const int *sz[16], *mp[16];
    int nbs[16];
    double med[16], *bm[16];
    for (int o = 0; o < s && o < n; o += align) {
        int nb = 0;
        if (o > 0) sizes[nb++] = o;
        int p = o;
        for (; p + s <= n; p += s) sizes[nb++] = s;
        if (p < n) sizes[nb++] = n - p;
        for (int j = 0; j < nm; j++) {
            for (int i = 0; i < nb; i++) mps[j * (n + 1) + i] = b->mp[j];
            sz[j] = sizes, mp[j] = mps + j * (n + 1), nbs[j] = nb, bm[j] = blk + j * (n + 1);
        }
        if (lab_meter_interleaved(mt, nm, sz, mp, nbs, repeat, med, bm, err)) {
            builds = -1;
            break;
        }
        builds += nm;
        pz_progress_step(nm);
        for (int j = 0; j < nm; j++)
            for (int i = 0, q = 0; i < nb; q += sizes[i], i++)
                if (!isnan(bm[j][i])) *cell(b, q, sizes[i], j) = bm[j][i];
    }
    free(sizes);
    free(mps);
    free(blk);
    return builds;
}

static int planned_builds(const int *size_list, const int *align, int n_sizes, int n, int n_mp)
{
    int total = 0;
    for (int i = 0; i < n_sizes; i++) {
        int s = size_list[i], offs = 0;
        for (int o = 0; o < s && o < n; o += align[i]) offs++;
        total += offs * n_mp;
    }
    return total;
}

/* Times the sizes in size_list (each at the offsets that are multiples of
 * its align) at every MP; the first size is always done in full, the
 * others while the budget lasts. Returns the last size timed in full, -1
 * on failure. */
static int time_blocks(const char *who, lab_meter *mt, btable *b, const int *size_list,
                       const int *align, int n_sizes, const opt_search_opts *o, pz_err *err)
{
    int n = b->n, done = 0, plan = planned_builds(size_list, align, n_sizes, n, b->n_mp);
    double t0 = util_now_s();
    int largest = 0;
    char what[48];
    snprintf(what, sizeof what, "%s: block timings", who);
    pz_progress_begin(what, plan);   /* a unit is one schedule timed (lab_meter) */
    for (int i = 0; i < n_sizes; i++) {
        if (i > 0 && util_now_s() - t0 > o->budget_s) {
            if (!o->quiet)
                pz_progress_note( "%s: time budget of %.0f s reached: blocks of up to %d layers "
                        "timed\n", who, o->budget_s, largest);
            break;
        }
        if (!o->quiet)
            pz_progress_note("%s: timing blocks of %d layers at MP %d..%d (builds %d of %d, %.0f s)\n",
                    who, size_list[i], b->mp[0], b->mp[b->n_mp - 1], done + 1, plan, util_now_s() - t0);
        int k = time_size(mt, b, size_list[i], align[i], o->repeat, err);
        if (k < 0) {
            pz_progress_end();
            return -1;
        }
        done += k;
        largest = size_list[i];
    }
    pz_progress_end();
    return largest;
}

static void btable_init(btable *b, int n, const int *mp_list, int n_list, int cores)
{
    b->n = n;
    b->n_mp = 0;
    for (int i = 0; i < n_list && b->n_mp < 16; i++)
        if (mp_list[i] <= cores) b->mp[b->n_mp++] = mp_list[i];
    size_t cells = (size_t)n * (size_t)(n + 1) * (size_t)b->n_mp;
    b->t = pz_xmalloc((cells ? cells : 1) * sizeof(double));
    for (size_t i = 0; i < cells; i++) b->t[i] = NAN;
}

/* The most schedules timed end to end at the end of a search. */
enum { MAX_CAND = 96 };
/* The oracle's seeds: the given schedules (opt_oracle_add_given),
 * fixed-mp at each of at most 11 MPs, fuse-all, best's 8 uniform
 * schedules, 4 of the profile (opt_oracle_seeds), and the 2 DP optima on
 * its table; after at most 16 kept partitions they all fit. */
enum { ORACLE_SEEDS_MAX = OPT_ORACLE_GIVEN_MAX + 11 + 1 + 8 + 4 + 2 };
_Static_assert(16 + ORACLE_SEEDS_MAX <= MAX_CAND, "the oracle's seeds may be dropped");

/* Times the candidates end to end, interleaved, and returns the index of
 * the fastest (0 when there is one, -1 on failure). More than 6: all of
 * them 3 rounds first, then the (at most 6) within 5% of the fastest again,
 * max(5, repeat) rounds. Then paired rounds (max(7, repeat)) of that
 * fastest against the runner-up when it is within OPT_PAIRED_WITHIN, and
 * against `anchor` (fixed-mp's schedule; -1: none): a challenger replaces
 * it when the median of the per-round ratios is below 1 (the lowest
 * wins), so that neither one slow round under a passing load nor a
 * schedule a baseline beats picks the oracle's answer. */
static int fastest(lab_meter *mt, const opt_candidate *cand, int nc, int anchor,
                   const opt_search_opts *o, pz_err *err)
{
    if (nc <= 1) return 0;
    const int *sz[MAX_CAND], *mp[MAX_CAND];
    int nbs[MAX_CAND], idx[MAX_CAND], best = 0, ni = nc;
    double med[MAX_CAND];
    for (int i = 0; i < nc; i++) idx[i] = i;
    if (nc > 6) {
        for (int i = 0; i < nc; i++) sz[i] = cand[i].sizes, mp[i] = cand[i].mps, nbs[i] = cand[i].n_blocks;
        if (lab_meter_interleaved(mt, nc, sz, mp, nbs, 3, med, NULL, err)) return -1;
        for (int i = 1; i < nc; i++)   /* idx by time, fastest first */
            for (int j = i; j > 0 && med[idx[j]] < med[idx[j - 1]]; j--) {
                int t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t;
            }
        ni = 1;
        while (ni < 6 && ni < nc && med[idx[ni]] <= 1.05 * med[idx[0]]) ni++;
    }
    int second = -1;
    if (ni > 1) {
        for (int i = 0; i < ni; i++) sz[i] = cand[idx[i]].sizes, mp[i] = cand[idx[i]].mps, nbs[i] = cand[idx[i]].n_blocks;
        if (lab_meter_interleaved(mt, ni, sz, mp, nbs, o->repeat < 5 ? 5 : o->repeat, med, NULL, err))
            return -1;
        for (int i = 1; i < ni; i++)
            if (med[i] < med[best]) best = i;
        for (int i = 0; i < ni; i++)
            if (i != best && (second < 0 || med[i] < med[second])) second = i;
        if (second >= 0 && med[second] > (1 + OPT_PAIRED_WITHIN) * med[best]) second = -1;
    }
    /* the paired stage: [0] the fastest, then the challengers */
    int pc[3] = {idx[best]}, np = 1;
    if (second >= 0) pc[np++] = idx[second];
    if (anchor >= 0 && anchor != pc[0] && (np < 2 || anchor != pc[1])) pc[np++] = anchor;
    if (np == 1) return pc[0];
    enum { PAIRED_MAX = 64 };
    int rounds = o->repeat < 7 ? 7 : o->repeat > PAIRED_MAX ? PAIRED_MAX : o->repeat;
    const int *psz[3], *pmp[3];
    int pnb[3];
    for (int i = 0; i < np; i++) psz[i] = cand[pc[i]].sizes, pmp[i] = cand[pc[i]].mps, pnb[i] = cand[pc[i]].n_blocks;
    double pmed[3], runs[3 * PAIRED_MAX], lowest = 1;
    if (lab_meter_interleaved_runs(mt, np, psz, pmp, pnb, rounds, pmed, NULL, runs, err)) return -1;
    int pick = pc[0];
    for (int i = 1; i < np; i++) {
        double r = opt_paired_ratio(runs, runs + (size_t)i * rounds, rounds);
        if (r < lowest) lowest = r, pick = pc[i];
    }
    return pick;
}

double opt_paired_ratio(const double *a, const double *b, int rounds)
{
    if (rounds < 1) return 1;
    double *r = pz_xmalloc((size_t)rounds * sizeof(double));
    for (int k = 0; k < rounds; k++) r[k] = b[k] / a[k];
    double m = util_median(r, rounds);
    free(r);
    return m;
}

static int same_candidate(const opt_candidate *a, const opt_candidate *b)
{
    if (a->n_blocks != b->n_blocks) return 0;
    for (int i = 0; i < a->n_blocks; i++)
        if (a->sizes[i] != b->sizes[i] || a->mps[i] != b->mps[i]) return 0;
    return 1;
}

/* Appends the schedule (sizes, mps, nb) to cand[0..*total) unless it is
 * there already or the list is full (cap). */
static void add_unique(opt_candidate *cand, int *total, int cap, const int *sizes, const int *mps, int nb)
{
    opt_candidate c = {nb, (int *)sizes, (int *)mps, 0};
    if (nb < 1 || *total >= cap) return;
    for (int i = 0; i < *total; i++)
        if (same_candidate(&cand[i], &c)) return;
    cand[*total].n_blocks = nb;
    memcpy(cand[*total].sizes, sizes, (size_t)nb * sizeof(int));
    memcpy(cand[*total].mps, mps, (size_t)nb * sizeof(int));
    (*total)++;
}

/* The k best partitions on the table (blocks of multiples of unit or of at
 * most `small` layers, up to max_size layers), for each MP the best
 * partition with that MP in every block (a safeguard: block times measured
 * in one context can mislead, and then the end-to-end timing still has the
 * uniform schedules to fall back on), and the extra candidates (the
 * oracle's seeds), timed end to end; the fastest goes to sizes/mps. Returns
 * its block count, 0 on failure (err set). */
static int verify_best(const char *who, lab_meter *mt, btable *b, int unit, int small, int max_size,
                       const opt_search_opts *o, const opt_candidate *extra, int n_extra,
                       int *sizes, int *mps, pz_err *err)
{
    int n = b->n, nb = 0, k = o->verify < 1 ? 1 : o->verify > 16 ? 16 : o->verify;
    opt_candidate cand[MAX_CAND + 1];
    for (int i = 0; i <= MAX_CAND; i++) {
        cand[i].sizes = pz_xmalloc((size_t)n * sizeof(int));
        cand[i].mps = pz_xmalloc((size_t)n * sizeof(int));
    }
    double visited = 0;
    int kept = opt_enumerate(n, unit, small, max_size, table_cost, b, cand, k, &visited);
    if (kept == 0 && n_extra == 0) {
        pz_fail(err, PZ_ERR_INTERNAL, "%s: no partition could be timed", who);
    } else {
        if (!o->quiet && kept)
            pz_progress_note("%s: %.0f partial partitions visited; the best on the block times: "
                    "%d blocks, %.3f ms\n", who, visited, cand[0].n_blocks, cand[0].cost);
        /* the seeds first, so that every other strategy's schedule is
         * timed end to end: see ORACLE_SEEDS_MAX */
        int total = kept;
        for (int i = 0; i < n_extra; i++)
            add_unique(cand, &total, MAX_CAND, extra[i].sizes, extra[i].mps, extra[i].n_blocks);
        if (o->verify > 1)
            for (int j = 0; j < b->n_mp; j++) {
                one_mp ctx = {b, j};
                opt_candidate *c = &cand[MAX_CAND];   /* scratch */
                if (opt_enumerate(n, unit, small, max_size, table_cost_at, &ctx, c, 1, NULL) == 1)
                    add_unique(cand, &total, MAX_CAND, c->sizes, c->mps, c->n_blocks);
            }
        if (!o->quiet && total > 1)
            pz_progress_note("%s: timing %d candidates end to end (the best %d, the best at each "
                    "single MP%s)\n", who, total, kept, n_extra ? ", the other strategies' schedules" : "");
        /* fixed-mp's schedule, every layer alone on all the cores, where
         * it is a candidate: the baseline the answer must not lose to */
        int anchor = -1, cores = b->mp[b->n_mp - 1];
        for (int i = 0; i < total && anchor < 0; i++) {
            int all = cand[i].n_blocks == n;
            for (int j = 0; j < cand[i].n_blocks && all; j++) all = cand[i].sizes[j] == 1 && cand[i].mps[j] == cores;
            if (all) anchor = i;
        }
        int best = fastest(mt, cand, total, anchor, o, err);
        if (best >= 0) {
            nb = cand[best].n_blocks;
            memcpy(sizes, cand[best].sizes, (size_t)nb * sizeof(int));
            memcpy(mps, cand[best].mps, (size_t)nb * sizeof(int));
        }
    }
    for (int i = 0; i <= MAX_CAND; i++) free(cand[i].sizes), free(cand[i].mps);
    return nb;
}

static int mps_below(const int *list, size_t len, int cores, int *mps)
{
    int k = 0;
    for (size_t i = 0; i < len; i++)
        if (list[i] < cores) mps[k++] = list[i];
    mps[k++] = cores < 1 ? 1 : cores;
    return k;
}

/* dp's MPs: the oracle's space holds every MP dp may pick */
int opt_oracle_mps(int cores, int *mps)
{
    static const int MPS[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    return mps_below(MPS, PZ_ARRAY_LEN(MPS), cores, mps);
}

int opt_alg1_mps(int cores, int *mps)
{
    static const int MPS[] = {1, 2, 4, 8, 12, 16, 24, 32};
    return mps_below(MPS, PZ_ARRAY_LEN(MPS), cores, mps);
}

int opt_oracle_add_given(opt_candidate *out, int k, int cap, const opt_schedule *given, int n_given,
                         int n, int cores)
{
    for (int i = 0; i < n_given; i++) {
        const opt_schedule *g = &given[i];
        int sum = 0, legal = g->n_blocks >= 1 && g->n_blocks <= n && g->sizes && g->mps;
        for (int b = 0; legal && b < g->n_blocks; b++) {
            legal = g->sizes[b] >= 1 && g->mps[b] >= 1 && g->mps[b] <= cores;
            sum += g->sizes[b];
        }
        if (legal && sum == n) add_unique(out, &k, cap, g->sizes, g->mps, g->n_blocks);
    }
    return k;
}

int opt_oracle_plan(int n, int max_size, int small, int *sizes, int *align)
{
    if (max_size < 1 || max_size > n) max_size = n;
    if (small > max_size) small = max_size;
    int k = 0;
    sizes[k] = 1, align[k++] = 1;
    if (max_size == n && n > 1) sizes[k] = n, align[k++] = n;   /* offset 0 only */
    for (int s = 2; s <= small && s < n; s++) sizes[k] = s, align[k++] = 1;
    for (int s = 4; s <= max_size && s < n; s += 4)
        if (s > small) sizes[k] = s, align[k++] = 4;
    return k;
}

int opt_oracle_seeds(const pz_layer_features *f, int n, int cores, const pz_machine *mc,
                     const lab_profile_tables *t, opt_candidate *out, int cap)
{
    int k = 0, nb, mpl[16], n_mp = opt_oracle_mps(cores, mpl);
    int *s = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int)), *m = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int));
    for (int j = 0; j < n_mp; j++) {   /* none, fixed-mp:N, fixed-mp */
        nb = opt_each_layer(n, mpl[j], s, m);
        add_unique(out, &k, cap, s, m, nb);
    }
    nb = opt_offset_blocks(n, n, 0, cores, s, m);   /* fuse-all */
    add_unique(out, &k, cap, s, m, nb);
    for (int size = 2; size <= 16; size = size < 4 ? size + 1 : size * 2)   /* best's */
        for (int off = 0; off < (size < 4 ? size : 1) && size < n; off++) {
            nb = opt_offset_blocks(n, size, off, cores, s, m);
            add_unique(out, &k, cap, s, m, nb);
        }
    if (mc) {
        nb = opt_dynamic_mp(f, n, mc, s, m);
        add_unique(out, &k, cap, s, m, nb);
        nb = opt_alg1(f, n, mc, cores, s, m);   /* fusion-fixed-mp */
        add_unique(out, &k, cap, s, m, nb);
        nb = opt_alg1(f, n, mc, 0, s, m);       /* dlfusion:paper */
        add_unique(out, &k, cap, s, m, nb);
        nb = opt_dlfusion(f, n, mc, t, s, m);   /* dlfusion */
        add_unique(out, &k, cap, s, m, nb);
    }
    free(s);
    free(m);
    return k;
}

int opt_oracle(ir_model *m, const pz_layer_features *f, int cores, const pz_machine *mc,
               const lab_profile_tables *t, const opt_schedule *given, int n_given,
               const opt_search_opts *o, int *sizes, int *mps, pz_err *err)
{
    int n = m->n_layers;
    if (n == 0) return 0;
    int mpl[16], n_mp = opt_oracle_mps(cores, mpl);
    btable b;
    btable_init(&b, n, mpl, n_mp, cores);
    int max_size = o->max_block > 0 && o->max_block < n ? o->max_block : n;
    int small = max_size < OPT_ORACLE_SMALL ? max_size : OPT_ORACLE_SMALL;
    int *list = pz_xmalloc((size_t)(n + 2) * sizeof(int)), *align = pz_xmalloc((size_t)(n + 2) * sizeof(int));
    int n_sizes = opt_oracle_plan(n, max_size, small, list, align);
    opt_candidate seeds[MAX_CAND];
    for (int i = 0; i < MAX_CAND; i++) {
        seeds[i].sizes = pz_xmalloc((size_t)n * sizeof(int));
        seeds[i].mps = pz_xmalloc((size_t)n * sizeof(int));
    }
    /* the given schedules first (bench's other strategies: the space
     * contains each), two slots for the DP optima on the table last */
    if (n_given > OPT_ORACLE_GIVEN_MAX) n_given = OPT_ORACLE_GIVEN_MAX;
    int n_seeds = opt_oracle_add_given(seeds, 0, MAX_CAND - 2, given, n_given, n, cores);
    if (!o->quiet && n_given > 0) {
        char names[512] = "";
        size_t at = 0;
        for (int i = 0; i < n_given && at < sizeof names; i++)
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "",
                                   given[i].who ? given[i].who : "?");
        pz_progress_note("oracle: seeded with the schedules of %s (%d distinct)\n", names, n_seeds);
    }
    n_seeds += opt_oracle_seeds(f, n, cores, mc, t, seeds + n_seeds, MAX_CAND - 2 - n_seeds);
    lab_meter *mt = lab_meter_new(m, cores, o->repeat);
    int nb = 0;
    if (time_blocks("oracle", mt, &b, list, align, n_sizes, o, err) > 0) {
        /* dp's optimum (blocks of up to `small` layers) and the best
         * schedule of one-layer blocks, each at its fastest MP */
        double total;
        int *s = seeds[n_seeds].sizes, *p = seeds[n_seeds].mps, k;
        if ((k = opt_dp(n, small, table_cost, &b, s, p, &total)) > 0) seeds[n_seeds++].n_blocks = k;
        s = seeds[n_seeds].sizes, p = seeds[n_seeds].mps;
        if ((k = opt_dp(n, 1, table_cost, &b, s, p, &total)) > 0) seeds[n_seeds++].n_blocks = k;
        nb = verify_best("oracle", mt, &b, 4, small, max_size, o, seeds, n_seeds, sizes, mps, err);
    }
    if (nb > 0 && !o->quiet) pz_progress_note("oracle: %d builds in all\n", lab_meter_builds(mt));
    lab_meter_free(mt);
    for (int i = 0; i < MAX_CAND; i++) free(seeds[i].sizes), free(seeds[i].mps);
    free(list);
    free(align);
    free(b.t);
    return nb;
}

int opt_dp_measured(ir_model *m, const pz_layer_features *f, int cores,
                    const opt_search_opts *o, int *sizes, int *mps, pz_err *err)
{
    (void)f;
    int n = m->n_layers;
    if (n == 0) return 0;
    int list_mp[16], n_list = opt_oracle_mps(cores, list_mp);
    btable b;
    btable_init(&b, n, list_mp, n_list, cores);
    int max_block = o->max_block > 0 ? o->max_block : 8;
    if (max_block > n) max_block = n;
    int *list = pz_xmalloc((size_t)(max_block + 1) * sizeof(int));
    for (int s = 1; s <= max_block; s++) list[s - 1] = s;
    lab_meter *mt = lab_meter_new(m, cores, o->repeat);
    int nb = 0;
    int *ones = pz_xmalloc((size_t)(max_block + 1) * sizeof(int));
    for (int s = 0; s < max_block; s++) ones[s] = 1;
    int largest = time_blocks("dp", mt, &b, list, ones, max_block, o, err);
    free(ones);
    if (largest > 0) {
        double total;
        nb = opt_dp(n, largest, table_cost, &b, sizes, mps, &total);
        if (!o->quiet)
            pz_progress_note("dp: %d builds; the optimum on the block times: %d blocks, %.3f ms\n",
                    lab_meter_builds(mt), nb, total);
        if (!nb) pz_fail(err, PZ_ERR_INTERNAL, "dp: no partition could be timed");
        /* Block times are noisy and not exactly additive: the optimum and
         * the next best partitions on the same times (found exactly, best
         * first; the first is the DP's optimum) are timed end to end, and
         * the fastest is kept. */
        if (nb > 0 && o->verify > 1)
            nb = verify_best("dp", mt, &b, 1, 0, largest, o, NULL, 0, sizes, mps, err);
    }
    lab_meter_free(mt);
    free(list);
    free(b.t);
    return nb;
}

int opt_beats_oracle(const double *s, const double *oracle, int rounds, double *ratio, double *noise)
{
    if (ratio) *ratio = NAN;
    if (noise) *noise = NAN;
    if (rounds < 1) return 0;
    double *r = pz_xmalloc((size_t)rounds * sizeof *r), *dev = pz_xmalloc((size_t)rounds * sizeof *dev);
    int n = 0;
    for (int k = 0; k < rounds; k++)
        if (s[k] > 0 && oracle[k] > 0) r[n++] = s[k] / oracle[k];
    double q = util_median(r, n);   /* sorts r */
    for (int k = 0; k < n; k++) dev[k] = fabs(r[k] - q);
    double mad = util_median(dev, n), nz = n ? 1.4826 * mad * 2 / sqrt(n) : NAN;
    if (!(nz > OPT_BENCH_NOISE)) nz = OPT_BENCH_NOISE;
    free(r);
    free(dev);
    if (ratio) *ratio = q;
    if (noise) *noise = nz;
    return n > 0 && q < 1 - nz;
}
