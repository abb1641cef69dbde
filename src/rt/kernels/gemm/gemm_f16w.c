/* gemm_f16w.c - the fp16-weight GEMM's packing, its share of the work and
 * its choice of kernel (gemm_f16w.h). */
#include "rt/kernels/gemm/gemm_f16w.h"

#include "rt/elem.h"

#define NR PZ_GEMM_NR

int64_t pz_gemm_f16w_packed_size(int64_t k, int64_t n)
{
    return (n + NR - 1) / NR * k * NR;
}

void pz_gemm_f16w_pack_b(int64_t k, int64_t n, const float *restrict b, int trans_b, float alpha,
                         uint16_t *restrict bp)
{
    const int64_t P = (n + NR - 1) / NR;
    for (int64_t p = 0; p < P; p++)
        for (int64_t kk = 0; kk < k; kk++)
            for (int64_t j = 0; j < NR; j++) {
                const int64_t col = p * NR + j;
                float v = 0;
                if (col < n) v = alpha * (trans_b ? b[col * k + kk] : b[kk * n + col]);
                bp[(p * k + kk) * NR + j] = pz_f32_to_f16(v);   /* to nearest even */
            }
}

void pz_gemm_f16w_drive(pz_gemm_f16w_tile_fn tile, const pz_gemm_desc *g, const float *restrict a,
                        const uint16_t *restrict bp, float *restrict y, int ith, int nth)
{
    const int64_t P = (g->n + NR - 1) / NR, T = (g->m + PZ_F16W_MR - 1) / PZ_F16W_MR;
    int64_t lo, hi;
    pz_split(P * T, ith, nth, &lo, &hi);   /* unit u: panel u / T, row tile u % T */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t p = u / T, t = u % T;
        const int64_t m0 = g->m * t / T, mr = g->m * (t + 1) / T - m0;   /* balanced tiles */
        tile(g, a, bp + p * g->k * NR, m0, mr, p, y);
    }
}

pz_gemm_f16w_fn pz_gemm_f16w_for(pz_isa isa)
{
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) return pz_f32_gemm_f16w__avx512;
#endif
    (void)isa;
    return pz_f32_gemm_f16w__scalar;
}
