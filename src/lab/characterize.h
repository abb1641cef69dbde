/* characterize.h - the micro-benchmark study of this machine (DLFusion II
 * and III on the CPU), `paleozoic characterize`.
 *
 *   level 0: the default profile, ~10 s (a few conv and FC layers)
 *   level 1: --quick, under 2 minutes
 *   level 2: the full study, under 20 minutes
 *
 * Fits OpCount_critical and the MP model (Eq. 5), ranks the features by PCA,
 * writes the profile JSON to json_path (atomically) and, when svg is set,
 * the plots next to it (PREFIX.gflops.svg, PREFIX.mp.svg, PREFIX.fusion.svg
 * where PREFIX is json_path without ".json"). Progress on stderr unless quiet. */
#ifndef PZ_LAB_CHARACTERIZE_H
#define PZ_LAB_CHARACTERIZE_H

#include "lab.h"

pz_status lab_characterize(int level, int cores, const char *json_path, int svg, int quiet,
                           pz_machine *mc, pz_err *err);

#endif
