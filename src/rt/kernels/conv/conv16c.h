/* conv16c.h - internal to the fast conv kernels: the micro-kernel interface
 * that conv16c_avx512.c and conv16c_avx2.c implement and the ISA-independent
 * driver (conv16c_drive.c) that walks an output row with them.
 *
 * A micro-kernel computes a tile of RW consecutive output pixels of one row
 * times RM blocks of 16 output channels, held in registers, and runs over
 * ncb input blocks x nkh kernel rows x nq contiguous "q" steps. A q step is
 * one (kw, ic) pair: in NCHWxc the inputs of pixel j for kw = 0.. and
 * ic = 0..cblk-1 lie at x[j*ps + kw*cblk + ic], contiguous in q = kw*cblk + ic,
 * and the packed weights of a kernel row are contiguous in q too. So one call
 * covers all taps of a row (interior tiles, q over KW*cblk) or one tap (tiles
 * at the borders, q over cblk), with no branch inside. A call runs ntile
 * tiles of RW pixels one after the other along the row (the call's cost
 * matters when a tile is short, e.g. a 1x1 conv over 16 channels).
 */
#ifndef PZ_CONV16C_H
#define PZ_CONV16C_H

#include "rt/kernels/fast.h"

typedef struct {
    const float *x;         /* input: first block, first kernel row, pixel 0, first q */
    const float *w;         /* weights: first output block, first input block, row, q */
    const float *bias;      /* bias of the first output block, or NULL */
    const float *z;         /* residual at y, or NULL */
    float *y;               /* output: first block, pixel 0 of the tile */
    int64_t xs_cb, xs_h;    /* input strides (floats): block, kernel row (dilated) */
    int64_t ws_mb, ws_cb, ws_h;   /* weight strides: output block, input block, kernel row */
    int64_t ys_mb;          /* output stride between blocks */
    int64_t ps;             /* input pixel stride: sw * cblk */
    int64_t xs_row, ys_row; /* two-row tiles: input and output offsets of the second row */
    int ntile;              /* tiles of this width in a row, one after the other (>= 1) */
    int ncb, nkh, nq;
    int nq_last;            /* q steps in the last input block (fewer when its channels
                             * past C are skipped: one tap, C % 16 != 0) */
    int init;               /* start from the bias (else from y: a later pass) */
    int fin;                /* add z, activation, tail mask: the last pass */
    int act;                /* 0: none, 1: clamp to [lo, hi], 2: the same with hi
                             * infinite (a kernel may take max(lo) alone) */
    float lo, hi;
    int tail_r;             /* output block (0..RM-1) whose lanes >= m are zeroed, or -1 */
    unsigned tail;          /* its mask of valid lanes */
    const float *pf;        /* weights to prefetch, one step every PZ_CONV16C_PF_EVERY
                             * q steps (the first of a run's): a 64-byte line, or RM
                             * (pf_stride), then pf moves on a line */
    int64_t pf_n;           /* how many steps (0: none); a hint, kernels may ignore it */
    int64_t pf_stride;      /* 0: one line a step, pf; else RM lines, pf + r * pf_stride
                             * for r < RM (the k-chunked order's next chunk) */
    const float *w0;        /* the weights' base (the w of pz_conv16c_drive): a bf16
                             * kernel's weights are at (const uint16_t *)w0 + (w - w0)
                             * (conv16c_bf16.h) */
} pz_conv16c_uk_args;

typedef void (*pz_conv16c_uk)(const pz_conv16c_uk_args *a);

/* The prefetch's pace: one line every this many q steps (q = 0, 2, 4, ...
 * of each run). The weights it fetches come from memory in a net. Every q
 * step is too often and every third or fourth too seldom (bench/RESULTS.md,
 * 'conv16c: prefetch pace'); probably the prefetches, which wait on memory,
 * and the tile's own loads from L2 queue for the same fill buffers. */
#define PZ_CONV16C_PF_EVERY 2

/* A set of micro-kernels: pick(psk, rm, rw) for pixel-stride kind psk
 * (0: ps == 16, 1: ps == 32, 2: ps == 6, 3: any ps), rm in [1, max_rm],
 * rw in [1, rwmax[rm]]. pick2 (may be NULL): tiles of rw pixels in each of
 * two output rows (rm in [1, 2], rw in [1, rw2max]), for narrow outputs,
 * where one row alone would reuse each weight load too few times. pickh
 * (may be NULL, or return NULL for a shape it lacks): one-row tiles whose
 * last block (rm - 1) has at most 8 valid lanes, computed in half-width
 * registers; they store zeros in that block's lanes 8..15 on every pass and
 * give the same bits as pick's (the residual's padding lanes being zero), so
 * the two can be mixed within a row. pickb (may be NULL, or return NULL for a
 * shape it lacks): a whole row (rows 1) or pair of rows (rows 2) of rw pixels
 * under a 3-wide kernel, nq = 3 * cblk, every tap in one call; tap 0 skips
 * pixel 0 when lb, tap 2 skips pixel rw - 1 when rb (they lie in the
 * padding; x points at column -1 and those columns are never read). */
typedef struct pz_conv16c_ukset {
    int max_rm;
    int rwmax[5];
    pz_conv16c_uk (*pick)(int psk, int rm, int rw);
    int rw2max;
    pz_conv16c_uk (*pick2)(int psk, int rm, int rw);
    pz_conv16c_uk (*pickh)(int psk, int rm, int rw);   /* half last block */
    pz_conv16c_uk (*pickb)(int psk, int rm, int rw, int rows, int lb, int rb);
    pz_act16c_fn act16c;   /* the epilogue activations that are not a clamp */
} pz_conv16c_ukset;

/* The micro-kernel sets of the ISAs (not in a PZ_SCALAR=1 build); the
 * per-ISA table (cpu.c) hands them out. */
extern const pz_conv16c_ukset pz_conv16c_ukset__avx512;
extern const pz_conv16c_ukset pz_conv16c_ukset__avx2;

/* The driver walks rows of d by pairs (two-row tiles) with set ks: the one
 * rule, for the driver's plan and pz_conv16c_row_step. */
int pz_conv16c_rows_paired(const pz_conv16c_desc *d, const pz_conv16c_ukset *ks);

void pz_conv16c_drive(const pz_conv16c_desc *d, const pz_conv16c_ukset *ks,
                      const float *restrict x, const float *restrict w,
                      const float *restrict b, const float *restrict z, float *restrict y,
                      int ith, int nth);

#endif
