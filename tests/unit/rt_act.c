/* rt_act.c - the fused epilogue activations that are not a clamp (pz_act:
 * LeakyRelu, Sigmoid, Swish, HardSigmoid, HardSwish, Tanh, Elu, Selu,
 * Softplus, Mish) through each
 * ISA's act16c (rt/kernels/eltwise/act16c*.c: the conv drivers' epilogue,
 * on pz_act16_ps / pz_act8_ps, which the GEMM epilogues share) against
 * pz_act_f64, the same formula in double, over x in [-30, 30] by 2^-9 and
 * a few special values:
 *   - Sigmoid, Swish, Tanh (through an e^x approximation): relative error
 *     under 1e-6 (results under 1e-36 in magnitude: absolute, as the
 *     reference's own expf flushes there); the worst is printed;
 *   - the piecewise-linear kinds: within 2e-7 (1 + |x|) (the float
 *     formula's own rounding, as the unary layer's scalar kernel);
 * and the lanes of channels >= C are zeros (C = 40: block 2 has 8 lanes).
 * Sigmoid and Swish where e^-x (e^-alpha x) is under float's normal range
 * (x in [87, 130]): on the SIMD ISAs no underflow is raised (e^t is taken
 * as 0 below t = -87: a denormal costs a microcode assist a vector) and the
 * results are the limits 1/(1 + tiny) rounds to, 1 and x, bitwise; through
 * act16c and the unary layer (the scalar twin is the reference formula,
 * expf's own underflow included);
 * the UNARY layer's GELU, both forms, at AVX-512 and AVX2, at x in
 * [-30, -4]: no underflow either.
 * PRelu (a slope per channel, from the act's slope array): bitwise the
 * float product (float)(slope[c] * x) where x < 0, else x, at channel
 * blocks 0, 1 and the partial 2 of C = 40 (slopes read only below C: the
 * array has exactly 40), and -0.0 and NaN kept as the scalar twin keeps
 * them. SELECT (Where(x cmp t, A, B)): bitwise the test's own Where over
 * every comparison and branch form, at -0, NaN, +-inf, denormals and x = t.
 * ELU, SELU, SOFTPLUS, MISH, GELU (both forms), LeakyRelu, Sigmoid, Swish
 * (alpha 1 and 1.702), HardSigmoid (two alphas), HardSwish: bitwise the
 * UNARY layer's kernel of the same ISA (a fused layer's bits are the
 * unfused one's; AVX-512's and AVX2's: vector forms, the scalar ISA's
 * libm), NaN and +-inf included, the partial block's too; the first four
 * within 4.8e-7 relative of pz_act_f64 (the worst printed). GELU (erf and tanh forms)
 * through act16c within 2.5e-7 max(|x|, 1) of the formula in double over
 * [-30, 30] and the specials; NaN stays NaN, +inf +inf, -inf NaN (x/2 (1 +
 * erf(-inf)), as PyTorch). Erf through the UNARY layer's kernel (AVX-512:
 * vmath's erf_ps) within 4e-7 of erf in double (about 5 float ulps near 1:
 * the rational function's rounding in float), relatively within 1e-6 below
 * 1e-3 in magnitude (0 exactly at 0); +-inf give +-1, NaN NaN.
 *
 * Prints `rt_act: P passed, F failed`; exits 1 on a failure.
 */
#include <fenv.h>
#include <stdio.h>

#include "rt_test.h"

static const char *const KIND[] = {"none", "relu", "clip", "gelu", "leaky_relu", "sigmoid",
                                   "swish", "hard_sigmoid", "hard_swish", "tanh", "prelu",
                                   "select", "elu", "selu", "softplus", "mish"};

