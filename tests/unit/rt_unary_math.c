/* rt_unary_math.c - the UNARY math functions of the reference kernels
 * (rt/kernels/eltwise/unary_ref.c): NEG, ABS, SIGN and SHRINK on every
 * integer type exactly (the extremes, where -INT_MIN wraps, and int64
 * values above 2^53, where a compare in double would round); ROUND's
 * halves to even on float32, float64, float16 and bfloat16; and every float
 * function's float32 entry point against the double one (within 2 ulp of
 * float, or 1e-30 absolute near 0), specials (+-0, +-inf, NaN) included.
 *
 * Prints `rt_unary_math: P passed, F failed`; exits 1 on a failure.
 */
#include <float.h>
#include <stdio.h>

#include "rt_test.h"

#define LEN(a) (sizeof(a) / sizeof (a)[0])

enum { NI = 12 };

/* Integer values of dt: the extremes and the small ones, as int64 bits. */
static void int_values(int dt, uint64_t *v)
{
    int bits = 8 * (int)pz_dtype_size(dt);
    bool sgn = pz_dtype_is_signed(dt);
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    uint64_t max = sgn ? mask >> 1 : mask, min = sgn ? ~(mask >> 1) : 0;
    const uint64_t small[NI - 4] = {0, 1, 2, 3, (uint64_t)-1, (uint64_t)-2, (uint64_t)-3,
                                    (1ull << 53) + 1};
    v[0] = max;
    v[1] = min;
    v[2] = max - 1;
    v[3] = min + 1;
    for (int i = 0; i < NI - 4; i++) {
        uint64_t s = small[i] & mask;
        /* sign-extended, as pz_load_bits gives them */
        v[4 + i] = sgn && bits < 64 && (s >> (bits - 1)) ? s | ~mask : s;
    }
}

/* The expected result, by the ONNX definitions, in the type's own width
 * (the caller compares the low bits). */
static uint64_t int_want(pz_unary_func f, bool sgn, uint64_t v, float lambd, float bias)
{
    int64_t s = (int64_t)v;
    switch (f) {
    case PZ_UN_NEG: return ~v + 1;
    case PZ_UN_ABS: return sgn && s < 0 ? ~v + 1 : v;
    case PZ_UN_SIGN: return sgn ? (uint64_t)(int64_t)((s > 0) - (s < 0)) : v != 0;
    default:   /* SHRINK with lambd 1.5 (|x| <= 1 -> 0) and a whole bias */
        if (sgn ? s < -1 : false) return v + (uint64_t)(int64_t)bias;
        if (sgn ? s > 1 : v > 1) return v - (uint64_t)(int64_t)bias;
        (void)lambd;
        return 0;
    }
}

static void test_ints(void)
{
    const int types[] = {PZ_I8, PZ_I16, PZ_I32, PZ_I64, PZ_U8, PZ_U16, PZ_U32, PZ_U64};
    const pz_unary_func fs[] = {PZ_UN_NEG, PZ_UN_ABS, PZ_UN_SIGN, PZ_UN_SHRINK};
    for (size_t t = 0; t < LEN(types); t++) {
        int dt = types[t];
        bool sgn = pz_dtype_is_signed(dt);
        int bits = 8 * (int)pz_dtype_size(dt);
        uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
        uint64_t v[NI], x[NI], y[NI];   /* room for NI elements of any type */
        int_values(dt, v);
        for (int i = 0; i < NI; i++) pz_store_bits(x, dt, i, v[i]);
        for (size_t k = 0; k < LEN(fs); k++) {
            check(pz_unary_supports(fs[k], dt), "supports");
            pz_unary_params p = {.func = fs[k], .alpha = 1.5f, .beta = 2.0f};
            memset(y, 0xa5, sizeof y);
            /* two workers: each writes its own share */
            pz_any_unary__ref(&p, dt, x, y, NI, 0, 2);
            pz_any_unary__ref(&p, dt, x, y, NI, 1, 2);
            for (int i = 0; i < NI; i++) {
                uint64_t got = pz_load_bits(y, dt, i) & mask;
                uint64_t want = int_want(fs[k], sgn, v[i], p.alpha, p.beta) & mask;
                checkf(got == want, "%s func %d x bits %llx: got %llx, want %llx",
                       pz_dtype_name(dt), (int)fs[k], (unsigned long long)(v[i] & mask),
                       (unsigned long long)got, (unsigned long long)want);
            }
        }
        check(!pz_unary_supports(PZ_UN_EXP, dt), "EXP is not an integer function");
    }
}

