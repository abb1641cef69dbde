/* rt_binary_f32.c - the float32 BINARY's AVX-512 and AVX2 kernels
 * (binary_avx512.c, binary_avx2.c) against their scalar twins, each ISA
 * the CPU has. Pow, Max, Min, PRelu, Mod, Fmod on plain
 * layouts against the reference pz_f32_binary__ref (pz_binary_f32: powf,
 * fmodf): lengths below, at,
 * above and multiples of 8 and 16, operands of one shape, one a scalar, a row
 * times a column, along the last axis (bcast_mode 0 to 4; a strided
 * operand is not taken), 1 and 3 workers, Y starting as 0xA5 bytes.
 * Values: random of both signs and many magnitudes, and the edge cases
 * 0, -0, +-inf, NaN, +-1, subnormals, integers odd and even, and
 * exponents 0, 2, 0.5, 3, -1, 2.5, 2^24 + 2, 1e10, +-inf, NaN. Max, Min,
 * PRelu, Mod and Fmod bit for bit (NaNs too); Pow within 1 ulp of powf
 * (powf's NaN bits where it is NaN, its bits on the edge lanes, x 0, inf
 * or NaN, and e = 2). Then Pow's worst ulp over 2^20 random pairs, and
 * the blocked kernels (binary16c, AVX-512 and AVX2) against their twin
 * (test_blocked). Prints `N passed, N failed`. */
#include "rt_test.h"

static const float EDGE_X[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 1e-40f, -3e-39f,
                               3.0f, -3.0f, -2.0f, 7.5f, -0.5f, 1e30f, -1e30f, 123456.0f, -8.0f};
static const float EDGE_E[] = {0.0f, -0.0f, 2.0f, 0.5f, 3.0f, -1.0f, 2.5f, 16777218.0f, 1e10f,
                               INFINITY, -INFINITY, NAN, -3.0f, 1.0f, 0.1f, -2.0f, 1e-3f, 17.0f};

/* A float of varied magnitude: an edge value one time in four, else
 * +-2^u with u in [-30, 30), or an integer in [-9, 9]. */
static float edgy(const float *edge, int ne)
{
    const float r = frand();
    if (r < -0.5f) return edge[(uint32_t)(-r * 10000) % (uint32_t)ne];
    if (r < 0.0f) return (float)(int)(frand() * 9.5f);
    return (frand() < 0 ? -1.0f : 1.0f) * exp2f(frand() * 30.0f);
}

/* The distance in ulps of two finite or infinite floats of one sign. */
static int64_t ulps(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;   /* the sign-magnitude bits as an ordered integer */
    if (ib < 0) ib = INT32_MIN - ib;
    return ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia;
}

static int same_bits(float a, float b)
{
    return memcmp(&a, &b, 4) == 0;   /* NaNs too: the same payload and sign */
}

/* y against the reference yr (n elements): bitwise, or Pow within 1 ulp
 * (bitwise where the kernel defers to powf: x 0, inf or NaN; e 2). */
static int64_t agree(pz_binary_func f, const float *y, const float *yr, const float *a, int64_t sa,
                     const float *b, int64_t sb, const pz_bcast *bc, int64_t n, int *bad)
{
    int64_t worst = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = i / bc->dims[bc->rank - 1], c = i % bc->dims[bc->rank - 1];
        const float x = a[(bc->rank > 1 ? r * bc->sa[0] : 0) + c * sa];
        const float e = b[(bc->rank > 1 ? r * bc->sb[0] : 0) + c * sb];
        const int exact = f != PZ_BIN_POW || x == 0 || !isfinite(x) || e == 2.0f || isnan(e);
        if (exact || isnan(yr[i]) || isnan(y[i])) {
            if (!same_bits(y[i], yr[i])) {
                if (*bad < 5) fprintf(stderr, "f%d: %a, %a: %a, want %a\n", f, x, e, y[i], yr[i]);
                ++*bad;
            }
            continue;
        }
        const int64_t u = ulps(y[i], yr[i]);
        if (u > worst) worst = u;
        if (u > 1 && *bad < 5) fprintf(stderr, "pow %a %a: %a, powf %a (%lld ulps)\n", x, e, y[i], yr[i], (long long)u);
        *bad += u > 1;
    }
    return worst;
}

