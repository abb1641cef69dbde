/* act16c.c - a fused epilogue activation over NCHW16c pixels a conv kernel
 * has just written (still in L1): y[p*16 + l] = act(y[p*16 + l]) for npix
 * pixels of one channel block whose first channel is c0, the lanes of
 * channels >= c written as zeros (sigmoid(0) is 1/2). The conv drivers call
 * it for the kinds their register epilogues lack (all but RELU and CLIP).
 * This is the scalar twin (pz_act_f32, the unary reference's expressions);
 * act16c_avx512.c and act16c_avx2.c are the vector ones. */
#include "rt/kernels/fast.h"

void pz_f32_act16c__scalar(const pz_act *a, float *restrict y, int64_t npix, int64_t c0,
                           int64_t c)
{
    for (int64_t p = 0; p < npix; p++)
        for (int l = 0; l < 16; l++)
            y[p * 16 + l] = c0 + l < c ? pz_act_c_f32(a, y[p * 16 + l], c0 + l) : 0.0f;
}
