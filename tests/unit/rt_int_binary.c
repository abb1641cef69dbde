/* rt_int_binary.c - the integer BINARY's fast kernels (fast.h, int_binary:
 * the plain-C twin and the AVX-512 one) against pz_int_binary__ref, bit for
 * bit: Add, Sub, Mul, Div, Max, Min, Mod (fmod 0 and 1) on int32 and
 * int64, lengths below, at, above and multiples of a ZMM's lanes (8, 16),
 * operands of one shape, one a scalar, a row times a column, a column
 * along rows (broadcast along the last axis) and a strided operand; values
 * with 0, +-1, MIN, MAX and small numbers of both signs (divisors 0 and -1
 * among them); 1 and 3 workers; the output starts as 0xA5 bytes. The same
 * for BitwiseAnd/Or/Xor on the eight 8- to 64-bit types, Shl/Shr on the
 * unsigned ones (counts around the width and above), Pow on int32/int64
 * (bases 0, +-1, +-2, MIN, MAX, exponents negative, 0 to 70, large), and
 * BitwiseNot's twin. Then a few values ONNX Runtime gives (Python's % for
 * Mod, C's / for Div, Pow, shifts). */
#include "rt_test.h"

static void fill_edgy(int dt, void *p, int64_t n)
{
    static const int64_t I[] = {0, -1, 1, INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, 7, -7};
    for (int64_t i = 0; i < n; i++) {
        const float r = frand();
        const int64_t k = r < -0.5f ? I[(uint32_t)(-r * 1000) % 9]
                        : r < 0.0f ? (int64_t)(r * 2e9f) * 3 : (int64_t)(r * 40) - 20;
        if (dt == PZ_I32) ((int32_t *)p)[i] = (int32_t)k;
        else ((int64_t *)p)[i] = k;
    }
}

/* Each kernel of this CPU at 1 and 3 workers against the reference's yr
 * (nb bytes), y starting as 0xA5 bytes; what names the case. */
static void against_ref(const pz_binary_params *p, int dt, const pz_bcast *bc, const void *a,
                        const void *b, const void *yr, unsigned char *y, int64_t nb,
                        const char *what, int64_t n, int mode)
{
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
    for (int k = 0; k < nk; k++)
        for (int nth = 1; nth <= 3; nth += 2) {
            memset(y, 0xa5, (size_t)nb);
            for (int ith = 0; ith < nth; ith++) ks[k]->int_binary(p, dt, bc, a, b, y, ith, nth);
            checkf(memcmp(y, yr, (size_t)nb) == 0, "%s %s %s n%lld mode%d nth%d", ks[k]->name,
                   pz_dtype_name(dt), what, (long long)n, mode, nth);
        }
}

static void test_twins(void)
{
    static const int64_t NS[] = {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100};
    static const pz_binary_func FN[] = {PZ_BIN_ADD, PZ_BIN_SUB, PZ_BIN_MUL, PZ_BIN_DIV,
                                        PZ_BIN_MAX, PZ_BIN_MIN, PZ_BIN_MOD, PZ_BIN_FMOD};
    static const char *const FNAME[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Mod", "Fmod"};
    for (int dt = PZ_I32; ; dt = PZ_I64) {
        const size_t es = dt == PZ_I32 ? 4 : 8;
        for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++)
            for (int mode = 0; mode < BCAST_MODES; mode++) {
                const int64_t n = NS[t], nb = (int64_t)(3 * n) * (int64_t)es;
                pz_bcast bc;
                bcast_mode(mode, n, &bc);
                void *a = malloc((size_t)(6 * n) * es), *b = malloc((size_t)(3 * n) * es);
                fill_edgy(dt, a, 6 * n);
                fill_edgy(dt, b, 3 * n);
                unsigned char *yr = malloc((size_t)nb), *y = malloc((size_t)nb);
                for (size_t f = 0; f < sizeof FN / sizeof FN[0]; f++) {
                    const pz_binary_params p = {.func = FN[f]};
                    CHECK(pz_int_binary_fast_takes(&p, dt));
                    pz_int_binary__ref(&p, dt, &bc, a, b, yr, 0, 1);
                    against_ref(&p, dt, &bc, a, b, yr, y, nb, FNAME[f], n, mode);
                }
                free(a); free(b); free(yr); free(y);
            }
        if (dt == PZ_I64) break;
    }
    const pz_binary_params pow = {.func = PZ_BIN_POW}, relu = {.func = PZ_BIN_ADD,
                                                              .act = {.kind = PZ_ACT_RELU}};
    CHECK(!pz_int_binary_fast_takes(&pow, PZ_U8) && !pz_int_binary_fast_takes(&relu, PZ_I32));
    const pz_binary_params add = {.func = PZ_BIN_ADD}, shl = {.func = PZ_BIN_SHL};
    CHECK(!pz_int_binary_fast_takes(&add, PZ_U8) && !pz_int_binary_fast_takes(&add, PZ_F32));
    CHECK(!pz_int_binary_fast_takes(&shl, PZ_I32) && !pz_int_binary_fast_takes(&shl, PZ_I4));
}

