/* rt_qdyn.c - the GEMM through int8 with activations quantized at run time
 * (rt/kernels/quant/qgemm_dyn.h) against a reference computed here from the
 * header's formulas: the scales and the quantized values in float32 as it
 * says (x / s rounded half to even), the sums exact in int64, then
 * (float(acc) * sb) * sa + beta C and the activation. Required: equal to
 * the reference bit for bit; the VNNI kernel (where the CPU has it), the
 * AVX-VNNI one (likewise), the AVX2 one, the scalar twin and 1 to 3 workers all the same bits; a row of zeros gives
 * beta C, a row with an inf or NaN NaN outputs; within 2% of the float
 * product (the quantization error, a sanity bound). Shapes around the tiles
 * (6 rows x 64 columns), K % 4, both row and column splits, B transposed,
 * alpha, C as a row, a column and a matrix, ReLU and Clip; GELU within 1e-6
 * (the AVX-512 epilogue's approximation). */
#include "rt/kernels/quant/qgemm_dyn.h"
#include "rt_test.h"

static float q8(float x, float s)
{
    float v = nearbyintf(x / s);
    return v > 127.0f ? 127.0f : v < -128.0f ? -128.0f : v;
}

/* The header's formulas, in plain loops. */
static void reference(int64_t M, int64_t N, int64_t K, const float *a, const float *b, int tb,
                      float alpha, const pz_gemm_desc *g, float *y)
{
    float *sb = malloc((size_t)N * sizeof *sb);
    for (int64_t n = 0; n < N; n++) {
        float mx = 0.0f;
        for (int64_t k = 0; k < K; k++) mx = fmaxf(mx, fabsf(alpha * (tb ? b[n * K + k] : b[k * N + n])));
        sb[n] = mx > 0.0f ? mx / 127.0f : 1.0f;
    }
    for (int64_t i = 0; i < M; i++) {
        float mx = 0.0f;
        int bad = 0;
        for (int64_t k = 0; k < K; k++) {
            bad |= !isfinite(a[i * g->lda + k]);
            mx = fmaxf(mx, fabsf(a[i * g->lda + k]));
        }
        const float sa = mx > 0.0f ? mx / 127.0f : 1.0f;
        for (int64_t n = 0; n < N; n++) {
            int64_t acc = 0;
            for (int64_t k = 0; k < K && !bad; k++) {   /* (a NaN has no int value) */
                float bq = q8(alpha * (tb ? b[n * K + k] : b[k * N + n]), sb[n]);
                if (bq < -127.0f) bq = -127.0f;
                acc += (int64_t)q8(a[i * g->lda + k], sa) * (int64_t)bq;
            }
            float v = bad ? NAN : (float)acc * sb[n] * sa;
            if (g->c) v += g->beta * g->c[i * g->csm + n * g->csn];
            y[i * g->ldy + n] = pz_act_c_f32(&g->act, v, n);
        }
    }
    free(sb);
}

static int same_bits(const float *x, const float *y, int64_t n)
{
    return !memcmp(x, y, (size_t)n * sizeof *x);
}

