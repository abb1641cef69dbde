/* arena.h - a compiled net's memory plan (arena.c).
 *
 *   if (pz_arena_plan(net, err, n)) return 1;   // after every prepare and the fusion plan
 */
#ifndef PZ_RT_ARENA_H
#define PZ_RT_ARENA_H

#include <stddef.h>

#include "rt/net_state.h"

/* Places every value tensor, layer scratch and input conversion of net in
 * one arena (allocated here) by liveness. 0, or 1 with a message in err. */
int pz_arena_plan(pz_net *net, char *err, size_t n);

/* Concat in place (inplace.c): marks the CONCAT layers whose parts can be
 * written straight into their output (layer in_place; each part's host and
 * host_off). After the fusion plan, before pz_arena_plan. */
void pz_inplace_plan(pz_net *net);

#endif
