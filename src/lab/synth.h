/* synth.h - synthesized, timed layers for `characterize` (see synth.c). */
#ifndef PZ_LAB_SYNTH_H
#define PZ_LAB_SYNTH_H

#include "../ir/status.h"

/* depthwise: group = channels (c_in is taken equal to c_out) */
double synth_conv_ms(int c_in, int c_out, int hw, int k, int depthwise, int layers, int block,
                     int mp, double min_time, pz_err *err);
/* n_ir inverted-residual blocks of MobileNetV2 (1x1 c -> 6c, depthwise 3x3,
 * 1x1 6c -> c with the block's input added), fused in blocks of `block` layers */
double synth_ir_ms(int c, int hw, int n_ir, int block, int mp, double min_time, pz_err *err);
double synth_fc_ms(int m, int kdim, int n, int mp, double min_time, pz_err *err);

/* The last timing's relative spread over its runs, (Q3 - Q1) / median:
 * how much the machine moved under it (quality.h). */
double synth_last_spread(void);

#endif
