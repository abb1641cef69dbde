/* gemm_bf16.c - the bf16 GEMM's packing, its choice of kernel, and its
 * scalar twin (gemm_bf16.h): per output element, the k pairs in order, each
 * adding the odd product then the even one, as vdpbf16ps does; bf16
 * products are exact in fp32, so only the sums round. */
#include "rt/kernels/gemm/gemm_bf16.h"

#define NR PZ_GEMM_NR

int64_t pz_gemm_bf16_packed_size(int64_t k, int64_t n)
{
    return (n + NR - 1) / NR * ((k + 1) / 2) * NR * 2;
}

void pz_gemm_bf16_pack_b(int64_t k, int64_t n, const float *restrict b, int trans_b, float alpha,
                         uint16_t *restrict bp)
{
    const int64_t kp = (k + 1) / 2, P = (n + NR - 1) / NR;
    for (int64_t p = 0; p < P; p++)
        for (int64_t q = 0; q < kp; q++)
            for (int64_t j = 0; j < NR; j++)
                for (int e = 0; e < 2; e++) {
                    int64_t kk = 2 * q + e, col = p * NR + j;
                    float v = 0;
                    if (kk < k && col < n) v = alpha * (trans_b ? b[col * k + kk] : b[kk * n + col]);
                    bp[((p * kp + q) * NR + j) * 2 + e] = pz_bf16_round(v);
                }
}

pz_gemm_bf16_fn pz_gemm_bf16_for(pz_isa isa)
{
#if !defined(PZ_SCALAR) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (isa == PZ_ISA_AVX512 && __builtin_cpu_supports("avx512bf16"))
        return pz_f32_gemm_bf16__avx512bf16;
#endif
    (void)isa;
    return pz_f32_gemm_bf16__scalar;
}

void pz_f32_gemm_bf16__scalar(const pz_gemm_desc *g, const float *restrict a,
                              const uint16_t *restrict bp, float *restrict y, int ith, int nth)
{
    const int64_t kp = (g->k + 1) / 2, P = (g->n + NR - 1) / NR;
    int64_t lo, hi;
    pz_split(P * g->m, ith, nth, &lo, &hi);   /* one unit: one row of one panel */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t m = u % g->m, p = u / g->m;
        const float *ar = a + m * g->lda;
        float acc[NR] = {0};
        for (int64_t q = 0; q < kp; q++) {
            const float a0 = pz_bf16_float(pz_bf16_round(ar[2 * q]));
            const float a1 = 2 * q + 1 < g->k ? pz_bf16_float(pz_bf16_round(ar[2 * q + 1])) : 0;
            const uint16_t *bq = bp + (p * kp + q) * NR * 2;
            for (int j = 0; j < NR; j++) {
                acc[j] += a1 * pz_bf16_float(bq[2 * j + 1]);
                acc[j] += a0 * pz_bf16_float(bq[2 * j]);
            }
        }
        for (int64_t j = 0; j < NR && p * NR + j < g->n; j++) {
            const int64_t col = p * NR + j;
            float v = acc[j];
            if (g->c) v += g->beta * g->c[m * g->csm + col * g->csn];
            if (g->z) v += g->z[m * g->ldz + col];
            y[m * g->ldy + col] = pz_act_c_f32(&g->act, v, col);
        }
    }
}
