/* conv16c_plan.h - internal to conv16c_drive.c and conv16c_plan.c: how the
 * driver walks a layer (register tile, row cuts, border passes, k-chunks),
 * worked out once per call by conv16c_plan.c and followed by conv16c_drive.c. */
#ifndef PZ_CONV16C_PLAN_H
#define PZ_CONV16C_PLAN_H

#include "rt/kernels/conv/conv16c.h"

/* Weights up to this many bytes (half of a 2 MB L2) stay in L2 over a
 * layer's rows (the row-major order below). */
#define PZ_CONV16C_L2_WEIGHTS (1024 * 1024)

/* The k-chunked order (plan_chunks): chunks of about this many bytes of a
 * group's weights. */
#define PZ_CONV16C_CHUNK_BYTES (32 * 1024)


static inline int64_t cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The passes over a border segment [s0, s1) of a row: pass kw covers
 * [ra[kw], rb[kw]) (its valid pixels); the widest goes first (it
 * initialises) and the next widest last (it finishes). The same for every
 * row, so worked out once per call. */
typedef struct {
    int64_t s0, s1;
    int64_t ra[64], rb[64];
    int first, last;         /* -1: no pass (every pixel from the fix-ups) */
} pz_conv16c_passes;

typedef struct {
    const pz_conv16c_desc *d;
    const pz_conv16c_ukset *ks;
    int64_t mb, cb, cbk;     /* output blocks, input blocks, input block size */
    int rm, rwmax, psk;      /* register tile: rm output blocks x up to rwmax pixels */
    int64_t groups;          /* ceil(mb / rm) */
    int flat;                /* 1x1 stride 1 unpadded: one row of H*W pixels */
    int rows2;               /* narrow output: tiles span two rows */
    int64_t L, R;            /* a row's cuts: [0, L) and [R, OW) by passes */
    pz_conv16c_passes seg[2];        /* their passes */
    int border, lb, rb;      /* a 3-wide kernel over rows of one tile: every tap in one
                              * call, tap 0 skipping the first pixel (lb), tap 2 the
                              * last (rb); see plan_border */
    int edge[2];             /* [0, L) / [R, OW) as one border tile (plan_edges) */
    int64_t kc;              /* input blocks per chunk (cb: none; see plan_chunks) */
    int prefetch;            /* the weights outgrow L2: each unit prefetches a share
                              * of the next group's (see pz_conv16c_drive) */
    pz_conv16c_uk_args tmpl; /* the micro-kernel arguments common to all rows */
} pz_conv16c_plan;

/* The tile, the row cuts and the micro-kernel arguments common to all rows
 * (plan_init, then plan_rows once p->flat is set). */
void pz_conv16c_plan_init(pz_conv16c_plan *p, const pz_conv16c_desc *d,
                          const pz_conv16c_ukset *ks);
void pz_conv16c_plan_rows(pz_conv16c_plan *p);
/* The k-chunked order for weights of wfloats floats, or none (no_chunks). */
void pz_conv16c_plan_chunks(pz_conv16c_plan *p, int64_t wfloats);
void pz_conv16c_no_chunks(pz_conv16c_plan *p);

#endif