/* PRELU through act16c: the three blocks of C = 40 channels, bitwise. */
static void prelu_blocks(const pz_fast_kernels *k, const float *x)
{
    float *slope = malloc(40 * sizeof *slope);   /* exactly C: a read past it is ASan's */
    for (int c = 0; c < 40; c++) slope[c] = (float)(c % 7) * 0.25f - 0.5f + (float)c / 64.0f;
    const pz_act act = {.kind = PZ_ACT_PRELU, .slope = slope};
    enum { NPIX = 37 };
    float blk[NPIX * 16];
    bool ok = true;
    for (int c0 = 0; c0 < 40; c0 += 16) {
        for (int i = 0; i < NPIX * 16; i++) blk[i] = x[(i * 131 + c0) % (16 * 1920 - 256)];
        blk[5] = -0.0f, blk[6] = NAN, blk[7] = -INFINITY;
        k->act16c(&act, blk, NPIX, c0, 40);
        for (int i = 0; i < NPIX * 16; i++) {
            float v = x[(i * 131 + c0) % (16 * 1920 - 256)];
            if (i == 5) v = -0.0f;
            if (i == 6) v = NAN;
            if (i == 7) v = -INFINITY;
            const int c = c0 + i % 16;
            const float want = c >= 40 ? 0.0f : v < 0 ? slope[c] * v : v;
            if (memcmp(&want, &blk[i], sizeof want) && !(isnan(want) && isnan(blk[i]))) ok = false;
        }
    }
    char what[160];
    snprintf(what, sizeof what, "%s prelu: slope per channel, blocks 0..2 of C = 40, bitwise",
             k->name);
    check(ok, what);
    free(slope);
}

/* The test's own Where(v cmp t, A, B): ONNX's comparison (NaN false), A
 * the constant lo or the product lo * v (1 * v: v), B likewise with hi. */
static float where_want(int cmp, float t, int sel, float lo, float hi, float v)
{
    int c = cmp == PZ_CMP_LT ? v < t : cmp == PZ_CMP_LE ? v <= t : cmp == PZ_CMP_GT ? v > t
          : cmp == PZ_CMP_GE ? v >= t : v == t;
    volatile float a = lo * v, b = hi * v;   /* Mul's rounding, no contraction */
    return c ? (sel & 1 ? lo : a) : (sel & 2 ? hi : b);
}

/* SELECT through act16c, each comparison, threshold and branch form
 * (y, constant, y * k; constants +-0 included) on inputs that hit the
 * threshold exactly, -0, +-inf and NaN: bitwise the test's Where (NaN: any
 * NaN), C = 40 (the partial block's lanes zero). */
static void select_bits(const pz_fast_kernels *k)
{
    static const float T[] = {0.0f, 1.0f, -0.5f};
    static const float K[][2] = {{1.0f, 0.0f}, {0.2f, 1.0f}, {-0.0f, -1.5f}, {3.0f, 0.25f}};
    enum { NPIX = 5 };
    float v[NPIX * 16], blk[NPIX * 16];
    for (int i = 0; i < NPIX * 16; i++) v[i] = (float)(i % 13 - 6) * 0.25f;   /* -1.5 .. 1.5 */
    v[3] = -0.0f, v[4] = NAN, v[5] = INFINITY, v[6] = -INFINITY, v[7] = 1e-40f, v[8] = -1e-40f;
    int bad = 0, cases = 0;
    for (int cmp = PZ_CMP_EQ; cmp <= PZ_CMP_GE; cmp++)
        for (size_t ti = 0; ti < sizeof T / sizeof *T; ti++)
            for (size_t ki = 0; ki < sizeof K / sizeof *K; ki++)
                for (int sel = 0; sel < 4; sel++)
                    for (int c0 = 0; c0 < 40; c0 += 32) {
                        const pz_act act = {.kind = PZ_ACT_SELECT, .lo = K[ki][0], .hi = K[ki][1],
                                            .t = T[ti], .cmp = cmp, .sel = sel};
                        memcpy(blk, v, sizeof blk);
                        k->act16c(&act, blk, NPIX, c0, 40);
                        cases++;
                        for (int i = 0; i < NPIX * 16; i++) {
                            float want = c0 + i % 16 >= 40 ? 0.0f
                                         : where_want(cmp, T[ti], sel, K[ki][0], K[ki][1], v[i]);
                            if (memcmp(&want, &blk[i], sizeof want) && !(isnan(want) && isnan(blk[i]))) {
                                if (!bad++)
                                    printf("  %s select cmp %d t %g lo %g hi %g sel %d: x %g -> %g, want %g\n",
                                           k->name, cmp, (double)T[ti], (double)K[ki][0],
                                           (double)K[ki][1], sel, (double)v[i], (double)blk[i],
                                           (double)want);
                                break;
                            }
                        }
                    }
    char what[160];
    snprintf(what, sizeof what, "%s select: %d forms (5 comparisons, 3 thresholds, -0, NaN, inf), "
             "bitwise the test's Where", k->name, cases);
    check(!bad, what);
}