static void test_twins(const pz_fast_kernels *k)
{
    static const int64_t NS[] = {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100};
    static const pz_binary_func FN[] = {PZ_BIN_POW, PZ_BIN_MAX, PZ_BIN_MIN, PZ_BIN_PRELU,
                                        PZ_BIN_MOD, PZ_BIN_FMOD};
    static const char *const FNAME[] = {"Pow", "Max", "Min", "PRelu", "Mod", "Fmod"};
    int64_t worst = 0;
    for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++)
        for (int mode = 0; mode < BCAST_MODES; mode++)
            for (size_t fi = 0; fi < sizeof FN / sizeof FN[0]; fi++) {
                const int64_t n = NS[t];
                pz_bcast bc;
                bcast_mode(mode, n, &bc);
                const pz_binary_params p = {.func = FN[fi]};
                const bool takes = pz_f32_binary_vec_takes(&p, &bc);
                checkf(takes == (mode != 5), "%s mode%d: taken iff no strided operand", FNAME[fi], mode);
                if (!takes) continue;
                float *a = malloc((size_t)(6 * n) * 4), *b = malloc((size_t)(3 * n) * 4);
                float *yr = malloc((size_t)(3 * n) * 4), *y = malloc((size_t)(3 * n) * 4);
                const int pw = FN[fi] == PZ_BIN_POW;
                for (int64_t i = 0; i < 6 * n; i++) a[i] = edgy(EDGE_X, 18);
                for (int64_t i = 0; i < 3 * n; i++)
                    b[i] = pw ? edgy(EDGE_E, 18) : edgy(EDGE_X, 18);
                pz_f32_binary__ref(&p, &bc, a, b, yr, 0, 1);
                for (int nth = 1; nth <= 3; nth += 2) {
                    memset(y, 0xa5, (size_t)(3 * n) * 4);
                    for (int ith = 0; ith < nth; ith++) k->f32_binary(&p, &bc, a, b, y, ith, nth);
                    int bad = 0;
                    const int64_t w = agree(FN[fi], y, yr, a, bc.sa[bc.rank - 1], b, bc.sb[bc.rank - 1],
                                            &bc, 3 * n, &bad);
                    if (w > worst) worst = w;
                    checkf(bad == 0, "%s %s n%lld mode%d nth%d: %d lanes differ", k->name, FNAME[fi],
                           (long long)n, mode, nth, bad);
                }
                free(a), free(b), free(yr), free(y);
            }
    fprintf(stderr, "pow %s: at most %lld ulp from powf on the sweep\n", k->name, (long long)worst);
}

/* Pow over 2^20 random pairs (bases 2^[-30, 30) of both signs, integer
 * exponents for the negative ones; exponents in [-8, 8)): the worst ulp. */
static void test_pow_ulps(const pz_fast_kernels *k)
{
    const int64_t n = 1 << 20;
    float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
        const float s = frand();
        a[i] = (s < 0 ? -1.0f : 1.0f) * exp2f(frand() * 30.0f);
        b[i] = s < 0 ? (float)(int)(frand() * 8.5f) : frand() * 8.0f;
    }
    pz_bcast bc;
    CHECK(pz_bcast_init(&bc, 1, &n, 1, &n, 1, &n) == 0);
    const pz_binary_params p = {.func = PZ_BIN_POW};
    k->f32_binary(&p, &bc, a, b, y, 0, 1);
    int64_t worst = 0, off = 0;
    for (int64_t i = 0; i < n; i++) {
        const float want = powf(a[i], b[i]);
        const int64_t u = isnan(want) && isnan(y[i]) ? 0 : ulps(y[i], want);
        worst = u > worst ? u : worst;
        off += u != 0;
    }
    fprintf(stderr, "pow %s: %lld of %lld random pairs off powf, at most %lld ulp\n", k->name,
            (long long)off, (long long)n, (long long)worst);
    CHECK(worst <= 1);
    free(a), free(b), free(y);
}

/* A blocked kernel (binary16c) against eltwise16c.c's scalar twin: every
 * float function, each operand of Y's shape (0), per channel with N
 * images (1) or one (2), or one value (3), one at least of Y's shape; C 16,
 * 40, 5 and 33 (partial last blocks), 1 to 33 pixels, N 1 and 2; no
 * activation, Relu and Clip; 1 and 3 workers; Y starting as 0xA5 bytes,
 * the operands' padded lanes edge values too (the output's must be 0
 * whatever they hold). Bitwise, Pow within 1 ulp (NaN where the twin's is). */
