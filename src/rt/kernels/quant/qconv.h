/* qconv.h - the QCONV layer's reference kernel (qconv_ref.c): ConvInteger
 * and QLinearConv. Issue 41's VNNI kernels will sit beside it, tested
 * against it. */
#ifndef PZ_RT_KERNELS_QUANT_QCONV_H
#define PZ_RT_KERNELS_QUANT_QCONV_H

#include "rt/kernels/kernels.h"

/* X [N, C, xsp...], W [M, C / group, kernel...] int8/uint8 -> Y [N, M,
 * ysp...]: the exact integer convolution of (X - xzp) and (W - wzp) (wzp
 * per tensor or per M), plus B (int32) when given; ConvInteger stores it
 * as int32, QLinearConv requantises it as the QMATMUL kernel does (w's
 * scale may be per M). Worker ith of nth takes a slice of Y. */
typedef struct {
    int tx, tw, ty, ts;               /* X, W, Y, scales */
    int64_t N, C, M;
    int64_t xsp[PZ_MAX_SPATIAL], ysp[PZ_MAX_SPATIAL];
    int wzp_per_m, ws_per_m;
} pz_qconv_desc;
typedef struct {
    const void *xzp, *wzp;            /* of X's and W's types, may be NULL */
    const void *xs, *ws, *ys, *yzp;   /* QLinearConv; yzp of Y's type */
    const int32_t *b;                 /* may be NULL */
} pz_qconv_args;
void pz_any_qconv__ref(const pz_qconv_params *p, const pz_qconv_desc *d, const void *x,
                       const void *w, const pz_qconv_args *a, void *y, int ith, int nth);

#endif
