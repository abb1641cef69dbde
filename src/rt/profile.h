/* profile.h - the kept runs of a profiled net (profile.c): one row of
 * nanoseconds per run, each layer's, each block's, then the whole run's.
 *
 *   uint64_t *row = net->prof + (size_t)k * pz_profile_row(net);   // run k
 */
#ifndef PZ_RT_PROFILE_H
#define PZ_RT_PROFILE_H

#include <stddef.h>

#include "rt/net_state.h"

/* Values in one run's row: layers, blocks, and the run. */
size_t pz_profile_row(const pz_net *net);
/* (Re)allocates the ring of PZ_PROFILE_RUNS rows when the net is profiled
 * and compiled (pz_net_run does not allocate), else frees it. */
void pz_profile_alloc(pz_net *net);

#endif