/* Sigmoid and Swish at x in [87, 130) on a SIMD ISA: no underflow raised,
 * results 1 and x bitwise (see the top). */
static void no_underflow(const pz_fast_kernels *k)
{
    enum { NV = 16 * 32 };
    float v[NV], y[NV];
    for (int i = 0; i < NV; i++) v[i] = 87.0f + (float)i / 12.0f;
    const struct {
        pz_act_kind act;
        pz_unary_func un;
        float alpha;
    } f[] = {{PZ_ACT_SIGMOID, PZ_UN_SIGMOID, 1.0f}, {PZ_ACT_SWISH, PZ_UN_SWISH, 1.0f},
             {PZ_ACT_SWISH, PZ_UN_SWISH, 1.702f}};
    for (size_t j = 0; j < sizeof f / sizeof f[0]; j++)
        for (int way = 0; way < 2; way++) {
            const pz_act act = {.kind = f[j].act, .lo = f[j].alpha};
            const pz_unary_params up = {.func = f[j].un, .alpha = f[j].alpha};
            memcpy(y, v, sizeof y);
            feclearexcept(FE_ALL_EXCEPT);
            if (way == 0) k->act16c(&act, y, NV / 16, 0, 16);
            else k->unary16c(&up, 1, 16, NV / 16, v, y, 0, 1);
            const int uf = fetestexcept(FE_UNDERFLOW);
            bool ok = true;
            for (int i = 0; i < NV; i++) {
                const float want = f[j].act == PZ_ACT_SIGMOID ? 1.0f : v[i];
                if (memcmp(&want, &y[i], sizeof want)) ok = false;
            }
            char what[160];
            snprintf(what, sizeof what, "%s %s %s alpha %g at x in [87, 130): no underflow%s, %s",
                     k->name, way ? "unary" : "act16c", KIND[f[j].act], (double)f[j].alpha,
                     uf ? " (raised)" : "", f[j].act == PZ_ACT_SIGMOID ? "1" : "x");
            check(!uf && ok, what);
        }
    /* GELU, both forms, where its e^t would be under float's normal range
     * (x in [-30, -4]): gelu_ps and gelu8_ps hold t at -86.5 */
    for (int i = 0; i < NV; i++) v[i] = -30.0f + (float)i * 26.0f / NV;
    for (int tanh_form = 0; tanh_form < 2; tanh_form++) {
        const pz_unary_params up = {.func = PZ_UN_GELU, .alpha = (float)tanh_form};
        feclearexcept(FE_ALL_EXCEPT);
        k->unary16c(&up, 1, 16, NV / 16, v, y, 0, 1);
        char what[120];
        snprintf(what, sizeof what, "%s unary gelu (%s) at x in [-30, -4]: no underflow", k->name,
                 tanh_form ? "tanh" : "erf");
        check(!fetestexcept(FE_UNDERFLOW), what);
    }
}

/* ELU, SELU, SOFTPLUS, MISH, GELU, LEAKY_RELU, SIGMOID, SWISH, HARD_SIGMOID
 * and HARD_SWISH through act16c: bitwise the UNARY layer's kernel (unary16c
 * of the same ISA: vector forms, the scalar ISA's libm), and the lanes of
 * channels >= C (40, from 32) zeros. */
