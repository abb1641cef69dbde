/* halo.h - the rows each core computes when an F-Block is split in spatial
 * bands, and the redundant MACs that the overlapping halos cost (DLFusion
 * Fig. 7a).
 *
 * "Rows" are axis 2 of a tensor of rank >= 3: H of NCHW (L of NCL, D of
 * NCDHW). A block split in bands over MP cores works like this:
 *
 *   1. The output rows of the block's last layer are cut into MP contiguous
 *      bands, balanced to one row (halo_band: the runtime's pz_rows_band).
 *      Every other value the block hands to later blocks is cut the same
 *      way over its own rows. A layer whose runtime kernel computes rows in
 *      pairs has a granularity of 2: its bands are balanced to pairs of
 *      rows, and the rows a core computes of it are widened to whole pairs.
 *      Which layers do is the runtime's answer (src/rt/rows.h,
 *      pz_conv_query_make: on AVX-512 a direct conv at most 7 wide; on AVX2
 *      and scalar none), asked for the ISA the run will use (pz_cpu_isa(),
 *      capped by PZ_ISA), and the arithmetic is the runtime's own
 *      (pz_rows_band, pz_rows_align, pz_rows_window, pz_rows_union), so this
 *      count and src/rt/fuse.c's agree (tests/unit/rt_rows.c).
 *   2. Going backwards through the block's layers, each core works out the
 *      rows of every layer's output it must compute: the union (as one
 *      contiguous range) of what its consumers in the block read. A conv or
 *      pool reads a window of input rows (halo_window_rows); element-wise
 *      layers map rows 1:1 (halo_affine_rows with start 0, step 1); a
 *      residual Add (or a Conv with a fused residual input) needs the same
 *      rows of both operands; a broadcast operand of one row needs row 0.
 *   3. Neighbouring cores' ranges overlap by the halo: those rows are
 *      computed twice. A layer's redundant MACs are
 *          (sum over cores of the rows it computes - the rows it has) * MACs per row,
 *      which is DLFusion's "sum over cores - the layer's MACs" (rows no core
 *      needs, e.g. those a stride-2 1x1 conv skips, are not computed at all
 *      and do not count as negative).
 *   Within a core's band the block runs depth-first in strips of the last
 *   layer's rows, keeping each layer's rows in rolling line buffers, so
 *   strips add no recomputation. A channel split (every core computes all
 *   rows of a share of the channels) has none either.
 *
 * A layer is row-local when each output row depends on a bounded window of
 * input rows: conv, pooling (not global), BatchNorm, activations,
 * element-wise arithmetic, LRN, Cast, Concat/Split/Transpose/Softmax/
 * ReduceMean not on the row axis, Slice with a positive step, constant Pad,
 * and Identity-like copies that keep the shape. Gemm/MatMul, global pooling,
 * Reshape/Flatten, softmax over the rows, ConvTranspose, Gather and Resize
 * are not; a block holding one cannot be split in bands.
 *
 *   halo_report r;
 *   if (halo_block(m, first, count, mp, &r) == 0) ... r.redundant_macs ...
 *   halo_report_free(&r);
 */
#ifndef PZ_OPT_HALO_H
#define PZ_OPT_HALO_H

#include "../ir/model.h"

/* ---- row arithmetic (the runtime's, src/rt/rows.h, under these names) ----- */

/* Band ith of nth over `rows` rows: [*lo, *hi), contiguous, the first
 * rows % nth bands one row longer. */
void halo_band(int64_t rows, int ith, int nth, int64_t *lo, int64_t *hi);

/* Input rows a sliding window (conv, pool) reads to make output rows
 * [lo, hi): output row r reads input rows r*stride - pad_begin + j*dilation
 * for j in [0, kernel); the union over [lo, hi), clamped to [0, in_rows)
 * (rows in the padding are not read). An empty [lo, hi) gives [0, 0). */
void halo_window_rows(int64_t lo, int64_t hi, int64_t kernel, int64_t stride, int64_t pad_begin,
                      int64_t dilation, int64_t in_rows, int64_t *in_lo, int64_t *in_hi);

/* Input rows for output rows [lo, hi) of an affine row map, output row r
 * reading input row start + r*step (step >= 1): element-wise layers
 * (start 0, step 1), Slice (its start and step), constant Pad (start = -pad
 * rows before). Clamped to [0, in_rows); empty gives [0, 0). */
void halo_affine_rows(int64_t lo, int64_t hi, int64_t start, int64_t step, int64_t in_rows,
                      int64_t *in_lo, int64_t *in_hi);

/* ---- per layer ------------------------------------------------------------ */

/* 1 if model layer l is row-local (see above); else 0 and, if why is not
 * NULL, a reason ("Gemm is not row-local", ...) in why[size]. */
int halo_layer_row_local(const ir_model *m, int l, char *why, size_t size);

/* Rows [*in_lo, *in_hi) of input k of model layer l (k indexes the layer's
 * runtime inputs, as the op lowers them) that output rows [lo, hi) read.
 * Returns 1 if input k has rows that depend on the output rows, 0 if it does
 * not (a weight, a bias, an operand without the row axis). The layer must be
 * row-local. */
int halo_layer_input_rows(const ir_model *m, int l, int k, int64_t lo, int64_t hi,
                          int64_t *in_lo, int64_t *in_hi);

/* ---- per block ------------------------------------------------------------ */

typedef struct {
    int64_t macs;             /* the layer's MACs (DLFusion Eq. 1/2) */
    int64_t rows;             /* rows of its output */
    int64_t rows_computed;    /* sum over the cores of the rows each computes */
    int64_t redundant_macs;   /* MACs of the rows computed more than once */
    int64_t row_step;         /* rows its kernel computes together (4: Winograd's tile
                               * rows, 2: two-row tiles, 1); 0 when not row-local */
} halo_layer_cost;

typedef struct {
    int row_local;            /* every layer is row-local: bands are possible */
    int bad_layer;            /* if not, the first layer that is not (model index), else -1 */
    char why[240];            /* ... and why */
    int64_t macs;             /* MACs of the block's layers */
    int64_t redundant_macs;   /* extra MACs of bands over mp cores (0 if not row-local) */
    int n_layers;
    halo_layer_cost *layers;  /* [n_layers], owned: halo_report_free */
} halo_report;

/* Redundant MACs of layers [first, first + count) of m split in bands over
 * mp cores. Fills r (free it with halo_report_free); a block that is not
 * row-local gets row_local = 0, the layer and the reason, and 0 redundant
 * MACs. first/count/mp must be in range (checked: internal error). */
void halo_block(const ir_model *m, int first, int count, int mp, halo_report *r);
void halo_report_free(halo_report *r);

/* The rows of each layer's output that core ith of nth computes when layers
 * [first, first + count) are split in bands: rows[2*k], rows[2*k + 1] for
 * layer first + k (equal when the core computes none of them). The block
 * must be row-local. */
void halo_block_rows(const ir_model *m, int first, int count, int ith, int nth, int64_t *rows);

#endif
