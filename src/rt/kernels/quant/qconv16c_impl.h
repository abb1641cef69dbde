/* qconv16c_impl.h - internal to qconv16c*.c: the plan's layout and the
 * micro-kernel interface of the int8 NCHW16c convolution (qconv16c.h).
 *
 * Packed weights: [ceil(M/16)][ceil(C/16)][KH][KW][4][16][4] int8: for each
 * output block, input block and tap, 4 groups of 4 input channels, each 16
 * output channels x 4 consecutive input channels (64 bytes, one ZMM): what
 * vpdpbusd multiplies with a dword of 4 input channels broadcast. Zero where
 * c >= C or m >= M.
 *
 * The AVX2 kernel's copy (w16, only in its plans): [ceil(M/16)][ceil(C/16)]
 * [KH][KW][4][2][16][2] int16: for each dword of 4 input channels c0..c3, the
 * pairs (c0, c2) then (c1, c3) of 16 output channels, what vpmaddwd
 * multiplies with the dword's bytes widened in place (x & 0x00ff00ff, x >>
 * 8 in 16-bit lanes). int16, not vpmaddubsw's bytes: its pair sums of u8 x
 * s8 saturate at 16 bits (255 * 127 * 2 > 32767), this is exact.
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
#include "rt/kernels/quant/qdq.h"
#include "rt/kernels/quant/qisa.h"

/* bytes of packed weights per (output block, input block, tap): int8, int16 */
#define QC_TAP 256
#define QC_TAP16 512

/* A micro-kernel set: the kernel for rm blocks x rw pixels, input pixel
 * stride kind psk, int8 x (xs); see pz_qconv16c_uk below. */
typedef struct pz_qconv16c_uk_args pz_qconv16c_uk_args;
typedef void (*pz_qconv16c_uk)(const pz_qconv16c_uk_args *a);
typedef pz_qconv16c_uk (*pz_qconv16c_pick)(int rm, int rw, int psk, int xs);

/* A residual's add (desc.zsum), as QADD computes it (qdq.h): q's A and B
 * are y and z, or z and y when the conv is its B (z_b); r its ratios; lo,
 * hi its clamp as floats (the type's range, Relu: from s_zp). */
typedef struct {
    pz_qadd_args q;
    pz_qadd_ratios r;
    float lo, hi;
    int z_b;
} pz_qconv16c_sum;

