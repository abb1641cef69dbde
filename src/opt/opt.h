/* opt.h - the optimizer: strategies that set a model's knobs (DLFusion
 * Table III and ours), from a target profile of this machine.
 *
 *   name             what it does                                     needs
 *   none             no fusion, MP 1 (the baseline)                   -
 *   fixed-mp[:N]     no fusion, every layer on N cores (default: all)  -
 *   dynamic-mp       no fusion, each conv/FC layer the MP of Eq. 5     profile
 *   fuse-all         all layers one block, MP = all cores              -
 *   fusion-fixed-mp  Algorithm 1's blocks, every block on all cores    profile
 *   dlfusion         Algorithm 1 following the profile: blocks and      profile
 *                    per-block MP, no fused block of a chain kind the
 *                    profile saw fusing slow down, no MP it measured
 *                    slower for a kind of layer (alg1.c)
 *   dlfusion:paper   Algorithm 1 as published (lines 1-19)              profile
 *   oracle[:OPTS]    DLFusion V.3 reduced brute force, measured,       the machine
 *                    widened to hold every other strategy's schedule
 *                    (one-layer blocks, all the cores, the others'
 *                    schedules as seeds: search.c)
 *   dp[:OPTS]        ours: exact DP over measured block costs          the machine
 *   best[:OPTS]      ours for deployment: measured per-layer algorithm   the machine
 *                    (Winograd or direct), then the fastest of all-cores,
 *                    measured per-layer MP, Algorithm 1 and fused blocks
 *                    of 4, 8, 16 and all layers (best.c)
 *   plugin:PATH.so[:ARGS]  a user strategy (pz_strategy.h)
 *
 * OPTS: comma-separated key=value: budget=SECONDS (measuring time, default
 * 300 for oracle, 120 for dp), repeat=N (runs per timing, default 3),
 * max-block=N (dp: largest block, default 8; oracle: default all layers),
 * verify=K (best partitions on the block times that are then timed end to
 * end, the fastest kept; default 4), quiet=1.
 */
#ifndef PZ_OPT_H
#define PZ_OPT_H

#include "../ir/model.h"

/* The strategies `bench --strategies all` compares, in Table III order. */
extern const char *const OPT_STRATEGIES[];
extern const int OPT_N_STRATEGIES;

/* Sets m's blocks and MPs by strategy `name` for `cores` cores; target: a
 * profile written by `paleozoic characterize`, or NULL for the default
 * profile (cached; see lab_profile_load). An unknown name is an error
 * listing the known ones. */
pz_status opt_apply_strategy(ir_model *m, const char *name, const char *target, int cores,
                             pz_err *err);
/* A schedule another strategy chose: who (its name), n_blocks blocks of
 * sizes[b] layers at MP mps[b]. */
typedef struct {
    const char *who;
    int n_blocks;
    const int *sizes, *mps;
} opt_schedule;
/* The same, where `given` (n_given, at most OPT_ORACLE_GIVEN_MAX; may be
 * NULL) are the schedules of the other strategies compared (bench): the
 * oracle times them among its candidates, so that its space contains each
 * (issue 45); the other strategies ignore them. */
#define OPT_ORACLE_GIVEN_MAX 32
pz_status opt_apply_strategy_given(ir_model *m, const char *name, const char *target, int cores,
                                   const opt_schedule *given, int n_given, pz_err *err);

/* The sparsity knob (sparsity.c; README "Sparsity"): per layer, 0 dense,
 * R in (0, 1) prune the weights to R by blocks, IR_SPARSITY_AUTO the own
 * zero blocks. Applies: the layer has a block-sparse kernel (a 2-D group-1
 * Conv with constant weights and 16-channel input blocks); else why says
 * what it lacks. */
int opt_sparsity_applies(const ir_model *m, int li, char *why, size_t n);
/* --sparsity R (or AUTO) on every layer where it applies; refused when no
 * layer of m has a sparse kernel. */
pz_status opt_sparsity_set_all(ir_model *m, float r, pz_err *err);
/* Prunes the weights of every layer whose knob is R > 0: the smallest-L1
 * blocks are zeroed until round(R x blocks) of them are zero. Refuses a
 * layer without a sparse kernel, or whose weights another layer reads,
 * naming it. Then each sparse conv the optimizer left on Winograd takes
 * the sparse Winograd or the sparse direct kernel by pz_spwino_pays. */
pz_status opt_sparsity_prune(ir_model *m, pz_err *err);
/* Layer li's weight blocks, the all-zero ones among them, its MACs and the
 * MACs the sparse kernel skips (zero blocks' weights x output pixels; on
 * the sparse Winograd the GEMMs' MACs, 36 a tile per weight pair), and
 * which kernel ("direct", "winograd", "gemm"); 0 when the knob is off or
 * does not apply. */
int opt_sparsity_count(const ir_model *m, int li, int64_t *blocks, int64_t *zero, int64_t *macs,
                       int64_t *skipped, const char **algo);
/* 1 when conv layer li runs the sparse Winograd (what the runtime takes:
 * the knob on, the layer's algo Winograd, Winograd on this CPU). */
int opt_sparse_winograd(const ir_model *m, int li);

#endif