static void qcase(int64_t M, int64_t N, int64_t K, int tb, int cmode, pz_act_kind act,
                  int special)
{
    const float alpha = cmode == 2 ? 0.5f : 1.0f;
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(M * N), *slope = new_rand(N);
    if (special && M > 2) {
        for (int64_t k = 0; k < K; k++) a[1 * K + k] = 0.0f;   /* a row of zeros */
        a[2 * K + K / 2] = special == 1 ? INFINITY : NAN;     /* a row with inf or NaN */
    }
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N, .beta = 0.75f,
                      .act = {.kind = act, .lo = -0.5f, .hi = 0.5f, .slope = slope}};
    /* cmode: 0 none, 1 a row [N], 2 a column [M], 3 a matrix */
    if (cmode) {
        g.c = c;
        g.csm = cmode == 2 ? 1 : cmode == 3 ? N : 0;
        g.csn = cmode == 1 || cmode == 3 ? 1 : 0;
    }
    float *yref = new_nan(M * N), *y0 = NULL;
    reference(M, N, K, a, b, tb, alpha, &g, yref);
    char what[160];
    snprintf(what, sizeof what, "qdyn M%lld N%lld K%lld tb%d c%d act%d sp%d", (long long)M,
             (long long)N, (long long)K, tb, cmode, (int)act, special);
    /* VNNI, AVX-VNNI, AVX2 (novnni), the twin: each where the CPU has it
     * (else the next one down) */
    const pz_isa isas[4] = {PZ_ISA_AVX512, PZ_ISA_AVX2, PZ_ISA_AVX2, PZ_ISA_SCALAR};
    static const char *const want[4] = {"int8-dyn", "int8-dyn-avxvnni", "int8-dyn-avx2",
                                        "int8-dyn-scalar"};
    for (int ii = 0; ii < 4; ii++) {
        char e[160];
        pz_qdyn *q = pz_qdyn_new(M, N, K, b, tb, alpha, isas[ii], ii == 2, e, sizeof e);
        if (!q) {
            check(0, e);
            continue;
        }
        const int here = ii == 0 ? pz_cpu_has_vnni() : ii == 1 ? pz_cpu_has_avxvnni()
                         : ii == 2 ? pz_cpu_isa() >= PZ_ISA_AVX2 : 1;
        if (here) checkf(!strcmp(pz_qdyn_kernel(q), want[ii]), "%s: kernel %s, not %s", what,
                         pz_qdyn_kernel(q), want[ii]);
        for (int nth = 1; nth <= 3; nth++) {
            float *y = new_nan(M * N);
            void *scratch = malloc(pz_qdyn_scratch(q, nth));
            for (int ith = 0; ith < nth; ith++) pz_qdyn_run(q, &g, a, y, scratch, ith, nth);
            free(scratch);
            int ok = 1;
            /* GELU: vmath's approximation on AVX-512, erff in the twin */
            const float tol = act == PZ_ACT_GELU ? 1e-6f : 0.0f;
            for (int64_t i = 0; i < M * N; i++)
                ok &= isnan(yref[i]) ? isnan(y[i])
                                     : y[i] == yref[i] ||
                                           fabsf(y[i] - yref[i]) <= tol * (1.0f + fabsf(yref[i]));
            char w2[220];
            snprintf(w2, sizeof w2, "%s %s nth%d: the reference's bits", what,
                     pz_qdyn_kernel(q), nth);
            check(ok, w2);
            if (!y0) {
                y0 = y;
            } else if (act == PZ_ACT_GELU && ii > 0) {
                free(y);   /* the twin's GELU is erff: the reference's, not the first run's bits */
            } else {
                snprintf(w2, sizeof w2, "%s %s nth%d: the first run's bits", what,
                         pz_qdyn_kernel(q), nth);
                check(same_bits(y, y0, M * N), w2);
                free(y);
            }
        }
        pz_qdyn_free(q);
    }
    /* sanity: near the float product where nothing is special */
    if (!special && act == PZ_ACT_NONE && cmode == 0) {
        double emax = 0, rmax = 0;
        for (int64_t i = 0; i < M; i++)
            for (int64_t n = 0; n < N; n++) {
                double s = 0;
                for (int64_t k = 0; k < K; k++)
                    s += (double)a[i * K + k] * alpha * (tb ? b[n * K + k] : b[k * N + n]);
                emax = fmax(emax, fabs(s - y0[i * N + n]));
                rmax = fmax(rmax, fabs(s));
            }
        char w2[240];
        snprintf(w2, sizeof w2, "%s: within 2%% of the float product (%.3g)", what,
                 rmax > 0 ? emax / rmax : 0.0);
        check(emax <= 0.02 * rmax, w2);
    }
    free(y0), free(yref), free(a), free(b), free(c), free(slope);
}

int main(void)
{
    static const int64_t MS[] = {1, 2, 5, 6, 7, 13, 40}, NS[] = {1, 16, 63, 64, 65, 150},
                         KS[] = {1, 3, 4, 17, 64, 130};
    int at = 0;
    for (size_t i = 0; i < sizeof MS / sizeof *MS; i++)
        for (size_t j = 0; j < sizeof NS / sizeof *NS; j++)
            for (size_t k = 0; k < sizeof KS / sizeof *KS; k++, at++)
                qcase(MS[i], NS[j], KS[k], at % 2, at % 4,
                      at % 3 == 0 ? PZ_ACT_NONE : at % 3 == 1 ? PZ_ACT_RELU : PZ_ACT_CLIP, 0);
    qcase(7, 70, 33, 0, 0, PZ_ACT_NONE, 1);
    qcase(13, 20, 9, 1, 3, PZ_ACT_RELU, 2);
    qcase(128, 96, 768, 0, 1, PZ_ACT_NONE, 0);   /* an encoder's shape, rows split */
    qcase(13, 70, 40, 0, 1, PZ_ACT_GELU, 0);     /* a feed-forward layer's epilogue */
    qcase(13, 70, 40, 1, 1, PZ_ACT_PRELU, 0);    /* a slope per column, a tail of 6 */
    qcase(1, 33, 17, 0, 0, PZ_ACT_PRELU, 0);
    return test_summary("rt_qdyn");
}
