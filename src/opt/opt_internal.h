/* opt_internal.h - the optimizer's pieces, shared between its files and the
 * CLI commands that drive them (tune, bench, space).
 *
 *   algo.c        the per-layer algorithm knob (direct or Winograd)
 *   best.c        "best": measured algorithms, then the fastest of a few schedules
 *   features.c    layer features of a lowered model (pz_strategy.h's struct)
 *   simple.c      none, fixed-mp, dynamic-mp, fuse-all (DLFusion Table III 1-4)
 *   alg1.c        DLFusion Algorithm 1 (dlfusion:paper, fusion-fixed-mp) and
 *                 Algorithm 1 following the profile (dlfusion)
 *   dp.c          exact search over contiguous partitions on a block-cost table
 *   search.c      the measured strategies: oracle (DLFusion V.3) and dp (ours)
 *   plugin.c      user strategies loaded with dlopen
 *   space.c       the knob-space size (Paleozoic Eq. 3)
 *
 * The measurements they use (timing schedules, the target profile) are the
 * lab's, one layer below (src/lab/lab.h).
 */
#ifndef PZ_OPT_INTERNAL_H
#define PZ_OPT_INTERNAL_H

#include <math.h>

#include "../ir/model.h"
#include "../lab/lab.h"     /* the meter and the target profile the strategies use */
#include "../lab/profile_tables.h"
#include "../util/util.h"
#include "opt.h"
#include "pz_strategy.h"

/* ---- features.c ---------------------------------------------------------- */

/* One entry per layer of m (names point into m's graph). Caller frees. */
pz_layer_features *opt_features(const ir_model *m);

/* ---- the MP model (DLFusion Eq. 5) ---------------------------------------- */

/* The MP the profile's model gives a conv/FC layer, rounded, in [1, cores]. */
int opt_mp_model(const pz_machine *mc, const pz_layer_features *f);

/* ---- strategies on features: fill sizes/mps (capacity n), return blocks --- */

int opt_each_layer(int n, int mp, int *sizes, int *mps);
/* Blocks of `size` layers from layer `offset` on (a first block of offset
 * layers before them when 0 < offset < n; the last one shorter), all on mp
 * cores (best.c). */
int opt_offset_blocks(int n, int size, int offset, int mp, int *sizes, int *mps);
int opt_dynamic_mp(const pz_layer_features *f, int n, const pz_machine *mc, int *sizes, int *mps);
/* DLFusion Algorithm 1. fixed_mp > 0: every block gets that MP instead of
 * the block's (fusion-fixed-mp). */
int opt_alg1(const pz_layer_features *f, int n, const pz_machine *mc, int fixed_mp, int *sizes,
             int *mps);
/* Algorithm 1 following the profile's measurements t (dlfusion; alg1.c
 * says how): no fused block of a chain kind the profile did not see fusing
 * pay, no MP measured slower for the layer's kind. t may be empty (no
 * fusion, the model's MPs). */
int opt_alg1_profile(const pz_layer_features *f, int n, const pz_machine *mc,
                     const lab_profile_tables *t, int *sizes, int *mps);
/* A prediction of layers [start, start + size) run as one block on mp
 * cores: any unit of time, additive over a schedule's blocks; INFINITY
 * where it cannot say. margin: how much faster than a layer alone on all
 * the cores another choice must be predicted to be taken (the prediction's
 * noise). */
typedef double (*opt_predict_fn)(void *ctx, int start, int size, int mp);
typedef struct {
    opt_predict_fn fn;
    void *ctx;
    double margin;
} opt_predictor;
/* Differences within this fraction are a profile's timing noise, not a
 * preference (dlfusion's margin, and its MP check). */
#define OPT_PREDICT_NOISE 0.05
/* Algorithm 1 following the profile (opt_alg1_profile, gated by t's fused
 * chains; t NULL: no gate, p alone judges fusion), its layers' MPs the
 * ones p predicts fastest, then each of its blocks split into the parts p
 * predicts fastest (alg1.c): never predicted slower than fixed-mp. p NULL:
 * opt_alg1_profile. */