static void test_blocked(const pz_fast_kernels *k)
{
    static const pz_binary_func FN[] = {PZ_BIN_ADD, PZ_BIN_SUB, PZ_BIN_MUL, PZ_BIN_DIV, PZ_BIN_POW,
                                        PZ_BIN_MAX, PZ_BIN_MIN, PZ_BIN_PRELU, PZ_BIN_MOD, PZ_BIN_FMOD};
    static const int MODES[][2] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {2, 0}, {3, 0}};
    static const int64_t SHAPES[][3] = {{1, 16, 1}, {2, 40, 7}, {1, 5, 33}, {2, 33, 17}};
    static const pz_act ACTS[] = {{.kind = PZ_ACT_NONE}, {.kind = PZ_ACT_RELU},
                                  {.kind = PZ_ACT_CLIP, .lo = -0.5f, .hi = 2.0f}};
    int runs = 0;
    int64_t worst = 0;
    for (size_t fi = 0; fi < sizeof FN / sizeof FN[0]; fi++) {
        checkf(pz_f32_binary16c_vec_takes(FN[fi]), "binary16c takes f%d", FN[fi]);
        for (size_t mi = 0; mi < sizeof MODES / sizeof MODES[0]; mi++)
            for (size_t si = 0; si < sizeof SHAPES / sizeof SHAPES[0]; si++)
                for (size_t ai = 0; ai < sizeof ACTS / sizeof ACTS[0]; ai++) {
                    const int64_t n = SHAPES[si][0], c = SHAPES[si][1], hw = SHAPES[si][2];
                    const int64_t ny = n * ((c + 15) / 16) * hw * 16;
                    int64_t len[2];
                    float *op[2];
                    for (int o = 0; o < 2; o++) {
                        const int m = MODES[mi][o];
                        len[o] = m == 0 ? ny : m == 1 ? n * ((c + 15) / 16) * 16
                               : m == 2 ? ((c + 15) / 16) * 16 : 1;
                        op[o] = malloc((size_t)len[o] * 4);   /* exactly: ASan sees a read past it */
                        const int exps = o == 1 && FN[fi] == PZ_BIN_POW;
                        for (int64_t i = 0; i < len[o]; i++)
                            op[o][i] = exps ? edgy(EDGE_E, 18) : edgy(EDGE_X, 18);
                    }
                    const pz_binary_params p = {.func = FN[fi], .act = ACTS[ai]};
                    float *yr = malloc((size_t)ny * 4), *y = malloc((size_t)ny * 4);
                    memset(yr, 0xa5, (size_t)ny * 4);
                    pz_f32_binary16c__scalar(&p, n, c, hw, op[0], MODES[mi][0], op[1], MODES[mi][1],
                                             yr, 0, 1);
                    for (int nth = 1; nth <= 3; nth += 2) {
                        memset(y, 0xa5, (size_t)ny * 4);
                        for (int ith = 0; ith < nth; ith++)
                            k->binary16c(&p, n, c, hw, op[0], MODES[mi][0], op[1], MODES[mi][1], y,
                                         ith, nth);
                        int bad = 0;
                        for (int64_t i = 0; i < ny; i++) {
                            const int64_t u = isnan(y[i]) || isnan(yr[i]) ? !same_bits(y[i], yr[i]) * 99
                                            : ulps(y[i], yr[i]);
                            if (FN[fi] == PZ_BIN_POW && u <= 1) {
                                worst = u > worst ? u : worst;
                                continue;
                            }
                            if (same_bits(y[i], yr[i])) continue;
                            if (bad++ < 3)
                                fprintf(stderr, "blocked f%d modes %d,%d c%lld hw%lld act%d [%lld]: %a, twin %a\n",
                                        FN[fi], MODES[mi][0], MODES[mi][1], (long long)c, (long long)hw,
                                        ACTS[ai].kind, (long long)i, y[i], yr[i]);
                        }
                        runs++;
                        checkf(bad == 0, "blocked f%d modes %d,%d n%lld c%lld hw%lld act %d nth%d: %d "
                               "lanes differ from the twin", FN[fi], MODES[mi][0], MODES[mi][1],
                               (long long)n, (long long)c, (long long)hw, ACTS[ai].kind, nth, bad);
                    }
                    free(op[0]), free(op[1]), free(yr), free(y);
                }
    }
    fprintf(stderr, "blocked %s: %d runs, Pow at most %lld ulp from the twin\n", k->name, runs,
            (long long)worst);
}

