/* qconv16c_impl.h - internal to qconv16c*.c: the plan's layout and the
 * micro-kernel interface of the int8 NCHW16c convolution (qconv16c.h).
 *
 * Packed weights: [ceil(M/16)][ceil(C/16)][KH][KW][4][16][4] int8: for each
 * output block, input block and tap, 4 groups of 4 input channels, each 16
 * output channels x 4 consecutive input channels (64 bytes, one ZMM): what
 * vpdpbusd multiplies with a dword of 4 input channels broadcast. Zero where
 * c >= C or m >= M.
 *
 * Pixel classes: a pixel's taps inside the image are a rectangle, kernel
 * rows [khlo, khhi) x columns [kwlo, kwhi), fixed by its output row (row
 * class) and column (column class). The bias of a class is b'[m] = b[m] -
 * x_zp * (sum of w[m] over the rectangle), so the kernels skip the taps
 * outside and read no padding.
 */
#ifndef PZ_RT_KERNELS_QUANT_QCONV16C_IMPL_H
#define PZ_RT_KERNELS_QUANT_QCONV16C_IMPL_H

#include "rt/kernels/quant/qconv16c.h"

/* bytes of packed weights per (output block, input block, tap) */
#define QC_TAP 256

struct pz_qconv16c_plan {
    pz_qconv16c_desc d;
    int vnni;                /* run the VNNI kernel (else the scalar twin) */
    int64_t mb, cb;          /* output and input blocks */
    int rm, rw;              /* register tile: rm output blocks x up to rw pixels */
    int rwc;                 /* the same, column tiles (border columns) */
    int nq4_last;            /* dwords of 4 channels read in the last input block */
    uint32_t xflip;          /* 0x80808080 for an int8 x (to uint8), else 0 */
    int8_t *w;               /* packed, above */
    float *mult, *flo, *fhi; /* [mb*16]: multiplier and clamp (lo - y_zp, hi - y_zp)
                              * per channel; 0, 0, 0 past M (so those lanes get y_zp) */
    int32_t *bias;           /* [nrc][ncc][mb*16] class biases, zero past M */
    int nrc, ncc;
    int *rcls, *khlo, *khhi; /* per output row: class, kernel rows inside */
    int *ccls, *kwlo, *kwhi; /* per output column */
    int64_t T, B, L, R;      /* rows [T, B) and columns [L, R) see every tap */
    int flat;                /* 1x1, stride 1, no padding: the image is one row of
                              * H*W pixels, in spans of span pixels */
    int64_t span;
};

/* One micro-kernel call: a tile of RW pixels (input pixel j at x + j*xps,
 * output at y + j*yps) x RM output blocks, over ncb input blocks x nkh
 * kernel rows x nkw kernel columns x 4 dwords (nq4_last in the last input
 * block); bias, mult, flo, fhi of the tile's first block, RM*16 each. All
 * strides in bytes. */
typedef struct {
    const uint8_t *x;
    const int8_t *w;
    const int32_t *bias;
    const float *mult, *flo, *fhi;
    uint8_t *y;
    int64_t xps, yps;
    int64_t xs_cb, xs_h, xs_w;
    int64_t ws_mb, ws_cb, ws_h;
    int64_t ys_mb;
    int ncb, nkh, nkw, nq4_last;
    int32_t yzp;
    uint32_t xflip;
} pz_qconv16c_uk_args;

typedef void (*pz_qconv16c_uk)(const pz_qconv16c_uk_args *a);

/* The VNNI micro-kernel of rm blocks (1..4) x rw pixels (1..rwmax[rm]),
 * input pixel stride kind psk (0: 16 bytes, 1: 32, 2: any), int8 x (xs). */
extern const int pz_qconv16c_rwmax__avx512vnni[5];
pz_qconv16c_uk pz_qconv16c_pick__avx512vnni(int rm, int rw, int psk, int xs);

/* The scalar twin: output rows [r0, r1) (pz_qconv16c_run_rows). */
void pz_qconv16c_run__scalar(const pz_qconv16c_plan *p, const uint8_t *x, uint8_t *y,
                             int64_t r0, int64_t r1, int ith, int nth);

/* The requantization of one lane, the operations of the VNNI epilogue in
 * its order (qconv16c.h): vmaxps/vminps take the second operand on a NaN,
 * and the conversions round to nearest even. */
static inline uint8_t pz_qconv16c_requant(int32_t acc, float mult, float flo, float fhi,
                                          int32_t yzp)
{
    float f = (float)acc * mult;
    f = f > flo ? f : flo;
    f = f < fhi ? f : fhi;
    return (uint8_t)(uint32_t)((int32_t)__builtin_nearbyintf(f) + yzp);
}

#endif
