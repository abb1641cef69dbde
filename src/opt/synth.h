/* synth.h - synthesized, timed layers for `characterize` (see synth.c). */
#ifndef PZ_OPT_SYNTH_H
#define PZ_OPT_SYNTH_H

#include "../ir/status.h"

/* depthwise: group = channels (c_in is taken equal to c_out) */
double synth_conv_ms(int c_in, int c_out, int hw, int k, int depthwise, int layers, int block,
                     int mp, double min_time, pz_err *err);
double synth_fc_ms(int m, int kdim, int n, int mp, double min_time, pz_err *err);

#endif
