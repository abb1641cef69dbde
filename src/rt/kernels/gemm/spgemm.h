/* spgemm.h - the block-sparse GEMM with a constant B (the sparsity knob on
 * a Gemm layer: pz_gemm_params.sparsity, README "Sparsity").
 *
 * A block is PZ_SPGEMM_KB rows of K x one 32-column panel of B[K][N] (the
 * packed GEMM's panel, fast.h): the compiler prunes whole blocks (src/opt/
 * sparsity.c, the same geometry: pz_spgemm_block_count), prepare packs only
 * the blocks with a non-zero weight, per panel, and keeps their K offsets.
 * Any all-zero block is skipped, pruned or the model's own.
 *
 * Run: the workers share out (panel, row tile) units, panel by panel; the
 * tile kernel (AVX-512, and its scalar twin, which the other ISAs run)
 * accumulates each of its rows x 32 columns over the panel's blocks in K
 * order, one fused multiply-add per weight, from zero, so both give the
 * same bits at any worker count; the driver then adds beta C and the
 * activation in plain C, shared. M == 1 (a FC layer at batch 1) is one
 * row tile a panel: B's non-zero blocks streamed once.
 */
#ifndef PZ_SPGEMM_H
#define PZ_SPGEMM_H

#include "rt/kernels/fast.h"

#define PZ_SPGEMM_KB 16   /* rows of K per block */
#define PZ_SPGEMM_MR 8    /* rows of A per tile */

/* One tile: rows [0, mr) of A (a, lda) times the nb blocks w ([nb][KB][32],
 * block b at K offset k0[b], kn[b] <= KB of its rows valid) into the nv
 * first columns of y (ldy): the raw sums. */
typedef struct pz_sptile_args {
    const float *a;
    int64_t lda;
    const int64_t *k0;
    const int32_t *kn;
    const float *w;
    int64_t nb;
    int mr, nv;
    float *y;
    int64_t ldy;
} pz_sptile_args;

typedef void (*pz_sptile_fn)(const pz_sptile_args *t);
void pz_f32_sptile__scalar(const pz_sptile_args *t);
void pz_f32_sptile__avx512(const pz_sptile_args *t);

typedef struct {
    int64_t k, n, np;         /* K, N, panels */
    int64_t nblocks, nnz;     /* blocks in all, and with a non-zero weight */
    int64_t *start;           /* [np + 1]: panel p's blocks are [start[p], start[p+1]) */
    int64_t *k0;              /* [nnz]: the block's first row of K */
    int32_t *kn;              /* [nnz]: its rows of K (KB, less at the end) */
    float *w;                 /* [nnz][KB][32], alpha folded in, 64-byte aligned */
    pz_sptile_fn tile;
} pz_spgemm_plan;

/* Blocks of B[K][N] (partial blocks at the edges count). */
int64_t pz_spgemm_block_count(int64_t k, int64_t n);
/* Packs B ([K][N], or [N][K] with trans_b) times alpha into p for isa;
 * -1 when out of memory. */
int pz_spgemm_plan_make(pz_spgemm_plan *p, int64_t k, int64_t n, const float *b, int trans_b,
                        float alpha, pz_isa isa);
void pz_spgemm_plan_free(pz_spgemm_plan *p);
/* Y = act(A Bp + beta C) as g describes it (g->k, g->n: the plan's). */
void pz_spgemm_run(const pz_spgemm_plan *p, const pz_gemm_desc *g, const float *a, float *y,
                   int ith, int nth);

#endif