static void test_round(void)
{
    const double x[] = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 2.51, -3.7, 1e10 + 0.5};
    const double want[] = {0, 2, 2, -0.0, -2, -2, 0, 3, -4, 1e10};
    const int types[] = {PZ_F32, PZ_F64, PZ_F16, PZ_BF16};
    pz_unary_params p = {.func = PZ_UN_ROUND};
    for (size_t t = 0; t < LEN(types); t++) {
        int dt = types[t];
        double buf[16], out[16];
        int n = dt == PZ_F64 ? 10 : 9;   /* 1e10 + 0.5 only in double */
        for (int i = 0; i < n; i++) pz_store_f64(buf, dt, i, x[i]);
        if (dt == PZ_F32) pz_f32_unary__ref(&p, (const float *)buf, (float *)out, n, 0, 1);
        else pz_any_unary__ref(&p, dt, buf, out, n, 0, 1);
        for (int i = 0; i < n; i++) {
            double in = pz_load_f64(buf, dt, i), got = pz_load_f64(out, dt, i);
            /* float16/bfloat16 hold 2.51 and -3.7 inexactly; 0.49 too */
            double w = in == x[i] ? want[i] : nearbyint(in);
            checkf(got == w && signbit(got) == signbit(w), "Round %s(%g) = %g, want %g",
                   pz_dtype_name(dt), in, got, w);
        }
    }
}

/* Each float function's float32 entry point against its double one. */
static void test_float_funcs(void)
{
    static const struct {
        pz_unary_func f;
        double lo, hi;   /* the domain the random values come from */
        float alpha, beta;
    } fs[] = {
        {PZ_UN_NEG, -100, 100, 0, 0}, {PZ_UN_ABS, -100, 100, 0, 0},
        {PZ_UN_EXP, -80, 80, 0, 0}, {PZ_UN_LOG, 0, 1000, 0, 0},
        {PZ_UN_RECIPROCAL, -10, 10, 0, 0}, {PZ_UN_FLOOR, -100, 100, 0, 0},
        {PZ_UN_CEIL, -100, 100, 0, 0}, {PZ_UN_ROUND, -100, 100, 0, 0},
        {PZ_UN_SIGN, -2, 2, 0, 0}, {PZ_UN_SIN, -10, 10, 0, 0}, {PZ_UN_COS, -10, 10, 0, 0},
        {PZ_UN_TAN, -1.5, 1.5, 0, 0}, {PZ_UN_ASIN, -1, 1, 0, 0}, {PZ_UN_ACOS, -1, 1, 0, 0},
        {PZ_UN_ATAN, -100, 100, 0, 0}, {PZ_UN_SINH, -80, 80, 0, 0},
        {PZ_UN_COSH, -80, 80, 0, 0}, {PZ_UN_ASINH, -100, 100, 0, 0},
        {PZ_UN_ACOSH, 1, 100, 0, 0}, {PZ_UN_ATANH, -1, 1, 0, 0},
        {PZ_UN_CELU, -10, 10, 2.0f, 0}, {PZ_UN_MISH, -30, 30, 0, 0},
        {PZ_UN_SOFTSIGN, -100, 100, 0, 0}, {PZ_UN_THRESHOLDED_RELU, -3, 3, 1.0f, 0},
        {PZ_UN_SHRINK, -3, 3, 1.5f, 0.25f},
    };
    enum { N = 1000, NS = 6 };
    const float special[NS] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f};
    float x[N + NS], y[N + NS];
    double xd[N + NS], yd[N + NS];
    for (size_t k = 0; k < LEN(fs); k++) {
        pz_unary_params p = {.func = fs[k].f, .alpha = fs[k].alpha, .beta = fs[k].beta};
        check(pz_unary_supports(fs[k].f, PZ_F16) && pz_unary_supports(fs[k].f, PZ_F64),
              "float types supported");
        for (int i = 0; i < N; i++)
            x[i] = (float)(fs[k].lo + (fs[k].hi - fs[k].lo) * (frand() + 1) / 2);
        for (int i = 0; i < NS; i++) x[N + i] = special[i];
        for (int i = 0; i < N + NS; i++) xd[i] = x[i];
        pz_f32_unary__ref(&p, x, y, N + NS, 0, 1);
        pz_any_unary__ref(&p, PZ_F64, xd, yd, N + NS, 0, 1);
        int bad = 0;
        double worst_x = 0;
        for (int i = 0; i < N + NS; i++) {
            double w = yd[i], g = y[i];
            bool ok = isnan(w) ? isnan(g)
                    : isinf(w) || fabs(w) > 3.4e38 ? g == (float)w
                    : fabs(g - w) <= 2.4e-7 * fabs(w) + 1e-30;
            if (!ok && !bad++) worst_x = x[i];
        }
        checkf(!bad, "func %d: %d of %d values off the double reference (first at x = %g)",
               (int)fs[k].f, bad, N + NS, worst_x);
    }
}

/* The error of got in float ulps of the double result w (the spacing of
 * floats at |w|); results under FLT_MIN: 0 where |got - w| <= FLT_MIN (the
 * kernels take e^x as 0 there: no denormal), else huge. NaN must meet
 * NaN, an infinity itself (or a w that rounds to FLT_MAX: a vector exp
 * may overflow there). */
