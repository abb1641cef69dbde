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

/* The knobs that shape a lowered model after its passes (knobs.c): what
 * `paleozoic run/compile/build` take on the command line and a built
 * program replans with (src/gen/replan.c). Strings are borrowed. */
#define OPT_DEFAULT_STRATEGY "fixed-mp"   /* every layer alone on all the cores */
typedef struct {
    const char *strategy;      /* NULL: OPT_DEFAULT_STRATEGY */
    const char *target;        /* the strategy's target profile, NULL: the default */
    const char *precision;     /* NULL, fp32, bf16, int8-dynamic (int8 quantizes before loading) */
    const char *weights;       /* NULL, fp32, fp16: the storage of fp32 blocks' weights */
    int has_sparsity;          /* sparsity: R in [0, 1) or IR_SPARSITY_AUTO */
    float sparsity;
    int concat;                /* the concatenation pass ran (passes_opts.concat) */
    int64_t batch;             /* > 0: the leading dim the load binds (onnx_load_opts.batch) */
    const char *schedule;      /* a schedule file: only said, never applied here (its blocks
                                * name the layers of the plan it was tuned on) */
} opt_knobs;
/* The strategy on m for `cores` cores (the sparsity first, when given, so
 * that a measured strategy times the sparse kernels); then, after it or a
 * schedule, opt_knobs_finish: the precision, the weights, the sparsity
 * (pruning the weights). opt_knobs_precision: the precision and weights
 * alone; opt_knobs_weights: the weights alone (bench's re-partitions). */
pz_status opt_knobs_strategy(const opt_knobs *k, ir_model *m, int cores, pz_err *err);
pz_status opt_knobs_finish(const opt_knobs *k, ir_model *m, pz_err *err);
void opt_knobs_precision(const opt_knobs *k, ir_model *m);
void opt_knobs_weights(const opt_knobs *k, ir_model *m);
/* The knobs as "key=value" lines (strategy, target, precision, weights,
 * sparsity, concat, batch, schedule; unset ones left out) into buf; returns
 * snprintf's count. opt_knobs_parse reads them back, in place: k's strings
 * point into text. An unknown key fails (2). */
int opt_knobs_format(const opt_knobs *k, char *buf, size_t n);
pz_status opt_knobs_parse(char *text, opt_knobs *k, pz_err *err);

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
