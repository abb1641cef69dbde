/* mask_out.h - a CONV's, GEMM's or MATMUL's bool output: the passes fused
 * Cmp(y, c) [-> Not] (select.c's pass_fuse_mask), the comparison carried by
 * the act (SELECT with both branches 1 y, which leaves y as it is: pz_act's
 * cmp, t, sel bit 4 the Not) and c one threshold (act.t) or one per
 * channel (input 4: a conv's M, a GEMM's N columns). The layer stores each
 * value v of its float epilogue as the byte (v cmp c) ^ not, in the plain
 * layout its readers take (NaN compares false, as COMPARE's).
 *
 * Tiles (the convs with row windows: conv.c's mask_init; the packed fp32
 * and bf16 GEMMs): each worker computes its share of rows a tile at a time
 * into its own float buffer (at most PZ_MASK_TILE_BYTES: it stays in L2)
 * and stores the tile's bytes, so the float output never goes to memory.
 * Whole (every other kernel): the kernel writes a float copy of the whole
 * output into a buffer of the layer's own, and after a barrier each worker
 * stores its share of bytes.
 *
 *   pz_mask_out *m = pz_mask_out_new(l, &act, channels, tile_floats, whole_floats);
 *   ... in run: the kernel into pz_mask_tile(m, ith), then pz_mask_store_*;
 *   pz_mask_out_free(m);
 */
#ifndef PZ_RT_MASK_OUT_H
#define PZ_RT_MASK_OUT_H

#include "rt/kernels/gemm/gemm_bf16.h"
#include "rt/ops/ops.h"
#include "rt/pool.h"

#define PZ_MASK_TILE_BYTES (256 * 1024)

typedef struct {
    pz_barrier bar;   /* first: aligned as the barrier wants */
    float *buf;       /* nth tiles of `tile` floats, or the whole float output */
    int64_t tile;     /* floats of one worker's tile; 0: whole */
    int cmp, neg;     /* v cmp t (a pz_compare_func), then negated (a Not) */
    float t;          /* the threshold, when tc is NULL */
    float *tc;        /* one threshold per channel, or NULL */
    int fast;         /* the SSE2 NCHW16c store (not at PZ_ISA=scalar, ref: the C twin) */
} pz_mask_out;

/* Whether layer l writes a bool mask: Y bool. Checks its act (SELECT, both
 * branches 1 y) and input 4 (absent, or nch constant float32 thresholds),
 * failing the layer otherwise (-1); 1 when it is a mask, 0 when Y is
 * something else. */
int pz_mask_out_check(const pz_layer *l, const pz_act *a, int64_t nch, char *err, size_t n);

/* The mask of layer l (checked) with nch channels: tile > 0, nth tiles of
 * tile floats; else one buffer of whole floats. NULL when out of memory. */
pz_mask_out *pz_mask_out_new(const pz_layer *l, const pz_act *a, int64_t nch, int64_t tile,
                             int64_t whole);
void pz_mask_out_free(pz_mask_out *m);

static inline float *pz_mask_tile(const pz_mask_out *m, int ith)
{
    return m->buf + (int64_t)ith * m->tile;
}

/* [r0, r1) of rows split over nth workers in units of gran rows: worker
 * ith's share. */
void pz_mask_share(int64_t rows, int64_t gran, int ith, int nth, int64_t *r0, int64_t *r1);

/* Plain floats f of elements i0 .. i0 + count - 1 of the output (channel
 * (i / inner) % nch) into their bytes y[0 .. count - 1]. */
void pz_mask_store_f32(const pz_mask_out *m, const float *restrict f, uint8_t *restrict y,
                       int64_t i0, int64_t count, int64_t inner, int64_t nch);

/* From NCHW16c floats f ([n][ceil(c/16)][fr rows][ow][16], rows fr0..
 * fr0+nr-1) into plain bools y ([n][c][oh][ow], rows yr0..yr0+nr-1). */
void pz_mask_store_16c(const pz_mask_out *m, const float *restrict f, int64_t fr, int64_t fr0,
                       uint8_t *restrict y, int64_t oh, int64_t yr0, int64_t nr, int64_t n,
                       int64_t c, int64_t ow);

/* A GEMM's or MATMUL's bool Y of count elements in rows of n: tiles (the
 * packed fp32 or bf16 GEMM, no Z: each element's sums in an order that
 * does not depend on the rows a call takes) or a whole float copy (the
 * others: the fp16-weight GEMM's order of sums depends on its row tiles,
 * the int8 one quantizes A's rows for the whole layer, the sparse and
 * reference ones take no rows); names the way in kname (l->kernel then
 * points there). Returns 1 when out of memory. */
int pz_mask_gemm_init(pz_layer *l, pz_mask_out **m, const pz_act *a, int tiles, int64_t n,
                      int64_t count, char *kname, size_t kn);

/* The packed GEMM g (no Z; alpha in the packed B bp: floats for fn, bf16
 * for fn16 when it is not NULL) into a bool Y of g->m rows of g->n: worker
 * ith's share of rows, a tile of rows at a time (on one worker: the same
 * sums, so the same bits), then their bytes. */
void pz_mask_gemm_tiles(const pz_mask_out *m, const pz_gemm_desc *g, pz_gemm_fn fn,
                        pz_gemm_bf16_fn fn16, const float *a, const void *bp, uint8_t *y,
                        int ith, int nth);

/* Whole: after the barrier, worker ith's share of Y's bytes from the float
 * copy in m->buf, plain (channel (i / inner) % nch) or, for a rank-4 conv
 * output, NCHW16c (blocked 1). */
void pz_mask_whole_store(pz_mask_out *m, const pz_tensor *y, int blocked, int64_t inner,
                         int64_t nch, int ith, int nth);

/* The conv layer l (no Z) into its bool rank-4 Y: worker ith's share of
 * the output rows (whole multiples of gran, the kernel's row step), `rows`
 * at a time, each a row window of the op's run_window on one worker (X
 * whole, x its data; scratch + ith * scratch_w its scratch, NULL when
 * scratch_w is 0) into the worker's tile, then its bytes. */
void pz_mask_conv_tiles(const pz_mask_out *m, const pz_layer *l, const float *x, int64_t rows,
                        int64_t gran, void *scratch, size_t scratch_w, int ith, int nth);

#endif
