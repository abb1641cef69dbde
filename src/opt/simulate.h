/* simulate.h - many-core scaling on paper: a model of an N-core target
 * built from this machine's measurements, that predicts a schedule's time
 * and lets the strategies choose schedules for N cores (DLFusion Fig. 10 in
 * simulation: `paleozoic tune|space MODEL --simulate-cores N`).
 *
 * The target: N copies of this machine's core, sharing an L3 and DRAM.
 *   per core   the profile's peak (peak_gflops) and fixed time of a conv/FC
 *              layer, t0 = OpCount_critical * 0.15 / (0.85 * peak) (the fit
 *              t = t0 + ops / peak behind OpCount_critical, lab/critical.c);
 *              this machine's L2, its measured copy bandwidth from L2, L3
 *              and DRAM (lab/manycore.h);
 *   shared     L3: this machine's when N <= its cores, else SIM_L3_PER_CORE
 *              a core; L3 bandwidth grows with the cores; DRAM bandwidth
 *              grows with the cores up to SIM_DRAM_MAX_GBS;
 *   sync       a block's fork-join costs the measured 2-worker figure times
 *              (MP - 1): the runtime's barrier is one shared counter, whose
 *              cache line every arriving core takes in turn.
 * A layer alone (a block of one layer) on MP cores:
 *   max(compute, memory) + sync(MP), compute = t0 + ops / (MP * peak),
 *   memory = (input + output + weight bytes) / the bandwidth of the level
 *   that holds them (the L2s of its MP cores, the L3, else DRAM).
 * A fused block splits its rows in bands over MP cores (src/opt/halo.c)
 *   and runs layer by layer, each max(compute, memory) as above: compute
 *   adds the layer's halo MACs; each core reads all the block's weights;
 *   the intermediates stay in L2 (the runtime's strips and rolling windows)
 *   when the block's weights take at most half a core's L2, else they go to
 *   L3 and back; one fork-join for the block. Layers the runtime
 *   does not fuse (not row-local, or Winograd with its scratch) run alone,
 *   and a block whose halo exceeds 30% of its MACs runs split by channels
 *   (no halo, a barrier per layer and strip, strips of rows that fit half
 *   an L2), as the runtime's "auto" split does.
 * A Winograd conv counts ops / SIM_WINOGRAD_GAIN.
 *
 *   sim_target t;
 *   sim_target_make(&profile, &probe, 32, &t);
 *   double ms = sim_schedule_ms(m, &t, sizes, mps, n_blocks);
 *   double ms = sim_apply_strategy(m, "dlfusion", &t, &err);   // sets m's blocks
 */
#ifndef PZ_OPT_SIMULATE_H
#define PZ_OPT_SIMULATE_H

#include <stdio.h>

#include "../ir/model.h"
#include "../lab/manycore.h"
#include "pz_strategy.h"

/* The most cores a simulation takes (--simulate-cores 1 to this). */
#define SIM_MAX_CORES 1024
/* Assumed for cores beyond this machine's: L3 a core (Sapphire Rapids:
 * 1.875 MiB a core) and the DRAM bandwidth of all cores together (8 channels
 * of DDR5-4800 at about 80% of their 307 GB/s). */
#define SIM_L3_PER_CORE (1.875 * 1024 * 1024)
#define SIM_DRAM_MAX_GBS 250.0
/* Assumed: a Winograd F(4x4, 3x3) conv runs its ops this much faster than
 * direct (4x fewer multiplies, less the transforms). */
#define SIM_WINOGRAD_GAIN 2.0

typedef struct {
    int cores;
    double peak_gflops;        /* one core */
    double t0_us;              /* fixed time of a conv/FC layer on a core */
    double l2_bytes;           /* one core's */
    double l3_bytes;           /* shared */
    int l3_measured;           /* 1: the L3 is this machine's (cores <= its cores) */
    double bw_l2, bw_l3, bw_dram;   /* GB/s, one core */
    double bw_dram_max;        /* GB/s, all cores */
    double sync2_us;           /* fork-join at 2 workers */
    double opcount_critical;
    int host_cores;
    pz_machine machine;        /* what the strategies read: N cores, the MP model fitted on
                                  the model (sim_target_make) */
} sim_target;

/* The N-core target from a profile and the probes of this machine. */
void sim_target_make(const pz_machine *profile, const lab_manycore *probe, int cores,
                     sim_target *t);
/* A fork-join of mp workers, microseconds. */
double sim_sync_us(const sim_target *t, int mp);

/* Predicted ms of a schedule of m (the model above, m's layer algorithms
 * as set): the sum of its blocks'. */
double sim_schedule_ms(const ir_model *m, const sim_target *t, const int *sizes, const int *mps,
                       int n_blocks);

/* The assumptions, one per line, each prefixed with `prefix`. */
void sim_print_assumptions(FILE *f, const sim_target *t, const char *prefix);
/* The same as one line of text (for an SVG caption) into buf. */
void sim_assumptions_line(const sim_target *t, char *buf, size_t size);

/* Sets m's schedule by strategy `spec` for the simulated target: the
 * profile-driven strategies (none, fixed-mp[:N], dynamic-mp, fuse-all,
 * fusion-fixed-mp, dlfusion:paper) run on t->machine (N cores, the
 * profile's OpCount_critical, the MP model fitted on the model); dlfusion
 * takes the model as the target's profile (opt_alg1_predicted: its layers'
 * MPs and each block's fusion as the model predicts them, so never
 * predicted slower than fixed-mp); the
 * measured ones search on the model instead of measuring: oracle (DLFusion
 * V.3's reduced brute force: blocks of multiples of 4 layers, MP from
 * {1,2,4,8,12,16,24,32}, or any other strategy's schedule, dp's included,
 * where the model finds it faster) and dp (blocks of 1 to 8 layers, MP from
 * {1,2,3,4,6,8,12,16,24,32} and N, exact). Others (best,
 * plugin) measure on this machine and are refused. Returns the predicted
 * ms, negative on error (err set). */
double sim_apply_strategy(ir_model *m, const char *spec, const sim_target *t, pz_err *err);

#endif