/* Element i of a bits / shift / pow operand: random bits, or for a shift
 * count (cnt) or an exponent (pw) the edges: 0 to the width + 2, large. */
static uint64_t edgy_bits(int dt, int role)
{
    static const int64_t BASE[] = {0, 1, -1, 2, -2, 3, INT64_MIN, INT64_MAX, INT32_MIN,
                                   INT32_MAX};
    const uint64_t w = 8 * pz_dtype_size(dt);
    const float r = frand();
    uint64_t v = (uint64_t)(uint32_t)(frand() * 2147483647.0f) << 33 ^
                 (uint64_t)(uint32_t)(frand() * 2147483647.0f);
    if (role == 1 && r < 0.6f) v = (uint64_t)((r + 1.0f) / 1.6f * (float)(w + 3));   /* shift */
    if (role == 2) {   /* Pow: exponent (b) */
        v = r < -0.6f ? (uint64_t)(int64_t)(r * 5) : r < 0.7f ? (uint64_t)((r + 1) * 42) : v;
    }
    if (role == 3 && r < 0.2f) v = (uint64_t)BASE[(uint32_t)((r + 1) * 1000) % 10];
    if (role == 3 && r >= 0.2f && r < 0.7f) v = (uint64_t)(int64_t)(r * 20 - 8);
    return v;
}

static void fill_bits(int dt, int role, void *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++) pz_store_bits(p, dt, i, edgy_bits(dt, role));
}

static void test_bits(void)
{
    static const int64_t NS[] = {1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130};
    static const int DT[] = {PZ_I8, PZ_U8, PZ_I16, PZ_U16, PZ_I32, PZ_U32, PZ_I64, PZ_U64};
    static const pz_binary_func FN[] = {PZ_BIN_BITAND, PZ_BIN_BITOR, PZ_BIN_BITXOR,
                                        PZ_BIN_SHL, PZ_BIN_SHR, PZ_BIN_POW};
    static const char *const FNAME[] = {"And", "Or", "Xor", "Shl", "Shr", "Pow"};
    int took = 0;
    for (size_t d = 0; d < sizeof DT / sizeof DT[0]; d++) {
        const int dt = DT[d];
        const size_t es = pz_dtype_size(dt);
        for (size_t f = 0; f < sizeof FN / sizeof FN[0]; f++) {
            const pz_binary_params p = {.func = FN[f]};
            const bool uns = dt == PZ_U8 || dt == PZ_U16 || dt == PZ_U32 || dt == PZ_U64;
            const bool want = f < 3 || (f < 5 && uns) || (f == 5 && (dt == PZ_I32 || dt == PZ_I64));
            checkf(pz_int_binary_fast_takes(&p, dt) == want, "takes %s %s", FNAME[f],
                   pz_dtype_name(dt));
            if (!want) continue;
            const int role = f == 5 ? 2 : f >= 3 ? 1 : 0;
            for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++)
                for (int mode = 0; mode < BCAST_MODES; mode++) {
                    const int64_t n = NS[t], nb = (int64_t)(3 * n) * (int64_t)es;
                    pz_bcast bc;
                    bcast_mode(mode, n, &bc);
                    void *a = malloc((size_t)(6 * n) * es), *b = malloc((size_t)(3 * n) * es);
                    fill_bits(dt, f == 5 ? 3 : 0, a, 6 * n);
                    fill_bits(dt, role, b, 3 * n);
                    unsigned char *yr = malloc((size_t)nb), *y = malloc((size_t)nb);
                    pz_int_binary__ref(&p, dt, &bc, a, b, yr, 0, 1);
                    against_ref(&p, dt, &bc, a, b, yr, y, nb, FNAME[f], n, mode);
                    took++;
                    free(a); free(b); free(yr); free(y);
                }
        }
        /* BitwiseNot's twin, 1 and 3 workers, in place too */
        for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++) {
            const int64_t n = NS[t];
            const pz_logic_unary_params lp = {.func = PZ_LU_BITNOT};
            void *x = malloc((size_t)n * es), *yr = malloc((size_t)n * es), *y = malloc((size_t)n * es);
            fill_bits(dt, 0, x, n);
            pz_any_logic_unary__ref(&lp, dt, x, yr, n, 0, 1);
            CHECK(pz_bitnot_fast_takes(dt));
            for (int nth = 1; nth <= 3; nth += 2) {
                memset(y, 0xa5, (size_t)n * es);
                for (int ith = 0; ith < nth; ith++) pz_bitnot__fast(dt, x, y, n, ith, nth);
                checkf(memcmp(y, yr, (size_t)n * es) == 0, "BitwiseNot %s n%lld nth%d",
                       pz_dtype_name(dt), (long long)n, nth);
            }
            pz_bitnot__fast(dt, x, x, n, 0, 1);
            checkf(memcmp(x, yr, (size_t)n * es) == 0, "BitwiseNot %s in place", pz_dtype_name(dt));
            free(x); free(yr); free(y);
        }
    }
    CHECK(!pz_bitnot_fast_takes(PZ_BOOL) && !pz_bitnot_fast_takes(PZ_I4));
    checkf(took > 500, "%d bitwise cases", took);
}