int opt_alg1_predicted(const pz_layer_features *f, int n, const pz_machine *mc,
                       const lab_profile_tables *t, const opt_predictor *p, int *sizes, int *mps);
/* The strategy dlfusion on this machine: opt_alg1_predicted with the
 * profile's tables as the predictor (opt_profile_predict, margin
 * OPT_PREDICT_NOISE); t without layer timings at mc->cores:
 * opt_alg1_profile. */
int opt_dlfusion(const pz_layer_features *f, int n, const pz_machine *mc,
                 const lab_profile_tables *t, int *sizes, int *mps);

/* ---- predict.c: the profile as a cost model ------------------------------- */

/* The layer kind the profile times f as (depthwise, dense conv, FC). */
lab_layer_kind opt_layer_kind(const pz_layer_features *f);
/* The profile's points weighed for a layer. */
#define OPT_NEAREST 3
/* The (at most OPT_NEAREST) measured layers of f's kind nearest to it in
 * log2 channels, log2 ops and kernel, nearest first, with their distances.
 * Returns the count (0 when t is NULL). */
int opt_profile_nearest(const lab_profile_tables *t, const pz_layer_features *f,
                        const lab_layer_point **near, double *dist);
typedef struct {
    const pz_layer_features *f;
    int n;
    const lab_profile_tables *t;
} opt_profile_ctx;
/* opt_predict_fn on a opt_profile_ctx, in ms (predict.c says how). */
double opt_profile_predict(void *ctx, int start, int size, int mp);

/* Layer i's chain kind for that rule: -1 for a layer without an op count,
 * LAB_CHAIN_IR for a depthwise conv and a 1x1 conv next to one,
 * LAB_CHAIN_CONV for other convs, LAB_N_CHAIN_KINDS for FC layers. */
int opt_chain_kind(const pz_layer_features *f, int n, int i);
/* The model's MP for a conv/FC layer, replaced by the MP that the
 * profile's nearest measured layers of its kind ran fastest where they ran
 * the model's more than 5% slower on average (t NULL or empty: the
 * model's). */
int opt_mp_checked(const pz_machine *mc, const lab_profile_tables *t, const pz_layer_features *f);

/* ---- algo.c: the per-layer algorithm knob -------------------------------- */

/* Whether Winograd F(4x4, 3x3) applies to layer li: the runtime's rule
 * (rt/rows.h), a 3x3 stride-1 dense 2-D conv with 16-channel input blocks
 * (C >= 5, or fewer from a blocked layer output); shape (may be NULL): C,
 * M, OH, OW. */
int opt_winograd_applies(const ir_model *m, int li, int64_t shape[4]);
/* Applies and pays by the rule (pz_winograd_pays: a cost model). */
int opt_winograd_pays(const ir_model *m, int li);
/* Whether this CPU runs the Winograd kernel (AVX-512). */
int opt_have_winograd(void);
/* Sets every layer's algo: Conv layers WINOGRAD where it pays on this CPU
 * (AVX-512), else DIRECT; other layers AUTO. Returns the Winograd count. */
int opt_choose_algos(ir_model *m);

/* The same by measurement on this machine (every layer its own block at MP
 * `cores`; both algorithms timed per layer over `rounds` alternating builds;
 * Winograd where it is >= 3% faster). Progress on stderr unless quiet.
 * Returns the Winograd count, -1 on failure (err set). */
int opt_measure_algos(ir_model *m, int cores, int rounds, int quiet, pz_err *err);

/* ---- dp.c: exact searches over a block-cost table ------------------------- */

/* cost(ctx, start, size, &mp): the cost of layers [start, start+size) as one
 * block at its best MP (stored in *mp), or INFINITY if not available. */
typedef double (*opt_block_cost_fn)(void *ctx, int start, int size, int *mp);

