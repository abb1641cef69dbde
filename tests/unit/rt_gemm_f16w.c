/* rt_gemm_f16w.c - the GEMM with fp16 weights (rt/kernels/gemm/gemm_f16w.h):
 * the packing's rounding against F16C's vcvtps2ph (to nearest even, ties,
 * subnormal halves, overflow to infinity); the AVX-512 kernel (where the
 * CPU has it) against its scalar twin bit for bit (GELU aside: within
 * 1e-6); both against an fp32 GEMM on the fp16-rounded weights computed
 * here in double (within 1e-5 of the largest output) and the plain fp32
 * result within fp16's error (2e-3); over M 1, 2, 5, 8, 9, 33 (the GEMV
 * tile, its phases, tails of the 8-row tiles), K and N not multiples of 16
 * or 32, trans_b 0 and 1, bias (a row and a full C), ReLU, Clip, GELU, 1
 * and 3 workers. */
#include "rt/elem.h"
#include "rt/kernels/gemm/gemm_f16w.h"
#include "rt_test.h"

#ifndef PZ_SCALAR
#include <immintrin.h>

__attribute__((target("avx512f"))) static void cvt16(const float *x, uint16_t *h)
{
    _mm256_storeu_si256((__m256i *)h, _mm512_cvtps_ph(_mm512_loadu_ps(x),
                                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
#endif

static void rounding(void)
{
    CHECK(pz_f32_to_f16(1.0f) == 0x3c00);
    CHECK(pz_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00);              /* tie: to even (down) */
    CHECK(pz_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02);          /* tie: to even (up) */
    CHECK(pz_f32_to_f16(65520.0f) == 0x7c00);                      /* overflows to inf */
    CHECK(pz_f32_to_f16(0x1p-25f) == 0x0000);                      /* tie at the bottom: 0 */
    CHECK(pz_f32_to_f16(3 * 0x1p-25f) == 0x0002);                  /* subnormal tie: even */
#ifndef PZ_SCALAR
    if (!cpu_has_avx512()) return;
    /* magnitudes from 2^-30 (below the smallest half) to 2^17 (past the largest) */
    int bad = 0;
    for (int it = 0; it < 20000; it++) {
        float x[16];
        uint16_t h[16];
        for (int l = 0; l < 16; l++) x[l] = ldexpf(frand(), (int)((frand() + 1) * 24) - 30);
        if (it == 0) x[0] = NAN, x[1] = INFINITY, x[2] = -0.0f, x[3] = 65504.0f, x[4] = 65519.0f;
        cvt16(x, h);
        for (int l = 0; l < 16; l++) bad += pz_f32_to_f16(x[l]) != h[l];
    }
    checkf(bad == 0, "pz_f32_to_f16 against vcvtps2ph: %d of 320000 differ", bad);
#endif
}

static void gemm_case(int64_t M, int64_t K, int64_t N, int trans_b, int bias, pz_act_kind act)
{
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(M * N), *slope = new_rand(N);
    uint16_t *bp = malloc((size_t)pz_gemm_f16w_packed_size(K, N) * sizeof *bp);
    const float alpha = 0.5f;
    pz_gemm_f16w_pack_b(K, N, b, trans_b, alpha, bp);
    /* bias 1: one row of C broadcast over M; bias 2: a full M x N C */
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N, .c = bias ? c : NULL,
                      .csm = bias == 2 ? N : 0, .csn = 1, .beta = bias == 2 ? 0.75f : 1.0f,
                      .act = {.kind = act, .lo = -0.25f, .hi = 0.5f, .slope = slope}};
    float *want = new_nan(M * N), *plain = new_nan(M * N), *got = new_nan(M * N),
          *twin = new_nan(M * N), *scale = new_nan(M * N);
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double s = 0, p = 0;
            for (int64_t k = 0; k < K; k++) {
                float bv = alpha * (trans_b ? b[n * K + k] : b[k * N + n]);
                s += (double)a[m * K + k] * pz_f16_to_f32(pz_f32_to_f16(bv));
                p += (double)a[m * K + k] * bv;
            }
            if (bias) {
                double cv = (double)g.beta * c[m * g.csm + n];
                s += cv, p += cv;
            }
            scale[m * N + n] = (float)s;
            want[m * N + n] = pz_act_c_f32(&g.act, (float)s, n);
            plain[m * N + n] = pz_act_c_f32(&g.act, (float)p, n);
        }
    char what[160];
    snprintf(what, sizeof what, "f16w gemm M%lld K%lld N%lld transB %d bias %d act %d",
             (long long)M, (long long)K, (long long)N, trans_b, bias, (int)act);
    for (int nth = 1; nth <= 3; nth += 2) {
        fill_nan(twin, M * N);
        for (int w = 0; w < nth; w++) pz_f32_gemm_f16w__scalar(&g, a, bp, twin, w, nth);
        double e = nerr(twin, want, scale, M * N), ep = nerr(twin, plain, scale, M * N);
        checkf(e <= 1e-5 && ep <= 2e-3, "%s scalar nth %d: err %.3g vs fp16 weights, %.3g vs fp32",
               what, nth, e, ep);
#ifndef PZ_SCALAR
        if (!cpu_has_avx512()) continue;
        fill_nan(got, M * N);
        for (int w = 0; w < nth; w++) pz_f32_gemm_f16w__avx512(&g, a, bp, got, w, nth);
        e = nerr(got, want, scale, M * N);
        checkf(e <= 1e-5, "%s avx512 nth %d: err %.3g vs fp16 weights", what, nth, e);
        if (act == PZ_ACT_GELU) {
            e = nerr(got, twin, scale, M * N);
            checkf(e <= 1e-6, "%s avx512 nth %d: err %.3g vs the twin (GELU)", what, nth, e);
        } else {
            int64_t diff = 0;
            for (int64_t i = 0; i < M * N; i++) diff += memcmp(&got[i], &twin[i], 4) != 0;
            checkf(diff == 0, "%s avx512 nth %d: %lld of %lld outputs differ from the twin's bits",
                   what, nth, (long long)diff, (long long)(M * N));
        }
#endif
    }
    free(a), free(b), free(c), free(bp), free(want), free(plain), free(got), free(twin), free(scale);
    free(slope);
}

int main(void)
{
    rounding();
    gemm_case(1, 1, 1, 0, 0, PZ_ACT_NONE);
    gemm_case(1, 3, 5, 1, 1, PZ_ACT_RELU);            /* K below the 4 phases */
    gemm_case(1, 1003, 100, 0, 1, PZ_ACT_RELU);       /* GEMV: K tail, a tail panel */
    gemm_case(1, 9216, 70, 1, 1, PZ_ACT_NONE);        /* AlexNet's fc6 K */
    gemm_case(2, 517, 45, 1, 1, PZ_ACT_CLIP);         /* 2 phases */
    gemm_case(5, 250, 77, 0, 2, PZ_ACT_RELU);         /* full C, beta */
    gemm_case(8, 64, 32, 1, 0, PZ_ACT_NONE);          /* one full tile and panel */
    gemm_case(9, 33, 17, 0, 1, PZ_ACT_CLIP);          /* tiles of 4 and 5 rows */
    gemm_case(33, 301, 129, 1, 1, PZ_ACT_RELU);       /* 5 tiles, 5 panels */
    gemm_case(33, 40, 50, 0, 1, PZ_ACT_GELU);
    gemm_case(9, 33, 45, 1, 1, PZ_ACT_PRELU);         /* a slope per column, tails */
    gemm_case(1, 100, 37, 0, 0, PZ_ACT_PRELU);        /* GEMV */
    gemm_case(1, 0, 20, 0, 1, PZ_ACT_NONE);           /* K = 0: bias alone */
    if (!cpu_has_avx512()) printf("rt_gemm_f16w: no AVX-512 here: the scalar twin only\n");
    return test_summary("rt_gemm_f16w");
}
