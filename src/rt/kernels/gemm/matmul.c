/* matmul.c - the batched MatMul with a B computed at run time (numpy
 * broadcasting of the batch dims, pz_matmul_shape) on the GEMM of one ISA
 * (fast.h): each batch is one GEMM that reads its B in place (g.ldb = N),
 * so nothing is packed or allocated at run. */
#include "rt/kernels/fast.h"

void pz_f32_matmul_gemm(const pz_matmul_shape *s, pz_gemm_fn fn, const float *restrict a,
                        const float *restrict b, float *restrict y, int ith, int nth)
{
    const int64_t M = s->M, N = s->N, K = s->K, batches = pz_prod(s->bdims, s->nb);
    if (M == 0 || N == 0) return;
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldb = N, .ldy = N, .act = {PZ_ACT_NONE}};
    /* units (batch, part of it, as the GEMM shares out one): each batch in
     * nth / gcd(batches, nth) parts, so that every worker has as many units
     * (12 heads on 8 workers: 2 parts, 3 units each); whole batches when nth
     * divides them (A's rows and B stay with one worker) */
    int64_t x = batches, r = nth;
    while (r) {
        int64_t t = x % r;
        x = r;
        r = t;
    }
    const int64_t parts = x > 0 ? nth / x : nth;
    int64_t lo, hi;
    pz_split(batches * parts, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t bi = u / parts, oa, ob;
        pz_matmul_batch_offsets(s, bi, &oa, &ob);
        fn(&g, a + oa, b + ob, y + bi * M * N, (int)(u % parts), (int)parts);
    }
}
