/* gemm_bf16.h - the bf16 GEMM (a block's precision bf16, pz_op_params.h):
 * Y = act(A B' + beta C) with A and B' rounded to bfloat16 (to nearest
 * even) and the products summed in fp32, as AVX512-BF16's vdpbf16ps does.
 *
 *   bp of pz_gemm_bf16_packed_size(K, N) uint16: pz_gemm_bf16_pack_b(K, N,
 *   B, trans_b, alpha, bp): panels of 32 columns, each [ceil(K/2)][32][2]
 *   (a k pair per column, the layout vdpbf16ps multiplies, zero past K);
 *   pz_gemm_bf16_for(isa)(&g, A, bp, Y, ith, nth) with g as for the fp32
 *   GEMM (fast.h). The AVX512-BF16 kernel where the CPU has it and isa is
 *   AVX-512, else the scalar twin, which rounds the same way. */
#ifndef PZ_GEMM_BF16_H
#define PZ_GEMM_BF16_H

#include <stdint.h>
#include <string.h>

#include "rt/kernels/fast.h"

#define PZ_BF16_KC 256   /* K per slice: a 14-row A tile in bf16 is 7 KiB */

typedef void (*pz_gemm_bf16_fn)(const pz_gemm_desc *g, const float *restrict a,
                                const uint16_t *restrict bp, float *restrict y, int ith, int nth);

int64_t pz_gemm_bf16_packed_size(int64_t k, int64_t n);
void pz_gemm_bf16_pack_b(int64_t k, int64_t n, const float *restrict b, int trans_b, float alpha,
                         uint16_t *restrict bp);
pz_gemm_bf16_fn pz_gemm_bf16_for(pz_isa isa);

void pz_f32_gemm_bf16__scalar(const pz_gemm_desc *g, const float *restrict a,
                              const uint16_t *restrict bp, float *restrict y, int ith, int nth);
void pz_f32_gemm_bf16__avx512bf16(const pz_gemm_desc *g, const float *restrict a,
                                  const uint16_t *restrict bp, float *restrict y, int ith,
                                  int nth);

/* float -> bfloat16, rounded to nearest even (a NaN stays a NaN). */
static inline uint16_t pz_bf16_round(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float pz_bf16_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#endif
