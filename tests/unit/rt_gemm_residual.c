/* rt_gemm_residual.c - the packed GEMM's residual epilogue (pz_gemm_desc.z:
 * Y = act(A B + beta C + Z), the Add after a transformer block's attention
 * out and FFN2 projections) against a double reference.
 *
 * fp32: the GEMM and the GEMV path of each ISA here (scalar twin, AVX2,
 * AVX-512) over edge shapes: M = 1, M below, at and above the row tiles (6,
 * 14), odd N (1, 7, 17, 33, 100: partial panels and masked halves), K
 * across a 256 or 1024 slice (the partial sums live in Y between slices: Z must come
 * in once, at the last), a bias row C or none, Z with its rows ldz > N
 * apart, no act or GELU or Clip; normalised error <= 1e-5, 3 workers give
 * the bits of 1, and the row past each Y row (ldy > N) stays untouched. The
 * other GEMMs that run a linear layer (bf16, fp16 weights, int8 with
 * dynamic activations, block-sparse) each add Z too: their output with Z
 * less their output without is Z (the same A and B; within 1e-5 of max|Y|).
 *
 * Prints `rt_gemm_residual: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdio.h>

#include "rt/kernels/gemm/gemm_bf16.h"
#include "rt/kernels/gemm/gemm_f16w.h"
#include "rt/kernels/gemm/spgemm.h"
#include "rt/kernels/quant/qgemm_dyn.h"

#include "rt_test.h"

static double act_ref(pz_act_kind k, double v)
{
    if (k == PZ_ACT_CLIP) return v < -0.5 ? -0.5 : v > 0.5 ? 0.5 : v;
    if (k == PZ_ACT_GELU) return 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
    return v;
}

/* Y = act(A B + C + Z) in double; *scale: the same before act (nerr's). */
static void reference(int64_t M, int64_t N, int64_t K, const float *a, const float *b,
                      const float *c, const float *z, int64_t ldz, pz_act_kind act, float *yref,
                      float *scale)
{
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++) s += (double)a[m * K + k] * b[k * N + n];
            if (c) s += c[n];
            s += z[m * ldz + n];
            scale[m * N + n] = (float)s;
            yref[m * N + n] = (float)act_ref(act, s);
        }
}

static void fp32_case(int64_t M, int64_t N, int64_t K, int bias, pz_act_kind act)
{
    const int64_t ldz = N + 3, ldy = N + 1;
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(N), *z = new_rand(M * ldz);
    float *yref = new_nan(M * N), *scale = new_nan(M * N);
    reference(M, N, K, a, b, bias ? c : NULL, z, ldz, act, yref, scale);
    float *bp = new_nan(pz_gemm_packed_b_size(K, N));
    pz_gemm_pack_b(K, N, b, 0, 1.0f, bp);
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = ldy, .c = bias ? c : NULL,
                      .csm = 0, .csn = 1, .beta = 1.0f,
                      /* lo: CLIP's bound; for GELU 0, its erf form */
                      .act = {.kind = act, .lo = act == PZ_ACT_CLIP ? -0.5f : 0.0f, .hi = 0.5f},
                      .z = z, .ldz = ldz};
    float *y = new_nan(M * ldy), *y3 = new_nan(M * ldy), *yp = new_nan(M * N);
    const pz_fast_kernels *ks[3];
    static const char *NAMES[] = {"scalar", "avx2", "avx512"};
    int nk = fast_kernels_here(ks);
    for (int i = 0; i < nk; i++)
        for (int gv = 0; gv < (M == 1 ? 2 : 1); gv++) {
            pz_gemm_fn fn = gv ? ks[i]->gemv : ks[i]->gemm;
            fill_nan(y, M * ldy);
            fill_nan(y3, M * ldy);
            fn(&g, a, bp, y, 0, 1);
            for (int ith = 0; ith < 3; ith++) fn(&g, a, bp, y3, ith, 3);
            int pad_nan = 1;
            for (int64_t m = 0; m < M; m++) {
                memcpy(yp + m * N, y + m * ldy, (size_t)N * sizeof *y);
                pad_nan &= isnan(y[m * ldy + N]);
            }
            char what[160];
            snprintf(what, sizeof what, "%s %s M%lld N%lld K%lld bias%d act%d",
                     gv ? "gemv" : "gemm", NAMES[i],
                     (long long)M, (long long)N, (long long)K, bias, (int)act);
            check(nerr(yp, yref, scale, M * N) <= 1e-5, what);
            strcat(what, ": nth3 the bits of nth1, Y's padding untouched");
            check(memcmp(y, y3, (size_t)(M * ldy) * sizeof *y) == 0 && pad_nan, what);
        }
    free(a); free(b); free(c); free(z); free(yref); free(scale); free(bp); free(y); free(y3);
    free(yp);
}

typedef void (*run_fn)(void *ctx, const pz_gemm_desc *g, const float *a, float *y, int ith,
                       int nth);

