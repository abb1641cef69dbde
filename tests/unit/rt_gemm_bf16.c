/* rt_gemm_bf16.c - the bf16 GEMM (rt/kernels/gemm/gemm_bf16.h): rounding
 * to nearest even; the AVX512-BF16 kernel (where the CPU has it) against
 * its scalar twin (the same roundings, sums in another order: within 1e-5
 * of the largest output) and both against an fp32 GEMM on the bf16-rounded
 * operands computed here in double (within 1e-5), over shapes with tails of
 * rows, columns and an odd K, more than one K slice, bias and GELU
 * epilogues, 1 and 3 workers; and the plain fp32 result within bf16's error
 * (2e-2 of the largest output). */
#include "rt/kernels/gemm/gemm_bf16.h"
#include "rt_test.h"

static void rounding(void)
{
    CHECK(pz_bf16_round(1.0f) == 0x3f80);
    CHECK(pz_bf16_round(-2.0f) == 0xc000);
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even (1) */
    CHECK(pz_bf16_round(1.00390625f) == 0x3f80);
    /* 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: to even (up) */
    CHECK(pz_bf16_round(1.01171875f) == 0x3f82);
    CHECK(pz_bf16_round(1.005f) == 0x3f81);
    CHECK(pz_bf16_round(INFINITY) == 0x7f80);
    CHECK(isnan(pz_bf16_float(pz_bf16_round(NAN))));
    CHECK(pz_bf16_float(pz_bf16_round(3.0e38f)) > 3.0e38f);   /* rounds up, not to inf */
}

static void gemm_case(int64_t M, int64_t K, int64_t N, int trans_b, int bias, pz_act_kind act)
{
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(N), *slope = new_rand(N);
    uint16_t *bp = malloc((size_t)pz_gemm_bf16_packed_size(K, N) * sizeof *bp);
    pz_gemm_bf16_pack_b(K, N, b, trans_b, 0.5f, bp);
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N, .c = bias ? c : NULL,
                      .csm = 0, .csn = 1, .beta = 1.0f, .act = {.kind = act, .slope = slope}};
    /* references: double sums over the bf16-rounded operands, and plain fp32 */
    float *want = new_nan(M * N), *plain = new_nan(M * N), *got = new_nan(M * N);
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double s = 0, p = 0;
            for (int64_t k = 0; k < K; k++) {
                float bv = 0.5f * (trans_b ? b[n * K + k] : b[k * N + n]);
                s += (double)pz_bf16_float(pz_bf16_round(a[m * K + k])) *
                     pz_bf16_float(pz_bf16_round(bv));
                p += (double)a[m * K + k] * bv;
            }
            if (bias) s += c[n], p += c[n];
            want[m * N + n] = pz_act_c_f32(&g.act, (float)s, n);
            plain[m * N + n] = pz_act_c_f32(&g.act, (float)p, n);
        }
    pz_gemm_bf16_fn fns[2] = {pz_f32_gemm_bf16__scalar, pz_gemm_bf16_for(PZ_ISA_AVX512)};
    const int nf = fns[1] != fns[0] ? 2 : 1;
    for (int f = 0; f < nf; f++)
        for (int nth = 1; nth <= 3; nth += 2) {
            fill_nan(got, M * N);
            for (int w = 0; w < nth; w++) fns[f](&g, a, bp, got, w, nth);
            double e = nerr(got, want, want, M * N), ep = nerr(got, plain, plain, M * N);
            checkf(e <= 1e-5 && ep <= 2e-2, "bf16 gemm %s M%lld K%lld N%lld transB %d bias %d "
                   "act %d nth %d: err %.3g vs bf16 operands, %.3g vs fp32",
                   f ? "avx512bf16" : "scalar", (long long)M, (long long)K, (long long)N,
                   trans_b, bias, (int)act, nth, e, ep);
        }
    free(a), free(b), free(c), free(bp), free(want), free(plain), free(got), free(slope);
}

int main(void)
{
    rounding();
    gemm_case(1, 1, 1, 0, 0, PZ_ACT_NONE);
    gemm_case(1, 768, 100, 0, 1, PZ_ACT_NONE);       /* GEMV, a tail panel */
    gemm_case(13, 37, 33, 1, 1, PZ_ACT_RELU);        /* odd K, tails */
    gemm_case(30, 600, 70, 0, 1, PZ_ACT_GELU);       /* three K slices, 3 row tiles */
    gemm_case(128, 64, 96, 1, 0, PZ_ACT_NONE);
    gemm_case(13, 37, 45, 0, 1, PZ_ACT_PRELU);       /* a slope per column, tails */
    gemm_case(1, 50, 33, 1, 0, PZ_ACT_PRELU);        /* GEMV */
    if (pz_gemm_bf16_for(PZ_ISA_AVX512) == pz_f32_gemm_bf16__scalar)
        printf("rt_gemm_bf16: no AVX512-BF16 here: the scalar twin only\n");
    return test_summary("rt_gemm_bf16");
}