/* Known values: ONNX Runtime's Div truncates, Mod (fmod 0) has the
 * divisor's sign, fmod 1 the dividend's. */
static void test_values(void)
{
    static const int32_t A[] = {-7, 7, -7, 7, 6, INT32_MIN, 5};
    static const int32_t B[] = {2, -2, 3, -3, 3, -1, 0};
    static const int32_t DIV[] = {-3, -3, -2, -2, 2, INT32_MIN, 0};
    static const int32_t MOD[] = {1, -1, 2, -2, 0, 0, 0};
    static const int32_t FMOD[] = {-1, 1, -1, 1, 0, 0, 0};
    const int64_t d[1] = {7};
    pz_bcast bc;
    CHECK(pz_bcast_init(&bc, 1, d, 1, d, 1, d) == 0);
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
    for (int k = 0; k < nk; k++) {
        int32_t y[7];
        const pz_binary_params pd = {.func = PZ_BIN_DIV}, pm = {.func = PZ_BIN_MOD},
                               pf = {.func = PZ_BIN_FMOD};
        ks[k]->int_binary(&pd, PZ_I32, &bc, A, B, y, 0, 1);
        checkf(memcmp(y, DIV, sizeof y) == 0, "%s: int32 Div values", ks[k]->name);
        ks[k]->int_binary(&pm, PZ_I32, &bc, A, B, y, 0, 1);
        checkf(memcmp(y, MOD, sizeof y) == 0, "%s: int32 Mod values", ks[k]->name);
        ks[k]->int_binary(&pf, PZ_I32, &bc, A, B, y, 0, 1);
        checkf(memcmp(y, FMOD, sizeof y) == 0, "%s: int32 Mod fmod=1 values", ks[k]->name);
    }
}

/* Known values: Pow wraps, a negative exponent truncates 1 / x^-e (1,
 * -1 or 1, 0); a shift of a uint32 by 32 or more is 0. */
static void test_bit_values(void)
{
    static const int64_t PA[] = {2, 3, -2, 1, -1, -1, 2, 5, 0, 2};
    static const int64_t PB[] = {10, 0, 3, -7, -3, -4, -1, 1, 0, 64};
    static const int64_t POW[] = {1024, 1, -8, 1, -1, 1, 0, 5, 1, 0};
    static const uint32_t SA[] = {1, 0x80000000u, 5, 7, 0xffffffffu, 3, 9, 1};
    static const uint32_t SB[] = {31, 1, 32, 33, 4, 0, 0xffffffffu, 0};
    static const uint32_t SHL[] = {0x80000000u, 0, 0, 0, 0xfffffff0u, 3, 0, 1};
    static const uint32_t SHR[] = {0, 0x40000000u, 0, 0, 0x0fffffffu, 3, 0, 1};
    const int64_t d[1] = {10}, d8[1] = {8};
    pz_bcast bc, bc8;
    CHECK(pz_bcast_init(&bc, 1, d, 1, d, 1, d) == 0 && pz_bcast_init(&bc8, 1, d8, 1, d8, 1, d8) == 0);
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
    const pz_binary_params pp = {.func = PZ_BIN_POW}, pl = {.func = PZ_BIN_SHL},
                           pr = {.func = PZ_BIN_SHR};
    for (int k = 0; k < nk; k++) {
        int64_t y[10];
        uint32_t u[8];
        ks[k]->int_binary(&pp, PZ_I64, &bc, PA, PB, y, 0, 1);
        checkf(memcmp(y, POW, sizeof y) == 0, "%s: int64 Pow values", ks[k]->name);
        ks[k]->int_binary(&pl, PZ_U32, &bc8, SA, SB, u, 0, 1);
        checkf(memcmp(u, SHL, sizeof u) == 0, "%s: uint32 Shl values", ks[k]->name);
        ks[k]->int_binary(&pr, PZ_U32, &bc8, SA, SB, u, 0, 1);
        checkf(memcmp(u, SHR, sizeof u) == 0, "%s: uint32 Shr values", ks[k]->name);
    }
}

int main(void)
{
    test_twins();
    test_bits();
    test_bit_values();
    test_values();
    return test_summary("rt_int_binary");
}