/* The kernel run with and without Z: the difference is Z. */
static void diff_is_z(const char *what, run_fn run, void *ctx, int64_t M, int64_t N, int64_t K,
                      const float *a, const float *c)
{
    float *z = new_rand(M * N), *y0 = new_nan(M * N), *y1 = new_nan(M * N);
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N, .c = c, .csm = 0, .csn = 1,
                      .beta = 1.0f};
    for (int ith = 0; ith < 2; ith++) run(ctx, &g, a, y0, ith, 2);
    g.z = z;
    g.ldz = N;
    for (int ith = 0; ith < 2; ith++) run(ctx, &g, a, y1, ith, 2);
    double mx = 0, err = 0;
    for (int64_t e = 0; e < M * N; e++) {
        mx = fmax(mx, fabs(y1[e]));
        double d = fabs(((double)y1[e] - y0[e]) - z[e]);
        err = isnan(d) ? INFINITY : fmax(err, d);
    }
    check(err <= 1e-5 * fmax(mx, 1.0), what);
    free(z); free(y0); free(y1);
}

typedef struct {
    const uint16_t *bp;
    void (*fn)(const pz_gemm_desc *, const float *, const uint16_t *, float *, int, int);
} half_ctx;

static void run_half(void *ctx, const pz_gemm_desc *g, const float *a, float *y, int ith, int nth)
{
    const half_ctx *h = ctx;
    h->fn(g, a, h->bp, y, ith, nth);
}

static void run_sparse(void *ctx, const pz_gemm_desc *g, const float *a, float *y, int ith,
                       int nth)
{
    pz_spgemm_run(ctx, g, a, y, ith, nth);
}

typedef struct {
    pz_qdyn *q;
    char *scratch;
    size_t per;
} qdyn_ctx;

static void run_qdyn(void *ctx, const pz_gemm_desc *g, const float *a, float *y, int ith, int nth)
{
    const qdyn_ctx *q = ctx;
    pz_qdyn_run(q->q, g, a, y, q->scratch, ith, nth);
}

static void other_gemms(int64_t M, int64_t N, int64_t K)
{
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(N);
    char what[160];
    const pz_isa isas[] = {PZ_ISA_SCALAR, cpu_has_avx512() ? PZ_ISA_AVX512 : PZ_ISA_SCALAR};
    for (int i = 0; i < 2; i++) {
        const char *in = i ? "best" : "scalar";
        uint16_t *b16 = malloc((size_t)pz_gemm_bf16_packed_size(K, N) * sizeof *b16);
        pz_gemm_bf16_pack_b(K, N, b, 0, 1.0f, b16);
        half_ctx h = {b16, pz_gemm_bf16_for(isas[i])};
        snprintf(what, sizeof what, "bf16 %s M%lld N%lld K%lld: adds Z", in, (long long)M,
                 (long long)N, (long long)K);
        diff_is_z(what, run_half, &h, M, N, K, a, c);
        free(b16);
        uint16_t *bh = malloc((size_t)pz_gemm_f16w_packed_size(K, N) * sizeof *bh);
        pz_gemm_f16w_pack_b(K, N, b, 0, 1.0f, bh);
        h = (half_ctx){bh, pz_gemm_f16w_for(isas[i])};
        snprintf(what, sizeof what, "f16w %s M%lld N%lld K%lld: adds Z", in, (long long)M,
                 (long long)N, (long long)K);
        diff_is_z(what, run_half, &h, M, N, K, a, c);
        free(bh);
        pz_spgemm_plan sp;
        check(pz_spgemm_plan_make(&sp, K, N, b, 0, 1.0f, isas[i]) == 0, "spgemm plan");
        snprintf(what, sizeof what, "sparse %s M%lld N%lld K%lld: adds Z", in, (long long)M,
                 (long long)N, (long long)K);
        diff_is_z(what, run_sparse, &sp, M, N, K, a, NULL);
        pz_spgemm_plan_free(&sp);
        char e[160];
        qdyn_ctx q = {pz_qdyn_new(M, N, K, b, 0, 1.0f, isas[i], 0, e, sizeof e), NULL, 0};
        if (!q.q) {
            check(0, e);
            continue;
        }
        q.scratch = malloc(pz_qdyn_scratch(q.q, 2) + 64);
        snprintf(what, sizeof what, "int8-dyn %s M%lld N%lld K%lld: adds Z", in, (long long)M,
                 (long long)N, (long long)K);
        diff_is_z(what, run_qdyn, &q, M, N, K, a, c);
        free(q.scratch);
        pz_qdyn_free(q.q);
    }
    free(a); free(b); free(c);
}

int main(void)
{
    static const int64_t MS[] = {1, 5, 6, 7, 14, 15, 29};
    static const int64_t NS[] = {1, 7, 17, 33, 100};
    static const int64_t KS[] = {3, 256, 300};
    int pat = 0;
    for (size_t mi = 0; mi < sizeof MS / sizeof MS[0]; mi++)
        for (size_t ni = 0; ni < sizeof NS / sizeof NS[0]; ni++)
            for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++, pat++)
                fp32_case(MS[mi], NS[ni], KS[ki], pat % 2, (pz_act_kind)(pat % 4 == 3 ? PZ_ACT_CLIP
                                                                        : pat % 3 == 2 ? PZ_ACT_GELU
                                                                        : PZ_ACT_NONE));
    fp32_case(128, 768, 768, 1, PZ_ACT_NONE);   /* BERT-base's attention out */
    fp32_case(29, 100, 1100, 1, PZ_ACT_GELU);   /* two slices of the AVX-512 set's 1024 */
    other_gemms(1, 33, 40);
    other_gemms(29, 70, 300);
    return test_summary("rt_gemm_residual");
}
