/* guard.h - the branch an If does not take is not run (guard.c).
 *
 *   if (pz_guard_plan(net, err, n)) return 1;   // compile: after every prepare
 *   if (pz_guard_skips(net, l)) return;         // run: before layer l
 */
#ifndef PZ_RT_GUARD_H
#define PZ_RT_GUARD_H

#include <stddef.h>

#include "rt/net_state.h"

/* Gives each layer read only for one side of a choice made at run time
 * its guard (net.h's guard_t, guard_v). 0, or 1 with a message in err. */
int pz_guard_plan(pz_net *net, char *err, size_t n);

/* Whether layer l's guard does not hold this run: then sets l->skipped,
 * clears its run error and (profile) its time; else clears l->skipped. */
int pz_guard_skips(pz_net *net, pz_layer *l);

#endif