/* Minimum-cost partition of n layers into blocks of 1..max_size layers.
 * Returns the block count (sizes/mps filled) and the total cost in *total;
 * 0 if no partition has a finite cost. O(n * max_size) cost calls. */
int opt_dp(int n, int max_size, opt_block_cost_fn cost, void *ctx, int *sizes, int *mps,
           double *total);

/* Brute force with branch and bound over partitions whose blocks are
 * multiples of `unit` layers or of at most `small` layers (the last block
 * takes what is left), sizes up to max_size: keeps the k cheapest distinct
 * partitions, best first. */
typedef struct {
    int n_blocks;
    int *sizes, *mps;          /* [n] each */
    double cost;
} opt_candidate;
int opt_enumerate(int n, int unit, int small, int max_size, opt_block_cost_fn cost, void *ctx,
                  opt_candidate *best, int k, double *visited);

/* ---- search.c: the measured strategies ----------------------------------- */

typedef struct {
    double budget_s;           /* measuring stops after this (the minimum set is always done) */
    int repeat;                /* runs per measurement */
    int max_block;             /* dp: largest block; oracle: largest block in layers (0 = n) */
    int verify;                /* candidates verified end to end */
    int quiet;                 /* no progress on stderr */
} opt_search_opts;

/* The oracle (search.c says how). mc: the profile, NULL when none is
 * cached (then the profile strategies' schedules are not among its seeds);
 * t: its tables (may be NULL); given: other strategies' schedules, seeds
 * too (opt_oracle_add_given; NULL when none). */
int opt_oracle(ir_model *m, const pz_layer_features *f, int cores, const pz_machine *mc,
               const lab_profile_tables *t, const opt_schedule *given, int n_given,
               const opt_search_opts *o, int *sizes, int *mps, pz_err *err);
/* Blocks of up to this many layers, at every offset, are in the oracle's
 * space (dp's default largest block). */
#define OPT_ORACLE_SMALL 8
/* The MPs the oracle and dp time: {1,2,3,4,6,8,12,16,24,32} below the
 * cores, and the cores (fixed-mp's). Returns the count (at most 11). */
int opt_oracle_mps(int cores, int *mps);
/* The MPs Algorithm 1's predicted check compares: {1,2,4,8,12,16,24,32}
 * below the cores, and the cores; a subset of opt_oracle_mps. Returns the
 * count (at most 9). */
int opt_alg1_mps(int cores, int *mps);
/* The block sizes the oracle times, in that order, and the alignment of the
 * offsets each is timed at: 1 (every offset), n (offset 0; when max_size is
 * n), 2..small (every offset), then the multiples of 4 above small up to
 * max_size (offsets multiples of 4). sizes/align: capacity n + 2. Returns
 * the count. */
int opt_oracle_plan(int n, int max_size, int small, int *sizes, int *align);
/* The schedules of the strategies that need no measuring, which the oracle
 * times beside its own so that none of them can beat it: every layer alone
 * at each MP of opt_oracle_mps (none, fixed-mp:N, fixed-mp), fuse-all,
 * best's uniform blocks (2 and 3 layers at every offset, 4, 8, 16) on all
 * the cores, and with a profile (mc not NULL) dynamic-mp, fusion-fixed-mp,
 * dlfusion:paper and dlfusion (on t). Distinct schedules only, at most cap;
 * out[i].sizes/mps have capacity n each. Returns the count. */
int opt_oracle_seeds(const pz_layer_features *f, int n, int cores, const pz_machine *mc,
                     const lab_profile_tables *t, opt_candidate *out, int cap);
/* Appends to out[0..k) each of the n_given schedules that is a legal
 * schedule of n layers on `cores` cores (sizes >= 1 summing to n, MPs 1 to
 * cores) and not there already, up to cap; out[i].sizes/mps: capacity n.
 * Returns the new count. */
int opt_oracle_add_given(opt_candidate *out, int k, int cap, const opt_schedule *given, int n_given,
                         int n, int cores);
int opt_dp_measured(ir_model *m, const pz_layer_features *f, int cores,
                    const opt_search_opts *o, int *sizes, int *mps, pz_err *err);