/* A few values ONNX Runtime and numpy give (np.power, np.fmod, np.mod). */
static void test_values(const pz_fast_kernels *k)
{
    static const struct { pz_binary_func f; float a, b, want; } V[] = {
        {PZ_BIN_POW, -2.0f, 3.0f, -8.0f}, {PZ_BIN_POW, -2.0f, 2.0f, 4.0f},
        {PZ_BIN_POW, 0.0f, 0.0f, 1.0f},   {PZ_BIN_POW, 4.0f, 0.5f, 2.0f},
        {PZ_BIN_POW, 2.0f, -2.0f, 0.25f}, {PZ_BIN_POW, 10.0f, 3.0f, 1000.0f},
        {PZ_BIN_MOD, -7.0f, 3.0f, 2.0f},  {PZ_BIN_MOD, 7.0f, -3.0f, -2.0f},
        {PZ_BIN_FMOD, -7.0f, 3.0f, -1.0f}, {PZ_BIN_FMOD, 5.5f, 2.0f, 1.5f},
        {PZ_BIN_MAX, 3.0f, 1.0f, 3.0f},   {PZ_BIN_MIN, -1.0f, 2.0f, -1.0f},
    };
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        const int64_t one = 1;
        pz_bcast bc;
        CHECK(pz_bcast_init(&bc, 1, &one, 1, &one, 1, &one) == 0);
        const pz_binary_params p = {.func = V[i].f};
        float y = 0;
        k->f32_binary(&p, &bc, &V[i].a, &V[i].b, &y, 0, 1);
        checkf(y == V[i].want, "%s f%d(%g, %g) = %g, want %g", k->name, V[i].f, V[i].a, V[i].b, y,
               V[i].want);
    }
    /* NaN: powf(-2, 0.5), fmod(1, 0), Max(1, NaN) (numpy's: NaN propagates) */
    const int64_t one = 1;
    pz_bcast bc;
    CHECK(pz_bcast_init(&bc, 1, &one, 1, &one, 1, &one) == 0);
    float y = 0, a = -2.0f, b = 0.5f;
    k->f32_binary(&(pz_binary_params){.func = PZ_BIN_POW}, &bc, &a, &b, &y, 0, 1);
    CHECK(isnan(y));
    a = 1.0f, b = 0.0f;
    k->f32_binary(&(pz_binary_params){.func = PZ_BIN_FMOD}, &bc, &a, &b, &y, 0, 1);
    CHECK(isnan(y));
    b = NAN;
    k->f32_binary(&(pz_binary_params){.func = PZ_BIN_MAX}, &bc, &a, &b, &y, 0, 1);
    CHECK(isnan(y));
    /* signed zeros and NaN on either side, each function, 9 lanes (a tail
     * at AVX2): the twin's bits, Max(0, -0) = -0 and Max(NaN, 1) = NaN among them */
    static const float Z[][2] = {{0.0f, -0.0f}, {-0.0f, 0.0f}, {NAN, 1.0f}, {1.0f, NAN},
                                 {-NAN, -1.0f}, {-0.0f, -0.0f}, {-1.0f, -0.0f}, {-0.0f, NAN},
                                 {INFINITY, -0.0f}};
    static const pz_binary_func FZ[] = {PZ_BIN_MAX, PZ_BIN_MIN, PZ_BIN_PRELU, PZ_BIN_POW,
                                        PZ_BIN_MOD, PZ_BIN_FMOD};
    const int64_t nz = 9;
    float za[9], zb[9], zy[9];
    for (int i = 0; i < 9; i++) za[i] = Z[i][0], zb[i] = Z[i][1];
    CHECK(pz_bcast_init(&bc, 1, &nz, 1, &nz, 1, &nz) == 0);
    for (size_t f = 0; f < sizeof FZ / sizeof FZ[0]; f++) {
        k->f32_binary(&(pz_binary_params){.func = FZ[f]}, &bc, za, zb, zy, 0, 1);
        for (int i = 0; i < 9; i++)
            checkf(same_bits(zy[i], pz_binary_f32(FZ[f], za[i], zb[i])), "%s f%d(%a, %a) = %a",
                   k->name, FZ[f], za[i], zb[i], zy[i]);
    }
}

/* Every test of one ISA's kernels. */
static void test_isa(const pz_fast_kernels *k)
{
    checkf(k->f32_binary != NULL, "%s has a plain f32_binary", k->name);
    checkf(k->binary16c != pz_f32_binary16c__scalar, "%s has a vector binary16c", k->name);
    if (!k->f32_binary) return;
    test_twins(k);
    test_pow_ulps(k);
    test_values(k);
    test_blocked(k);
}

int main(void)
{
    int tested = 0;
    const pz_fast_kernels *k2 = pz_fast_kernels_for(PZ_ISA_AVX2);
    if (cpu_has_avx2() && k2->isa == PZ_ISA_AVX2) {   /* not a PZ_SCALAR build */
        test_isa(k2);
        tested++;
    }
    const pz_fast_kernels *k5 = pz_fast_kernels_for(PZ_ISA_AVX512);
    if (cpu_has_avx512() && k5->isa == PZ_ISA_AVX512) {
        test_isa(k5);
        tested++;
    }
    if (!tested) printf("rt_binary_f32: no AVX2 or AVX-512 here: skipped\n");
    return test_summary("rt_binary_f32");
}