static void unary_bits(const pz_fast_kernels *k, const float *x, int n)
{
    const struct {
        pz_act_kind act;
        pz_unary_func un;
        float alpha, gamma;
    } f[] = {{PZ_ACT_ELU, PZ_UN_ELU, 0.7f, 0}, {PZ_ACT_SELU, PZ_UN_SELU, 1.6732632f, 1.0507010f},
             {PZ_ACT_SOFTPLUS, PZ_UN_SOFTPLUS, 0, 0}, {PZ_ACT_MISH, PZ_UN_MISH, 0, 0},
             {PZ_ACT_GELU, PZ_UN_GELU, 0, 0}, {PZ_ACT_GELU, PZ_UN_GELU, 1, 0},
             {PZ_ACT_LEAKY_RELU, PZ_UN_LEAKY_RELU, 0.1f, 0}, {PZ_ACT_SIGMOID, PZ_UN_SIGMOID, 0, 0},
             {PZ_ACT_SWISH, PZ_UN_SWISH, 1.0f, 0}, {PZ_ACT_SWISH, PZ_UN_SWISH, 1.702f, 0},
             {PZ_ACT_HARD_SIGMOID, PZ_UN_HARD_SIGMOID, 0.2f, 0.5f},
             {PZ_ACT_HARD_SIGMOID, PZ_UN_HARD_SIGMOID, 1.0f / 6, 0.5f},
             {PZ_ACT_HARD_SWISH, PZ_UN_HARD_SWISH, 0, 0}};
    float *in = new_nan(n), *fy = new_nan(n), *uy = new_nan(n);
    memcpy(in, x, (size_t)n * sizeof *in);
    in[0] = NAN, in[1] = -INFINITY, in[2] = INFINITY;
    for (size_t j = 0; j < sizeof f / sizeof f[0]; j++) {
        /* HardSigmoid's beta is the act's hi, SELU's gamma */
        const pz_act act = {.kind = f[j].act, .lo = f[j].alpha, .hi = f[j].gamma};
        const pz_unary_params up = {.func = f[j].un, .alpha = f[j].alpha, .beta = f[j].gamma,
                                    .gamma = f[j].gamma};
        memcpy(fy, in, (size_t)n * sizeof *fy);
        k->act16c(&act, fy, n / 16, 0, 16);
        k->unary16c(&up, 1, 16, n / 16, in, uy, 0, 1);
        int diff = 0;
        for (int i = 0; i < n; i++) diff += memcmp(&fy[i], &uy[i], sizeof *fy) != 0;
        /* the partial block: lanes < 8 the unary layer's bits, the rest 0 */
        float blk[3 * 16], bx[3 * 16], by[3 * 16];
        for (int i = 0; i < 3 * 16; i++) blk[i] = bx[i] = x[i * 97 % n];
        k->act16c(&act, blk, 3, 32, 40);
        k->unary16c(&up, 1, 16, 3, bx, by, 0, 1);
        int tail = 0;
        for (int i = 0; i < 3 * 16; i++)
            tail += i % 16 >= 8 ? blk[i] != 0.0f : memcmp(&blk[i], &by[i], sizeof *blk) != 0;
        /* and within 4.8e-7 relative (4 to 8 ulp; 2e-37 absolute) of the
         * double formula: the vector forms are within 4.5 ulp
         * (rt_unary_math); SELU's scalar float formula (gamma (alpha e^x -
         * alpha)) cancels near 0, so there only x <= -1/2 */
        const bool cancels = f[j].act == PZ_ACT_SELU && k->isa == PZ_ISA_SCALAR;
        /* GELU has its own bound (gelu_bound), the kinds after it main's */
        const bool gelu = f[j].act == PZ_ACT_GELU;
        const bool bound = f[j].act == PZ_ACT_ELU || f[j].act == PZ_ACT_SELU ||
                           f[j].act == PZ_ACT_SOFTPLUS || f[j].act == PZ_ACT_MISH;
        double worst = 0, wx = 0;
        for (int i = 3; i < n && bound; i++) {
            if (cancels && in[i] > -0.5f && in[i] <= 0) continue;
            const double want = f[j].act == PZ_ACT_SELU && in[i] <= 0   /* no cancellation */
                                    ? (double)act.hi * act.lo * expm1((double)in[i])
                                    : pz_act_f64(&act, (double)in[i]);
            const double e = fabs(fy[i] - want) / (4.8e-7 * fabs(want) + 2e-37);
            if (!(e <= worst)) worst = e, wx = in[i];
        }
        char what[220];
        char form[40] = "";
        if (gelu) snprintf(form, sizeof form, " (%s)", f[j].alpha != 0 ? "tanh" : "erf");
        else if (!bound && f[j].alpha != 0) snprintf(form, sizeof form, " alpha %g", (double)f[j].alpha);
        char err[80] = "";
        if (bound) snprintf(err, sizeof err, ", error %.2f of 4.8e-7 relative at x = %.9g", worst, wx);
        snprintf(what, sizeof what, "%s %s%s: act16c = the unary layer bitwise (%d differ), "
                 "lanes >= C zero (%d wrong)%s", k->name, KIND[f[j].act], form, diff, tail, err);
        printf("  %s\n", what);
        check(!diff && !tail && worst <= 1, what);
    }
    free(in);
    free(fy);
    free(uy);
}

