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

#endif