/* Bench's check that the oracle bounds the other strategies. s[k] and
 * oracle[k]: a strategy's and the oracle's ms in round k of `rounds`
 * interleaved rounds (pairs under the same load). The strategy beats the
 * oracle when the median of the ratios s[k] / oracle[k] is below 1 by more
 * than the noise: the larger of OPT_BENCH_NOISE and two standard errors of
 * that median (1.4826 x the ratios' median absolute deviation x 2 /
 * sqrt(rounds)). *ratio (may be NULL): that median; *noise (may be NULL):
 * the noise used. 0 when rounds < 1. */
#define OPT_BENCH_NOISE 0.02

/* The measured searches' last step (search.c): paired runs of their
 * fastest candidate against the runner-up, when within this fraction of
 * it, and against fixed-mp's schedule. */
#define OPT_PAIRED_WITHIN 0.03
/* Of two schedules timed in `rounds` paired rounds (a[k], b[k] under the
 * same load): the median of b[k] / a[k]; below 1, b is the faster. 1 when
 * rounds < 1. */
double opt_paired_ratio(const double *a, const double *b, int rounds);
int opt_beats_oracle(const double *s, const double *oracle, int rounds, double *ratio, double *noise);

/* ---- best.c: ours, for deployment ------------------------------------------ */

/* Measured algorithms, then the fastest of: every layer on all cores, each
 * layer at its measured better MP (1 or all), Algorithm 1 following the
 * profile (when have_profile; t its tables, may be NULL), uniform fused
 * blocks, and the partition stitched from the fastest of their measured
 * blocks (see best.c). Returns the block count, -1 on failure. */
int opt_best(ir_model *m, const pz_layer_features *f, int cores, const pz_machine *mc,
             const lab_profile_tables *t, int have_profile, const opt_search_opts *o, int *sizes,
             int *mps, pz_err *err);

/* The fastest partition of layers [0, n) into blocks measured as parts of
 * nc candidate schedules: candidate k has nb[k] blocks, block b of
 * sizes[k][b] layers at mps[k][b] cores, measured at block_ms[k][b] ms
 * (NaN: not measured, never used). opt_dp over the least time of each
 * measured block; between the same block of two candidates the earlier's,
 * between paths of one time opt_dp's (the shortest last block). Writes the
 * blocks to out_sizes/out_mps (capacity n) and returns their count, or -1
 * when the blocks cover no partition. */
int opt_stitch(int n, int nc, const int *const *sizes, const int *const *mps, const int *nb,
               const double *const *block_ms, int *out_sizes, int *out_mps);

/* How much faster than Algorithm 1's schedule another candidate of `best`
 * must time to replace it: 2%. best's own timings and the strategies
 * bench's, of freshly built nets, disagree by that much and more. */
#define OPT_BEST_MARGIN 0.02

/* The candidate best keeps: the fastest of med[0..nc), unless alg1 >= 0 (the
 * index of Algorithm 1's candidate) and the fastest is not faster than
 * med[alg1] by more than OPT_BEST_MARGIN; then alg1. -1 when nc < 1. */
int opt_best_pick(const double *med, int nc, int alg1);

/* ---- plugin.c ------------------------------------------------------------ */

/* spec: "PATH.so" or "PATH.so:ARGS". */
int opt_plugin_run(const char *spec, const pz_layer_features *f, int n, const pz_machine *mc,
                   ir_model *m, int *sizes, int *mps, pz_err *err);

/* ---- space.c ------------------------------------------------------------- */

/* log10 of Paleozoic Eq. 3 / DLFusion Eq. 4: sum_{i=1}^{n-1} cores^(i+1) *
 * prod_{x=1}^{i} (n-x) / i!, summed term by term in logs. -INFINITY for n < 2. */
long double opt_space_log10(int n, int cores);
/* "8.17e75" */
void opt_space_format(long double log10v, char *buf, size_t size);

#endif
