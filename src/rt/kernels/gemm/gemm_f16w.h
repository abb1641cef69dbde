/* gemm_f16w.h - the GEMM with fp16 weights (a block of precision
 * PZ_PREC_F16W, `--weights fp16`, pz_op_params.h): Y = act(A B' + beta C)
 * with B' stored in IEEE half precision and everything else fp32: each
 * weight is rounded to fp16 (to nearest even) once, at packing, and widened
 * back exactly (vcvtph2ps) in the kernel, so only the weights lose bits.
 * What it buys is bandwidth: a FC layer at batch 1 (a GEMV) streams its
 * weights once per run, and half the bytes take half the time.
 *
 *   bp of pz_gemm_f16w_packed_size(K, N) uint16: pz_gemm_f16w_pack_b(K, N,
 *   B, trans_b, alpha, bp): panels of 32 columns, each [K][32] (one 64-byte
 *   line per k, zero past N), alpha folded in before rounding;
 *   pz_gemm_f16w_for(isa)(&g, A, bp, Y, ith, nth) with g as for the fp32
 *   GEMM (fast.h; g.ldb must be 0). AVX-512 where isa is AVX-512, else the
 *   scalar twin, which gives the same bits (below).
 *
 * The order of the sums is part of the contract, so the twin can match it
 * bit for bit: the rows go in balanced tiles of at most PZ_F16W_MR (T =
 * ceil(M / 8), tile t: rows [M t / T, M (t+1) / T)); a tile of mr rows keeps
 * ph = pz_f16w_phases(mr) partial sums per output, k going to sum k % ph
 * (the k past the last multiple of ph to sum 0), each step one fused
 * multiply-add; then sum0 + sum1 (ph 2) or (sum0 + sum1) + (sum2 + sum3)
 * (ph 4); then beta C by one more fused multiply-add, then the activation
 * (ReLU and Clip as vmaxps/vminps; those pz_act16_ps computes by a vector
 * formula, GELU, SIGMOID, ..., are not bitwise: the twin's libm against
 * the vector one). A GEMV tile (mr 1)
 * keeps 8 chains of FMAs in flight. */
#ifndef PZ_GEMM_F16W_H
#define PZ_GEMM_F16W_H

#include <stdint.h>

#include "rt/kernels/fast.h"

#define PZ_F16W_MR 8   /* rows per tile */

typedef void (*pz_gemm_f16w_fn)(const pz_gemm_desc *g, const float *restrict a,
                                const uint16_t *restrict bp, float *restrict y, int ith, int nth);

int64_t pz_gemm_f16w_packed_size(int64_t k, int64_t n);
void pz_gemm_f16w_pack_b(int64_t k, int64_t n, const float *restrict b, int trans_b, float alpha,
                         uint16_t *restrict bp);
pz_gemm_f16w_fn pz_gemm_f16w_for(pz_isa isa);

void pz_f32_gemm_f16w__scalar(const pz_gemm_desc *g, const float *restrict a,
                              const uint16_t *restrict bp, float *restrict y, int ith, int nth);
void pz_f32_gemm_f16w__avx512(const pz_gemm_desc *g, const float *restrict a,
                              const uint16_t *restrict bp, float *restrict y, int ith, int nth);

/* Partial sums per output in a tile of mr rows (see above). */
static inline int pz_f16w_phases(int64_t mr)
{
    return mr == 1 ? 4 : mr == 2 ? 2 : 1;
}

/* One ISA's tile: rows [m0, m0 + mr) of A times the whole of panel p (bq:
 * [K][32]) into Y's columns [32 p, 32 p + 32) that lie inside N, epilogue
 * included. pz_gemm_f16w_drive shares the (panel, tile) units out to the
 * workers, panel-major, so a worker streams its panels once. */
typedef void (*pz_gemm_f16w_tile_fn)(const pz_gemm_desc *g, const float *a,
                                     const uint16_t *bq, int64_t m0, int64_t mr, int64_t p,
                                     float *y);
void pz_gemm_f16w_drive(pz_gemm_f16w_tile_fn tile, const pz_gemm_desc *g, const float *restrict a,
                        const uint16_t *restrict bp, float *restrict y, int ith, int nth);

#endif
