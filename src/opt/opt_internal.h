/* opt_internal.h - the optimizer's pieces, shared between its files and the
 * CLI commands that drive them (tune, bench, space).
 *
 *   algo.c        the per-layer algorithm knob (direct or Winograd)
 *   best.c        "best": measured algorithms, then the fastest of a few schedules
 *   features.c    layer features of a lowered model (pz_strategy.h's struct)
 *   simple.c      none, fixed-mp, dynamic-mp, fuse-all (DLFusion Table III 1-4)
 *   alg1.c        DLFusion Algorithm 1 (dlfusion, fusion-fixed-mp)
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
#include "../util/util.h"
#include "pz_strategy.h"

/* ---- features.c ---------------------------------------------------------- */

/* One entry per layer of m (names point into m's graph). Caller frees. */
pz_layer_features *opt_features(const ir_model *m);

/* ---- the MP model (DLFusion Eq. 5) ---------------------------------------- */

/* The MP the profile's model gives a conv/FC layer, rounded, in [1, cores]. */
int opt_mp_model(const pz_machine *mc, const pz_layer_features *f);

/* ---- strategies on features: fill sizes/mps (capacity n), return blocks --- */

int opt_each_layer(int n, int mp, int *sizes, int *mps);
int opt_dynamic_mp(const pz_layer_features *f, int n, const pz_machine *mc, int *sizes, int *mps);
/* DLFusion Algorithm 1. fixed_mp > 0: every block gets that MP instead of
 * the block's (fusion-fixed-mp). */
int opt_alg1(const pz_layer_features *f, int n, const pz_machine *mc, int fixed_mp, int *sizes,
             int *mps);

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
 * multiples of `unit` layers (the last block takes what is left), sizes up
 * to max_size: keeps the k cheapest distinct partitions, best first. */
typedef struct {
    int n_blocks;
    int *sizes, *mps;          /* [n] each */
    double cost;
} opt_candidate;
int opt_enumerate(int n, int unit, int max_size, opt_block_cost_fn cost, void *ctx,
                  opt_candidate *best, int k, double *visited);

/* ---- search.c: the measured strategies ----------------------------------- */

typedef struct {
    double budget_s;           /* measuring stops after this (the minimum set is always done) */
    int repeat;                /* runs per measurement */
    int max_block;             /* dp: largest block; oracle: largest block in layers (0 = n) */
    int verify;                /* candidates verified end to end */
    int quiet;                 /* no progress on stderr */
} opt_search_opts;

int opt_oracle(ir_model *m, const pz_layer_features *f, int cores, const opt_search_opts *o,
               int *sizes, int *mps, pz_err *err);
int opt_dp_measured(ir_model *m, const pz_layer_features *f, int cores,
                    const opt_search_opts *o, int *sizes, int *mps, pz_err *err);

/* ---- best.c: ours, for deployment ------------------------------------------ */

/* Measured algorithms, then the fastest of: every layer on all cores, each
 * layer at its measured better MP (1 or all), Algorithm 1 (when
 * have_profile), uniform fused blocks, and the partition stitched from the
 * fastest of their measured blocks (see best.c). Returns the block count,
 * -1 on failure. */
int opt_best(ir_model *m, const pz_layer_features *f, int cores, const pz_machine *mc,
             int have_profile, const opt_search_opts *o, int *sizes, int *mps, pz_err *err);

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
