/* rt_int_binary.c - the integer BINARY's fast kernels (fast.h, int_binary:
 * the plain-C twin and the AVX-512 one) against pz_int_binary__ref, bit for
 * bit: Add, Sub, Mul, Div, Max, Min, Mod (fmod 0 and 1) on int32 and
 * int64, lengths below, at, above and multiples of a ZMM's lanes (8, 16),
 * operands of one shape, one a scalar, a row times a column, a column
 * along rows (broadcast along the last axis) and a strided operand; values
 * with 0, +-1, MIN, MAX and small numbers of both signs (divisors 0 and -1
 * among them); 1 and 3 workers; the output starts as 0xA5 bytes. Then a
 * few values ONNX Runtime gives (Python's % for Mod, C's / for Div). */
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

static void test_twins(void)
{
    static const int64_t NS[] = {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100};
    static const pz_binary_func FN[] = {PZ_BIN_ADD, PZ_BIN_SUB, PZ_BIN_MUL, PZ_BIN_DIV,
                                        PZ_BIN_MAX, PZ_BIN_MIN, PZ_BIN_MOD, PZ_BIN_FMOD};
    static const char *const FNAME[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Mod", "Fmod"};
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
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
                    for (int k = 0; k < nk; k++)
                        for (int nth = 1; nth <= 3; nth += 2) {
                            memset(y, 0xa5, (size_t)nb);
                            for (int ith = 0; ith < nth; ith++)
                                ks[k]->int_binary(&p, dt, &bc, a, b, y, ith, nth);
                            checkf(memcmp(y, yr, (size_t)nb) == 0, "%s %s %s n%lld mode%d nth%d",
                                   ks[k]->name, pz_dtype_name(dt), FNAME[f], (long long)n, mode,
                                   nth);
                        }
                }
                free(a); free(b); free(yr); free(y);
            }
        if (dt == PZ_I64) break;
    }
    const pz_binary_params pow = {.func = PZ_BIN_POW}, relu = {.func = PZ_BIN_ADD,
                                                              .act = {.kind = PZ_ACT_RELU}};
    CHECK(!pz_int_binary_fast_takes(&pow, PZ_I64) && !pz_int_binary_fast_takes(&relu, PZ_I32));
    const pz_binary_params add = {.func = PZ_BIN_ADD};
    CHECK(!pz_int_binary_fast_takes(&add, PZ_U8) && !pz_int_binary_fast_takes(&add, PZ_F32));
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

int main(void)
{
    test_twins();
    test_values();
    return test_summary("rt_int_binary");
}