static double ulp_err(double w, float got)
{
    if (isnan(w) || isnan(got)) return isnan(w) && isnan(got) ? 0 : 1e30;
    if (isinf(got) || isinf(w))
        return (double)got == w || (fabs(w) > 3.4028e38 && (double)got * w > 0) ? 0 : 1e30;
    const double d = fabs((double)got - w);
    if (fabs(w) < FLT_MIN) return d <= FLT_MIN ? 0 : 1e30;
    int e;
    frexp(w, &e);   /* |w| in [2^(e-1), 2^e): floats 2^(e-24) apart */
    return d / ldexp(1.0, e - 24);
}

/* The vector forms (AVX-512's and AVX2's unary16c, vmath_*.h) of Tanh, Exp, Log,
 * Elu(0.7), Selu, Softplus, Mish against the function in double
 * (pz_any_unary__ref on float64) over x in [-120, 120] by 2^-6, +-2^e
 * (1 + k/64) for e in [-40, 40], and the specials (+-0, +-inf, NaN,
 * denormals, FLT_MAX, the ends of exp's range): the worst error in ulps
 * (ulp_err) printed, each under its bound (1.5 to 4.5 ulp). SELU's double
 * reference is gamma alpha expm1(x) here: the reference kernel's alpha e^x
 * - alpha cancels to 0 at x = -1e-38. */
static void test_vector_funcs(void)
{
    const pz_fast_kernels *ks[3];
    const int n_ks = fast_kernels_here(ks);
    static const struct {
        pz_unary_func f;
        const char *name;
        float alpha, gamma;
        double max_ulp;
    } fs[] = {
        {PZ_UN_TANH, "tanh", 0, 0, 3},          {PZ_UN_EXP, "exp", 0, 0, 3},
        {PZ_UN_LOG, "log", 0, 0, 1.5},          {PZ_UN_ELU, "elu", 0.7f, 0, 2.5},
        {PZ_UN_SELU, "selu", 1.6732632f, 1.0507010f, 2.5},
        {PZ_UN_SOFTPLUS, "softplus", 0, 0, 3}, {PZ_UN_MISH, "mish", 0, 0, 4.5},
    };
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, FLT_MIN,
                             -FLT_MIN, FLT_MAX, -FLT_MAX, 88.72f, 88.73f, -87.33f, -87.34f,
                             -103.0f, -104.0f, 1.0f, 0.99999994f, 1.0000001f, 0.5f, -0.5f, 15.0f,
                             15.000001f, 20.0f, -20.0f};
    enum { NL = 240 * 64 + 1, NG = 81 * 64 * 2, NS = LEN(special) };
    enum { N = (NL + NG + NS + 15) / 16 * 16 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    double *xd = malloc(N * sizeof *xd), *yd = malloc(N * sizeof *yd);
    int n = 0;
    for (int i = 0; i < NL; i++) x[n++] = -120.0f + (float)i / 64.0f;
    for (int e = -40; e <= 40; e++)
        for (int k = 0; k < 64; k++) {
            x[n++] = ldexpf(1.0f + (float)k / 64.0f, e);
            x[n++] = -ldexpf(1.0f + (float)k / 64.0f, e);
        }
    for (int i = 0; i < NS; i++) x[n++] = special[i];
    while (n < N) x[n++] = 1.0f;
    for (int i = 0; i < N; i++) xd[i] = x[i];
    for (int k = 0; k < n_ks; k++) {
        if (ks[k]->isa == PZ_ISA_SCALAR) continue;   /* the reference's libm */
        for (size_t j = 0; j < LEN(fs); j++) {
            const pz_unary_params p = {.func = fs[j].f, .alpha = fs[j].alpha, .gamma = fs[j].gamma};
            ks[k]->unary16c(&p, 1, 16, N / 16, x, y, 0, 1);
            pz_any_unary__ref(&p, PZ_F64, xd, yd, N, 0, 1);
            if (fs[j].f == PZ_UN_SELU)
                for (int i = 0; i < N; i++)
                    if (xd[i] <= 0) yd[i] = (double)fs[j].gamma * fs[j].alpha * expm1(xd[i]);
            double worst = 0, wx = 0;
            for (int i = 0; i < N; i++) {
                const double e = ulp_err(yd[i], y[i]);
                if (e > worst) worst = e, wx = x[i];
            }
            checkf(worst <= fs[j].max_ulp, "%s unary %s: max %.2f ulp (bound %g) at x = %.9g",
                   ks[k]->name, fs[j].name, worst, fs[j].max_ulp, wx);
            printf("  %s unary %s: max %.2f ulp at x = %.9g\n", ks[k]->name, fs[j].name, worst, wx);
        }
    }
    free(x);
    free(y);
    free(xd);
    free(yd);
}

int main(void)
{
    test_ints();
    test_round();
    test_float_funcs();
    test_vector_funcs();
    return test_summary("rt_unary_math");
}
