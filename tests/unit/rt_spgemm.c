/* rt_spgemm.c - the block-sparse GEMM (rt/kernels/gemm/spgemm.h) against a
 * plain double-precision product of the same weights, with whole blocks
 * (16 rows of K x 32 columns of B) zeroed (about 60%, none, and all of
 * panel 0): M = 1 (a FC layer at batch 1: GEMV) and M > 1 (row tiles of 8
 * and a short last one), K and N not multiples of the block, B plain and
 * transposed, alpha, C broadcast over rows or full, with beta, ReLU and
 * Clip. Each case runs the scalar twin and (when the CPU has it) the
 * AVX-512 tile, on 1 worker and split over 3 (bitwise equal), on NaN-filled
 * outputs; the AVX-512 tile gives the scalar twin's bits. Error against the
 * reference normalised by max |ref before the activation|: at most 1e-5.
 * Also: the plan's block and non-zero block counts.
 *
 * Prints `rt_spgemm: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdio.h>

#include "rt/kernels/gemm/spgemm.h"
#include "rt_test.h"

static bool have_avx512;

static void run_case(int64_t M, int64_t K, int64_t N, int zero, int trans_b, int cfull,
                     pz_act_kind act, float alpha)
{
    char what[200];
    const int64_t KB = PZ_SPGEMM_KB, NR = PZ_GEMM_NR, nkb = (K + KB - 1) / KB, np = (N + NR - 1) / NR;
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(cfull ? M * N : N),
          *slope = new_rand(N);
    /* zero blocks: (panel, K block) by a fixed pattern */
    int64_t nonzero = 0;
    for (int64_t p = 0; p < np; p++)
        for (int64_t q = 0; q < nkb; q++) {
            int z = zero == 1 ? (p * 7 + q * 3) % 5 < 3 : zero == 2 ? p == 0 || (p + q) % 5 < 3 : 0;
            nonzero += !z;
            if (!z) continue;
            for (int64_t r = q * KB; r < q * KB + KB && r < K; r++)
                for (int64_t j = p * NR; j < p * NR + NR && j < N; j++) b[trans_b ? j * K + r : r * N + j] = 0;
        }
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N, .c = c, .csm = cfull ? N : 0,
                      .csn = 1, .beta = 0.75f};
    g.act.kind = act;
    g.act.lo = 0.25f;
    g.act.hi = 1.5f;
    g.act.slope = slope;
    double *ref = malloc((size_t)(M * N) * sizeof *ref), s = 0;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double v = 0;
            for (int64_t r = 0; r < K; r++) v += (double)a[i * K + r] * alpha * b[trans_b ? j * K + r : r * N + j];
            v += 0.75 * c[i * g.csm + j];
            ref[i * N + j] = v;
            if (fabs(v) > s) s = fabs(v);
        }
    float *y1 = new_nan(M * N), *y3 = new_nan(M * N), *ytwin = new_nan(M * N);
    const pz_isa isas[2] = {PZ_ISA_SCALAR, PZ_ISA_AVX512};
    for (int ii = 0; ii < 1 + have_avx512; ii++) {
        pz_spgemm_plan p;
        snprintf(what, sizeof what, "%s M%lld K%lld N%lld zero%d transB%d C%s act%d alpha%g",
                 ii ? "avx512" : "scalar", (long long)M, (long long)K, (long long)N, zero, trans_b,
                 cfull ? "full" : "row", (int)act, (double)alpha);
        if (pz_spgemm_plan_make(&p, K, N, b, trans_b, alpha, isas[ii])) {
            check(0, "plan (out of memory)");
            continue;
        }
        check(p.nblocks == nkb * np && p.nnz == nonzero, what);
        fill_nan(y1, M * N), fill_nan(y3, M * N);
        pz_spgemm_run(&p, &g, a, y1, 0, 1);
        for (int t = 0; t < 3; t++) pz_spgemm_run(&p, &g, a, y3, t, 3);
        double e = 0;
        for (int64_t k = 0; k < M * N; k++) {
            float r = pz_act_c_f32(&g.act, (float)ref[k], k % N);
            double d = isnan(y1[k]) ? INFINITY : fabs((double)y1[k] - r);
            if (d > e) e = d;
        }
        e /= s > 0 ? s : 1;
        check(e <= 1e-5, what);
        if (e > 1e-5) printf("  error %.3g\n", e);
        check(memcmp(y1, y3, (size_t)(M * N) * sizeof *y1) == 0, what);
        if (ii == 0) memcpy(ytwin, y1, (size_t)(M * N) * sizeof *y1);
        else check(memcmp(y1, ytwin, (size_t)(M * N) * sizeof *y1) == 0, what);
        pz_spgemm_plan_free(&p);
    }
    free(a), free(b), free(c), free(slope), free(ref), free(y1), free(y3), free(ytwin);
}

int main(void)
{
    have_avx512 = cpu_has_avx512();
    if (!have_avx512) printf("rt_spgemm: no AVX-512 here: the scalar twin only\n");
    check(pz_spgemm_block_count(33, 65) == 3 * 3 && pz_spgemm_block_count(16, 32) == 1,
          "pz_spgemm_block_count counts partial blocks");
    static const int64_t S[][3] = {{1, 100, 70},  {1, 512, 256}, {1, 16, 32}, {1, 7, 5},
                                   {5, 37, 33},   {13, 64, 96},  {9, 300, 40}, {16, 48, 64},
                                   {2, 1000, 10}, {25, 20, 3}};
    int k = 0;
    for (size_t i = 0; i < sizeof S / sizeof S[0]; i++)
        for (int zero = 0; zero < 3; zero++, k++)
            run_case(S[i][0], S[i][1], S[i][2], zero, k % 2, k % 3 == 1, (pz_act_kind)(k % 3),
                     k % 4 == 3 ? 0.5f : 1.0f);
    run_case(5, 37, 33, 1, 1, 0, PZ_ACT_PRELU, 1.0f);   /* a slope per column */
    run_case(1, 100, 70, 2, 0, 1, PZ_ACT_PRELU, 0.5f);
    return test_summary("rt_spgemm");
}
