/* characterize.h - the micro-benchmark study of this machine (DLFusion II
 * and III on the CPU), `paleozoic characterize`.
 *
 *   level 0: the default profile, ~10 s (a few conv and FC layers)
 *   level 1: --quick, under 2 minutes
 *   level 2: the full study, under 20 minutes
 * on 2 cores; the limits grow with the MPs timed (lab_study_seconds).
 *
 * Fits OpCount_critical and the MP model (Eq. 5), ranks the features by PCA,
 * writes the profile JSON to json_path (atomically) and, when svg is set,
 * the plots next to it (PREFIX.gflops.svg, PREFIX.mp.svg, PREFIX.fusion.svg
 * where PREFIX is json_path without ".json"). Progress on stderr unless quiet.
 *
 * The machine is watched while it is measured (quality.h): a study it
 * disturbed is measured again (up to 3 studies at level 0, 2 at level 1,
 * 1 at level 2); when every one was disturbed nothing is written unless
 * allow_noisy, *mc gets the last study's fit all the same, and the status
 * is PZ_ERR_INPUT with err saying what disturbed it. The profile records
 * the machine ("machine") and the study's quality ("quality"). */
#ifndef PZ_LAB_CHARACTERIZE_H
#define PZ_LAB_CHARACTERIZE_H

#include "lab.h"

pz_status lab_characterize(int level, int cores, const char *json_path, int svg, int quiet,
                           int allow_noisy, pz_machine *mc, pz_err *err);

/* The most MPs a study times. */
#define LAB_STUDY_MAX_MP 16
/* The MPs a study on `cores` times into mp[LAB_STUDY_MAX_MP]; returns how many. */
int lab_study_mps(int cores, int *mp);
/* The time limit of a study at `level` on `cores` (seconds). */
double lab_study_seconds(int level, int cores);

#endif