/* GELU, both forms, through act16c against the formula in double: within
 * 2.5e-7 max(|x|, 1); NaN, +-inf as the top says. */
static void gelu_bound(const pz_fast_kernels *k, const float *x, int n)
{
    float *y = new_nan(n + 16);
    for (int tanh_form = 0; tanh_form < 2; tanh_form++) {
        const pz_act act = {.kind = PZ_ACT_GELU, .lo = (float)tanh_form};
        memcpy(y, x, (size_t)n * sizeof *y);
        const float sp[16] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 1e-40f, -1e-40f, 0.0f,
                              -0.0f, 5.7f, -5.7f, 13.0f, -13.0f, 0.75f, -0.75f, 2.0f};
        memcpy(y + n, sp, sizeof sp);
        k->act16c(&act, y, n / 16 + 1, 0, 16);
        double worst = 0, wx = 0;
        for (int i = 0; i < n + 16; i++) {
            const float xi = i < n ? x[i] : sp[i - n];
            if (!isfinite(xi)) continue;
            const double e = fabs(y[i] - pz_act_f64(&act, (double)xi)) / fmax(fabs((double)xi), 1.0);
            if (!(e <= worst)) worst = e, wx = xi;
        }
        const bool inf_ok = isnan(y[n]) && y[n + 1] == INFINITY && isnan(y[n + 2]);
        char what[160];
        snprintf(what, sizeof what, "%s gelu (%s): max error %.3g max(|x|, 1) at x = %.9g; NaN, "
                 "+-inf %s", k->name, tanh_form ? "tanh" : "erf", worst, wx, inf_ok ? "right" : "WRONG");
        printf("  %s\n", what);
        check(worst <= 2.5e-7 && inf_ok, what);
    }
    free(y);
}

/* Erf through the UNARY layer's kernel against erf in double (see the top). */
static void erf_bound(const pz_fast_kernels *k, const float *x, int n)
{
    float *in = new_nan(n), *y = new_nan(n);
    memcpy(in, x, (size_t)n * sizeof *in);
    for (int i = 0; i < n; i += 7) in[i] *= 1e-5f;   /* small ones: relative */
    in[0] = NAN, in[1] = INFINITY, in[2] = -INFINITY, in[3] = 1e-30f, in[4] = -1e-36f;
    const pz_unary_params up = {.func = PZ_UN_ERF};
    k->unary16c(&up, 1, 16, n / 16, in, y, 0, 1);
    double wa = 0, wr = 0, xa = 0, xr = 0;   /* the worst absolute and relative errors */
    for (int i = 3; i < n; i++) {
        const double want = erf((double)in[i]), e = fabs(y[i] - want);
        if (fabs(want) >= 1e-3 && !(e <= wa)) wa = e, xa = in[i];
        if (want == 0 ? y[i] != 0 : fabs(want) < 1e-3 && !(e / fabs(want) <= wr))
            wr = want == 0 ? 1 : e / fabs(want), xr = in[i];
    }
    char what[200];
    snprintf(what, sizeof what, "%s erf: max absolute error %.3g at x = %.9g, relative %.3g at "
             "x = %.9g; NaN, +-inf", k->name, wa, xa, wr, xr);
    printf("  %s\n", what);
    check(wa <= 4e-7 && wr <= 1e-6 && isnan(y[0]) && y[1] == 1.0f && y[2] == -1.0f, what);
    free(in);
    free(y);
}