struct pz_qconv16c_plan {
    pz_qconv16c_desc d;
    pz_qconv16c_sum sum;     /* when d.zsum */
    pz_q8_kernel kern;       /* the kernel set that runs (qisa.h) */
    pz_qconv16c_pick pick;   /* its micro-kernels; NULL for the scalar twin */
    const int8_t *wk;        /* the packing they read: w or w16 */
    int64_t tapb;            /* its bytes per tap: QC_TAP or QC_TAP16 */
    int64_t mb, cb;          /* output and input blocks */
    int rm, rw;              /* register tile: rm output blocks x up to rw pixels */
    int rwc;                 /* the same, column tiles (border columns) */
    int nq4_last;            /* dwords of 4 channels read in the last input block */
    uint32_t xflip;          /* 0x80808080 for an int8 x (to uint8), else 0 */
    int8_t *w;               /* packed, above */
    int16_t *w16;            /* the AVX2 copy, above; NULL in other plans */
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
struct pz_qconv16c_uk_args {
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
    const uint8_t *z;        /* the residual at y's offset, or NULL */
    const pz_qconv16c_sum *sum;
};

/* The VNNI micro-kernel of rm blocks (1..4) x rw pixels (1..rwmax[rm]),
 * input pixel stride kind psk (0: 16 bytes, 1: 32, 2: any), int8 x (xs). */
extern const int pz_qconv16c_rwmax__avx512vnni[5];
pz_qconv16c_uk pz_qconv16c_pick__avx512vnni(int rm, int rw, int psk, int xs);
/* The AVX2 micro-kernels (vpmaddwd on w16): rm 1..2 x rw 1..rwmax[rm]. */
extern const int pz_qconv16c_rwmax__avx2[3];
pz_qconv16c_uk pz_qconv16c_pick__avx2(int rm, int rw, int psk, int xs);
/* The AVX-VNNI micro-kernels (vpdpbusd on YMM, on w): the AVX2 tiles. */
extern const int pz_qconv16c_rwmax__avxvnni[3];
pz_qconv16c_uk pz_qconv16c_pick__avxvnni(int rm, int rw, int psk, int xs);

/* The body of a SIMD micro-kernel's tile between its bias and its epilogue
 * (all of them): the runs (cb, kh, kw) of the tile as one loop with the
 * pointers xw, ww stepped, the 4 steps of a run straight (around nested
 * loops, or steps under conditions, gcc spilled accumulators in the loop:
 * bench/RESULTS.md, 'qconv16c: spills'). The includer defines STEP(Q) (a
 * step of dword Q at xw, ww) and STEP_AT(XP, WP, Q), and declares a, xs_*,
 * ws_*, ncb, nkh, nkw; TAPB is its weights' bytes per tap. The last input
 * block reads only its dwords holding channels < C (one for C = 3), in a
 * loop of its own; C <= 4 (a stem) takes one step a tap, a kernel row's taps
 * in a loop of their own (the run loop's stepping cost as much as a step). */
#define QC_ADVANCE(TAPB)                  \
    do {                                  \
        if (++kw < nkw) {                 \
            xw += xs_w;                   \
            ww += (TAPB);                 \
        } else if (kw = 0, ++kh < nkh) {  \
            xw += dxh;                    \
            ww += dwh;                    \
        } else {                          \
            kh = 0;                       \
            xw += dxc;                    \
            ww += dwc;                    \
        }                                 \
    } while (0)
#define QC_TILE_RUNS(TAPB)                                                                 \
    const int64_t dxh = xs_h - (nkw - 1) * xs_w, dwh = ws_h - (int64_t)(nkw - 1) * (TAPB); \
    const int64_t dxc = xs_cb - (nkh - 1) * xs_h - (nkw - 1) * xs_w;                       \
    const int64_t dwc = ws_cb - (nkh - 1) * ws_h - (int64_t)(nkw - 1) * (TAPB);            \
    const int nq_last = a->nq4_last, nfull = nq_last == 4 ? ncb : ncb - 1;                 \
    const uint8_t *xw = a->x;                                                              \
    const int8_t *ww = a->w;                                                               \
    int kw = 0, kh = 0;                                                                    \
    if (ncb == 1 && nq_last == 1) {                                                        \
        for (kh = 0; kh < nkh; kh++) {                                                     \
            const uint8_t *xk = xw;                                                        \
            const int8_t *wk = ww;                                                         \
            for (kw = 0; kw < nkw; kw++) {                                                 \
                STEP_AT(xk, wk, 0);                                                        \
                xk += xs_w;                                                                \
                wk += (TAPB);                                                              \
            }                                                                              \
            xw += xs_h;                                                                    \
            ww += ws_h;                                                                    \
        }                                                                                  \
    } else {                                                                               \
        for (int i = 0, nrun = nfull * nkh * nkw; i < nrun; i++) {                         \
            STEP(0);                                                                       \
            STEP(1);                                                                       \
            STEP(2);                                                                       \
            STEP(3);                                                                       \
            QC_ADVANCE(TAPB);                                                              \
        }                                                                                  \
        if (nfull < ncb)                                                                   \
            for (int i = 0, nrun = nkh * nkw; i < nrun; i++) {                             \
                for (int q = 0; q < nq_last; q++) STEP(q);                                 \
                QC_ADVANCE(TAPB);                                                          \
            }                                                                              \
    }

/* The scalar twin: output rows [r0, r1) (pz_qconv16c_run_rows). */
void pz_qconv16c_run__scalar(const pz_qconv16c_plan *p, const uint8_t *x, const uint8_t *z,
                             uint8_t *y, int64_t r0, int64_t r1, int ith, int nth);

/* The residual's add on 16 bytes of requantized y, in place: QADD's kernel
 * for the ISA (fn), its operands in its order. */
static inline void pz_qconv16c_sum16(pz_qadd_fn fn, const pz_qconv16c_sum *s, uint8_t *y,
                                     const uint8_t *z)
{
    if (s->z_b) fn(16, &s->q, z, y, y);
    else fn(16, &s->q, y, z, y);
}

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
