/* rows.h - the rows geometry of the runtime's layers, and what the runtime
 * will do with a configured conv or pool: one definition of each rule.
 *
 * "Rows" are axis 2 of a tensor (H of NCHW). A fused F-Block (rt/fuse.c)
 * computes its layers in row ranges, and src/opt/halo.c counts the rows its
 * bands recompute; both need the same facts, so both ask here:
 *
 *   - which input rows a window (conv, pool) reads for a range of output
 *     rows (pz_rows_window);
 *   - how rows are cut among workers when a layer's kernel computes them in
 *     steps of several rows (pz_rows_band, pz_rows_align);
 *   - how many rows several workers' ranges cover together (pz_rows_union);
 *   - which kernel a conv will run, whether that kernel computes row ranges
 *     at all and in steps of how many rows (two-row tiles: the kernel's own
 *     rule, pz_conv16c_row_step), and whether Winograd applies
 *     (pz_conv_query, ops/conv.c); the same for a pool (pz_pool_query,
 *     ops/pool.c).
 *
 * The runtime decides with these functions (ops/conv.c's prepare and rows,
 * ops/pool.c, fuse.c), and the compiler asks them instead of re-deriving the
 * rules (src/opt/halo.c, src/opt/algo.c and through them `paleozoic
 * inspect`): what the runtime will do is the truth. The answers depend on the
 * instruction set (pass the net's: pz_isa_capped(opts->isa), rt/cpu.h):
 * AVX-512 has two-row tiles, AVX2 and the scalar kernels do not.
 *
 *   pz_conv_query q;
 *   pz_conv_query_make(&params, xdims, ydims, 1, pz_cpu_isa(), &q);
 *   if (q.row_step) ... rows go in units of q.row_step; q.kernel names the path
 *
 * Pure functions: no allocation, no globals; the run options' A/B switches
 * (winograd, conv8x2, subsample) come in pz_conv_query_opts's opts.
 */
#ifndef PZ_RT_ROWS_H
#define PZ_RT_ROWS_H

#include <stdint.h>

#include "rt/kernels/fast.h"
#include "rt/pz_rt.h"

/* ---- row arithmetic ------------------------------------------------------ */

/* Input rows [*in_lo, *in_hi) that output rows [lo, hi) read through a
 * sliding window: output row r reads input rows r*stride - pad_begin +
 * j*dilation for j in [0, kernel); the union over [lo, hi), clamped to [0,
 * in_rows) (rows in the padding are not read). Empty gives [0, 0). */
void pz_rows_window(int64_t lo, int64_t hi, int64_t kernel, int64_t stride, int64_t pad_begin,
                    int64_t dilation, int64_t in_rows, int64_t *in_lo, int64_t *in_hi);

/* [*lo, *hi) widened to whole units of `step` rows (units start at row 0),
 * within [0, rows). An empty range stays as it is. */
void pz_rows_align(int64_t step, int64_t rows, int64_t *lo, int64_t *hi);

/* Worker ith of nth's share of `rows` rows computed in units of `step`:
 * the units balanced by pz_split (the first units % nth shares one unit
 * longer), in rows, within [0, rows). ith == nth gives [rows, rows). */
void pz_rows_band(int64_t rows, int64_t step, int ith, int nth, int64_t *lo, int64_t *hi);

/* Rows covered by the union of n ranges r[2i], r[2i + 1] (sorted in place by
 * their starts). The rows computed more than once by n workers are the sum of
 * their lengths minus this. */
int64_t pz_rows_union(int64_t *r, int n);

/* ---- a configured conv ---------------------------------------------------- */

/* The kernel a CONV layer runs (ops/conv.c's prepare chooses it, fastest
 * first; the top of ops/conv.c says when each applies). */
typedef enum {
    PZ_CONV_PATH_REF,        /* the reference kernel on plain NCHW */
    PZ_CONV_PATH_DIRECT,     /* the fast NCHW16c conv2d (conv16c_drive.c) */
    PZ_CONV_PATH_DIRECT8X2,  /* AVX-512 1x1 to 8 mod 16 channels (conv8x2.h) */
    PZ_CONV_PATH_DIRECT_SUB, /* strided 1x1: subsample + flat conv (row ranges: conv2d) */
    PZ_CONV_PATH_DW,         /* depthwise 3x3 */
    PZ_CONV_PATH_DWK,        /* depthwise of another kernel */
    PZ_CONV_PATH_GROUPED,    /* grouped, by super-groups of 16-channel blocks */
    PZ_CONV_PATH_WINOGRAD,   /* Winograd F(4x4, 3x3) */
    PZ_CONV_PATH_SPARSE,     /* block-sparse direct (the sparsity knob, spconv16c.h) */
    PZ_CONV_PATH_FRAMES,     /* 1-D, 3-D group 1 or depthwise: per output frame (conv_frames.h) */
} pz_conv_path;

typedef struct {
    pz_conv_path path;
    const char *kernel;      /* the name prepare gives the layer (pz_layer.kernel) */
    int winograd_applies;    /* Winograd could run it (the algo knob may still say direct) */
    int row_step;            /* row ranges (fused runs): computed in units of this many
                              * rows (2: two-row tiles), 0: the kernel has none */
    pz_conv16c_desc d;       /* the fast kernels' descriptor (not for REF) */
} pz_conv_query;

/* What prepare will choose for a CONV with params p (its algo knob
 * included), X dims xd and Y dims yd, on instruction set isa. x_blocked: X
 * arrives in NCHW16c (made by a fast layer; an input with at most 4
 * channels is then read blocked, not as NHWC). w_const: the weights (and
 * bias) are constant (the fast paths pack them at compile; otherwise REF).
 * Returns q->path. */
pz_conv_path pz_conv_query_make(const pz_conv_params *p, int rank, const int64_t *xd,
                                const int64_t *yd, int x_blocked, int w_const, pz_isa isa,
                                pz_conv_query *q);
/* The same under run options opts (NULL: the defaults, as pz_conv_query_make). */
pz_conv_path pz_conv_query_opts(const pz_conv_params *p, int rank, const int64_t *xd,
                                const int64_t *yd, int x_blocked, int w_const, pz_isa isa,
                                const pz_run_options *opts, pz_conv_query *q);

/* Winograd applies to the conv of descriptor d on isa: the kernel takes it
 * (pz_winograd_ok: 3x3, stride 1, dilation 1, group 1, 16-channel input
 * blocks, so any C >= 5, or fewer from a blocked input) and the ISA has it
 * (AVX-512 only). */
int pz_conv_winograd_applies(const pz_conv16c_desc *d, pz_isa isa);

/* Groups per super-group of a GROUPED conv (the top of ops/conv.c), 0 when
 * no super-group of at most GROUP_MAX_K groups fills whole blocks. */
int64_t pz_conv_grouped_k(const pz_conv_params *p, const int64_t *xdims, const int64_t *ydims);

/* ---- a configured pool ---------------------------------------------------- */

/* Row step of a POOL (1: the fast NCHW16c kernel, which computes row ranges;
 * 0: the reference kernel, which does not) for params p, X of rank `rank`
 * and dims xd, Y dims yd, element type dtype, with an Indices output or not. */
int pz_pool_query_row_step(const pz_pool_params *p, int rank, const int64_t *xd,
                           const int64_t *yd, pz_dtype dtype, int indices, pz_isa isa);

#endif
