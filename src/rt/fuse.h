/* fuse.h - depth-first fused execution of an F-Block (issue 5), internal to
 * the runtime (net.c calls it; tests look at its plan).
 *
 * A block's layers are cut into segments: runs of consecutive row-local
 * layers, executed depth-first, and single layers executed as before (one
 * fork-join each). A layer is row-local here when
 *   - its op offers row ranges for the kernel prepare chose (pz_rt_op.rows,
 *     .run_rows: the fast NCHW16c conv, Winograd and depthwise conv, 2-D
 *     pooling on NCHW16c, blocked unary and same-shaped binary layers),
 *   - it has one output, rank 4, NCHW16c, and asks for no arena scratch
 *     (or only for its whole-layer run: l->scratch_run_only; a scratch its
 *     row ranges need, l->row_scratch_bytes, the run allocates per worker),
 *   - every input it converts (layout) comes from outside the run,
 *   - it is not a conv or pool with one output row that reads several rows
 *     of the run (a global pool: strips count the last layer's rows, so
 *     the run would be one strip, with no row windows).
 * Everything else (Gemm, global pooling, reshapes, the reference kernels,
 * ...) runs layer by layer. A Winograd conv computes whole rows of its 4x4
 * output tiles (row granularity 4, the tiles of the whole layer: the same
 * bits), reading its input's window of them (tile rows + 2 for 3x3 pad 1);
 * a strip of the last layer's rows is rounded up to its granularity.
 *
 * A run of two or more layers computes its last layer's output rows in strips
 * of `strip` rows. For each strip, going backwards, each earlier layer is
 * asked for the rows its consumers in the run need (a conv or pool: its
 * kernel, stride, padding and dilation; element-wise and a conv's residual:
 * the same rows), and computes only the rows it has not computed yet (rolling:
 * what earlier strips made stays in its buffer). Layers whose output is read
 * after the run keep pace: their share of rows grows with the strips.
 *
 * Row windows. An intermediate that a layer with a run_window (CONV: direct
 * or depthwise) writes, without a residual Z, and that only such layers of
 * the run read, as their input 0, lives
 * in a small window buffer and has no arena buffer at all: the rows one
 * strip needs (those it computes and the halo rows its readers read again),
 * allocated at compile (the most any strip needs), reused strip after strip:
 * when a strip needs rows past its end the window moves down and the halo
 * rows move with it (a memmove of a few rows). So a MobileNetV2 expand output
 * (4.8 MB at 112x112x96) is a few hundred KB that stays in L2 and never goes
 * to memory. The conv kernels see a window as a tensor of its rows, shifted
 * (the op's run_window, rt/op_desc.h: pz_rowwin). The run options'
 * fuse_windows = 0 (PZ_FUSE_WINDOWS=0) turns windows off (full-size buffers:
 * for A/B measurements).
 *
 * Over MP workers (one fork-join for the whole run):
 *   channels  every worker walks the same strips; each layer's rows of a
 *             strip are split by the kernel over (output-channel group, row)
 *             units, then a spin barrier; nothing is recomputed.
 *   bands     worker w takes a contiguous band of the last layer's rows and
 *             computes, strip by strip, the rows its band needs of every
 *             earlier layer, halo included (recomputed: counted as redundant
 *             MACs, the count src/opt/halo.c makes: bands balanced in units
 *             of a layer's row granularity, both by rt/rows.h's rules). No races: each worker has its
 *             own windows; worker 0 writes the other intermediates into the
 *             arena, worker w > 0 into its own private full-size copies
 *             (allocated at compile); only the last layer, whose bands are
 *             disjoint, writes the shared output, and each worker's owned
 *             rows of an intermediate read after the run are copied into the
 *             arena at the end.
 *   auto      bands when allowed and the redundant MACs are at most 30% of
 *             the run's MACs, else channels; and on more than one core a run
 *             ends before a conv or pool with a kernel taller than one row
 *             that reads an intermediate of the run small enough for L2
 *             (fuse.c: cut_before).
 * Every output element is computed by the same kernel in the same summation
 * order as unfused execution, so results are bitwise equal.
 */
#ifndef PZ_RT_FUSE_H
#define PZ_RT_FUSE_H

#include "rt/net.h"

typedef struct pz_fuse_block pz_fuse_block;

/* Plans block [first, first + count) of layers[] (after every prepare).
 * last_use[id]: the last layer reading tensor id (n_layers for a graph
 * output). Returns NULL with a message in err only when out of memory. */
pz_fuse_block *pz_fuse_plan(pz_layer *layers, int n_layers, const int *last_use, int first,
                            int count, int mp, pz_split_mode split, int strip, char *err,
                            size_t n);
void pz_fuse_free(pz_fuse_block *fb);

/* Widens a lifetime [*first, *last] (in layers) that meets a fused run to
 * cover the whole run: its layers run interleaved. */
void pz_fuse_widen(const pz_fuse_block *fb, int *first, int *last);

/* 1 when layer `layer`'s output lives only in row windows of a fused run
 * of this block: no full-size buffer is read or written, so the arena
 * gives it none (net.c: plan_arena). */
int pz_fuse_windowed(const pz_fuse_block *fb, int layer);

/* Runs the block: single layers through single(ctx, layer), runs fused on
 * pool's workers. With profile, each layer of a fused run gets the time
 * worker 0 spent on its rows (strip by strip, with its barriers). */
void pz_fuse_block_run(pz_fuse_block *fb, pz_layer *layers, pz_pool *pool, pz_barrier *bar,
                       void (*single)(void *ctx, int layer), void *ctx, int profile);

/* What the plan is: fused runs, layers in them, the split used by the first
 * run (PZ_SPLIT_BANDS or PZ_SPLIT_CHANNELS; AUTO when there is no run), its
 * strip, and the redundant MACs executed (bands) and all MACs of the runs. */
typedef struct {
    int runs, fused_layers;
    pz_split_mode split;
    int strip;
    int64_t redundant_macs, macs;
    int windows;             /* intermediates held in row windows (all runs) */
    int64_t window_bytes;    /* their bytes, one worker's set */
    int64_t full_bytes;      /* what full-size buffers of them would take */
} pz_fuse_info;
void pz_fuse_get_info(const pz_fuse_block *fb, pz_fuse_info *info);
/* The same for block b of a compiled net (net.c; all zero for a bad b). */
void pz_net_block_fuse_info(const pz_net *net, int b, pz_fuse_info *info);

#endif