int main(void)
{
    const pz_fast_kernels *ks[3];
    const int n_ks = fast_kernels_here(ks);
    enum { N = 16 * 1920 };   /* 60 * 512 steps of 2^-9, and 256 more for the specials */
    float *x = new_nan(N), *y = new_nan(N);
    for (int i = 0; i < N - 256; i++) x[i] = -30.0f + (float)i / 512.0f;
    const float special[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -1e-7f, 0.4999999f, -0.5f,
                             0.5f, 80.0f, -80.0f, 87.0f, -87.0f, 100.0f, -100.0f, -3.0f, 3.0f};
    for (int i = N - 256; i < N; i++) x[i] = special[i % (int)(sizeof special / sizeof *special)];
    for (int k = 0; k < n_ks; k++)
        for (int a = PZ_ACT_LEAKY_RELU; a < PZ_ACT_PRELU; a++) {
            const pz_act act = {.kind = (pz_act_kind)a,
                                .lo = a == PZ_ACT_SWISH ? 1.0f : a == PZ_ACT_LEAKY_RELU ? 0.1f : 0.2f,
                                .hi = 0.5f};
            const bool smooth = a == PZ_ACT_SIGMOID || a == PZ_ACT_SWISH || a == PZ_ACT_TANH;
            memcpy(y, x, N * sizeof *y);
            ks[k]->act16c(&act, y, N / 16, 0, 16);
            double worst = 0, wx = 0;
            for (int i = 0; i < N; i++) {
                const double want = pz_act_f64(&act, (double)x[i]), got = y[i];
                double e = smooth ? (fabs(want) < 1e-36 ? fabs(got - want) * 1e30
                                                        : fabs(got - want) / fabs(want))
                                  : fabs(got - want) / (2e-7 * (1 + fabs((double)x[i])));
                if (!(e <= worst)) worst = e, wx = x[i];
            }
            char what[160];
            snprintf(what, sizeof what, "%s %s: max %s error %.3g at x = %.9g", ks[k]->name,
                     KIND[a], smooth ? "relative" : "(in 2e-7 (1 + |x|))", worst, wx);
            printf("  %s\n", what);
            check(smooth ? worst < 1e-6 : worst <= 1.0, what);
            /* a partial block: channels 32..39 kept, 40..47 zeros */
            float blk[3 * 16];
            for (int i = 0; i < 3 * 16; i++) blk[i] = x[i * 97 % (N - 256)];
            ks[k]->act16c(&act, blk, 3, 32, 40);
            bool ok = true;
            for (int i = 0; i < 3 * 16; i++) {
                double want = i % 16 < 8 ? pz_act_f64(&act, (double)x[i * 97 % (N - 256)]) : 0.0;
                if (i % 16 >= 8 ? blk[i] != 0.0f : !(fabs(blk[i] - want) <= 1e-6 * (1 + fabs(want))))
                    ok = false;
            }
            snprintf(what, sizeof what, "%s %s: lanes of channels >= C zero", ks[k]->name, KIND[a]);
            check(ok, what);
            /* NaN passes */
            float nan16[16];
            for (int l = 0; l < 16; l++) nan16[l] = NAN;
            ks[k]->act16c(&act, nan16, 1, 0, 16);
            snprintf(what, sizeof what, "%s %s: NaN in, NaN out", ks[k]->name, KIND[a]);
            check(isnan(nan16[0]) && isnan(nan16[15]), what);
        }
    for (int k = 0; k < n_ks; k++) prelu_blocks(ks[k], x);
    for (int k = 0; k < n_ks; k++) select_bits(ks[k]);
    for (int k = 0; k < n_ks; k++) unary_bits(ks[k], x, N);
    for (int k = 0; k < n_ks; k++) gelu_bound(ks[k], x, N);
    for (int k = 0; k < n_ks; k++) erf_bound(ks[k], x, N);
    for (int k = 0; k < n_ks; k++)
        if (ks[k]->isa != PZ_ISA_SCALAR) no_underflow(ks[k]);
    free(x);
    free(y);
    return test_summary("rt_act");
}
