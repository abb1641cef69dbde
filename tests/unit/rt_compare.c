/* rt_compare.c - the AVX-512 float32 COMPARE against its reference twin, bit
 * for bit: every comparison, lengths below, at, above and multiples of a
 * ZMM (16), operands of one shape, one a scalar, and a row times a column;
 * values with ties, NaN, infinities and signed zeros; 1 and 3 workers. */
#include "rt_test.h"

/* Values that make every predicate's edge cases: ties, -0 == 0, NaN, inf. */
static void fill_edgy(float *p, int64_t n)
{
    static const float V[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, NAN, INFINITY, -INFINITY, 2.0f};
    for (int64_t i = 0; i < n; i++) {
        float r = frand();
        p[i] = r < 0.0f ? V[(uint32_t)(-r * 1000) % 9] : (float)(int)(r * 4);
    }
}

static void test_compare(void)
{
#ifndef PZ_SCALAR
    if (!cpu_has_avx512()) return;
    static const int64_t NS[] = {1, 7, 15, 16, 17, 31, 32, 33, 100};
    static const char *const FN[] = {"EQ", "LT", "LE", "GT", "GE"};
    char what[160];
    for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++)
        for (int mode = 0; mode < 4; mode++) {
            /* 0: A, B [3, n]; 1: B a scalar; 2: A a scalar; 3: A [3, 1] vs B [1, n] */
            const int64_t n = NS[t], yd[2] = {3, n};
            const int64_t ad[2] = {3, mode == 3 ? 1 : n}, bd[2] = {1, n};
            int ra = mode == 2 ? 0 : 2, rb = mode == 1 ? 0 : 2;
            const int64_t *bdims = mode == 3 ? bd : yd;
            pz_bcast bc;
            CHECK(pz_bcast_init(&bc, ra, ad, rb, bdims, 2, yd) == 0);
            float *a = new_nan(3 * n), *b = new_nan(3 * n);
            fill_edgy(a, 3 * n);
            fill_edgy(b, 3 * n);
            uint8_t *yr = malloc((size_t)(3 * n)), *y = malloc((size_t)(3 * n));
            uint8_t *y3 = malloc((size_t)(3 * n));
            for (int f = PZ_CMP_EQ; f <= PZ_CMP_GE; f++) {
                memset(y, 7, (size_t)(3 * n));
                memset(y3, 7, (size_t)(3 * n));
                pz_f32_compare__ref((pz_compare_func)f, &bc, a, b, yr, 0, 1);
                pz_f32_compare__avx512((pz_compare_func)f, &bc, a, b, y, 0, 1);
                for (int ith = 0; ith < 3; ith++)
                    pz_f32_compare__avx512((pz_compare_func)f, &bc, a, b, y3, ith, 3);
                snprintf(what, sizeof what, "compare avx512 %s n%lld mode%d", FN[f], (long long)n,
                         mode);
                check(memcmp(y, yr, (size_t)(3 * n)) == 0, what);
                strcat(what, " nth3");
                check(memcmp(y3, yr, (size_t)(3 * n)) == 0, what);
            }
            free(a); free(b); free(yr); free(y); free(y3);
        }
#endif
}

int main(void)
{
    test_compare();
    return test_summary("rt_compare");
}
