/* opt.h - the optimizer: strategies that set a model's knobs (DLFusion
 * Table III and ours), from a target profile of this machine. */
#ifndef PZ_OPT_H
#define PZ_OPT_H

#include "../ir/model.h"

/* Sets m's blocks and MPs by strategy `name` ("none", "fixed-mp", ...,
 * "dlfusion", "oracle", ...), for `cores` cores; target: a profile written by
 * `paleozoic characterize`, or NULL for the default profile. An unknown name
 * is an error listing the known ones. */
pz_status opt_apply_strategy(ir_model *m, const char *name, const char *target, int cores,
                             pz_err *err);

#endif
