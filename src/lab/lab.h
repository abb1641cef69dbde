/* lab.h - the measurement lab: what Paleozoic measures on this machine.
 *
 *   measure.c       timing schedules and blocks by building and running nets
 *   profile.c       the target profile: read, write, the cached default
 *   characterize.c  the micro-benchmark study that writes the profile
 *                   (characterize.h), on layers synthesized by synth.c
 *   pca.c           PCA (covariance + Jacobi) and least squares
 *   critical.c      OpCount_critical off the characterize timings
 *   svg.c           the charts of characterize and bench (svg.h)
 *
 * The lab sits below the optimizer: the strategies (src/opt) time schedules
 * with a lab_meter and read the machine from a profile; the lab knows no
 * strategy, only the machine description they share (pz_strategy.h).
 *
 *   lab_meter *mt = lab_meter_new(m, cores, 5);
 *   double ms = lab_meter_schedule(mt, sizes, mps, n, NULL, err);
 *   lab_meter_free(mt);
 */
#ifndef PZ_LAB_LAB_H
#define PZ_LAB_LAB_H

#include "../ir/model.h"
#include "../opt/pz_strategy.h"

/* ---- profile.c ----------------------------------------------------------- */

/* Reads a target profile written by `paleozoic characterize` (path), or,
 * with path NULL, the default profile: from the cache file
 * (lab_default_profile_path) or, when there is none, from a ~10-second
 * measurement (characterize level 0) then cached. machine->cores is set to
 * `cores` (the MP limit of this run). */
pz_status lab_profile_load(const char *path, int cores, pz_machine *machine, pz_err *err);
/* The same without measuring: path, else the cached default; an error when
 * there is none. A profile that records another machine is never used: a
 * given one is refused (PZ_ERR_INPUT, the difference named), a cached
 * default one measured again (lab_profile_load) or reported missing; a
 * given one that records no machine (an older study) is used, with a
 * warning. */
pz_status lab_profile_load_cached(const char *path, int cores, pz_machine *machine, pz_err *err);
/* `characterize --check`: whether the profile at path still describes this
 * machine (its machine record, the FMA peak and two layers re-timed now;
 * the re-timings on stdout). 0: it does; 1: it does not, why says so; 2:
 * cannot tell, the machine is busy now and reads slow (why); -1: the file
 * cannot be read (err). */
int lab_profile_check(const char *path, char *why, size_t n, pz_err *err);
/* $XDG_CACHE_HOME/paleozoic/target-default-<N>cpu.json, or ~/.cache/...;
 * writes into buf. */
void lab_default_profile_path(char *buf, size_t size);
/* Writes text to path atomically (a temporary name in the same folder,
 * renamed); creates missing parent folders when mkdirs. */
pz_status lab_write_atomic(const char *path, const char *text, size_t len, int mkdirs,
                           pz_err *err);

/* ---- measure.c: timing on this machine ----------------------------------- */

typedef struct lab_meter lab_meter;
/* A meter for m on `cores` workers: synthesized inputs, output buffers.
 * repeat: timed runs per measurement (median). */
lab_meter *lab_meter_new(ir_model *m, int cores, int repeat);
void lab_meter_free(lab_meter *mt);
/* Every schedule it builds from now on runs at this precision and weight
 * storage (bench --precision, --weights); the default fp32, fp32. */
void lab_meter_precision(lab_meter *mt, ir_precision prec, ir_weights weights);
/* Sets m's partition, builds, runs, and returns the median ms of the whole
 * net (negative on failure, err set); block_ms[i] (may be NULL): the median
 * ms of block i. */
double lab_meter_schedule(lab_meter *mt, const int *sizes, const int *mps, int n,
                          double *block_ms, pz_err *err);
/* Several schedules measured interleaved (round robin, `rounds` rounds);
 * med[i] = median ms of schedule i; block_ms (may be NULL): block_ms[i][b]
 * = median ms of block b of schedule i. Returns 0 or -1 (err set). */
int lab_meter_interleaved(lab_meter *mt, int n_sched, const int *const *sizes,
                          const int *const *mps, const int *n_blocks, int rounds, double *med,
                          double *const *block_ms, pz_err *err);
/* The same, also keeping every run: runs[i * rounds + k] = ms of schedule
 * i in round k (runs may be NULL). */
int lab_meter_interleaved_runs(lab_meter *mt, int n_sched, const int *const *sizes,
                               const int *const *mps, const int *n_blocks, int rounds, double *med,
                               double *const *block_ms, double *runs, pz_err *err);
/* Two models of the same graph inputs (the concatenation knob on and off),
 * each as fixed-mp (every layer a block on all the cores), built once and
 * run alternately `rounds` rounds: ta[k], tb[k] the ms of round k. Returns
 * 0 or -1 (err set). */
int lab_meter_pair(lab_meter *a, lab_meter *b, int rounds, double *ta, double *tb, pz_err *err);
int lab_meter_builds(const lab_meter *mt);

/* ---- pca.c ---------------------------------------------------------------- */

/* Eigen-decomposition of a symmetric d x d matrix a (row-major, destroyed)
 * by cyclic Jacobi: eigenvalues in w (descending), eigenvectors as the
 * columns of v (row-major d x d). */
void lab_jacobi_eigen(double *a, int d, double *w, double *v);
/* PCA of n samples of d features (row-major x[n*d]), each feature
 * standardized: w = explained variance per component (descending), v the
 * loadings (columns). Returns 0, -1 if n < 2. */
int lab_pca(const double *x, int n, int d, double *w, double *v);
/* Least squares y ~ X b (n x d, row-major), small ridge for stability. */
int lab_lstsq(const double *x, const double *y, int n, int d, double *b);

/* ---- critical.c: OpCount_critical off the characterize timings ------------ */

/* Fig. 3b: n single-core dense convs (ops FLOP, ms). Fits t = t0 + ops / P by
 * least squares on the relative error and returns the op count where a layer
 * reaches 85% of P, (0.85 / 0.15) t0 P, at least the smallest op count timed;
 * 1e8 when n == 0. */
double lab_critical_single(const double *ops, const double *ms, int n);
/* Fig. 7c: n fused chains, each with the op count per core of its fastest
 * fused block (block layers x layer FLOP / MP) and that block's gain (the
 * chain's time in blocks of 1 over its time in that block). Returns the
 * median block op count of the chains that fusing speeds up by at least
 * LAB_FUSE_GAIN_MIN (the geometric mean of the middle two for an even
 * count); NAN if fusing speeds up none. */
#define LAB_FUSE_GAIN_MIN 1.02
double lab_critical_fusion(const double *block_ops, const double *gain, int n);

#endif
