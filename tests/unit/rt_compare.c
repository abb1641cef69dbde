/* rt_compare.c - the fast COMPARE kernels (fast.h, compare: the plain-C
 * twin and the AVX-512 one) against pz_any_compare__ref, bit for bit: the
 * five predicates on float32, int32 and int64, Equal, And, Or, Xor on
 * bool, lengths below, at, above
 * and multiples of a ZMM's lanes (8, 16), operands of one shape, one a
 * scalar, a row times a column, a column along rows (broadcast along the
 * last axis) and a strided operand; float values with ties, NaN,
 * infinities and signed zeros, integers with ties, 0, -1, MIN and MAX;
 * 1 and 3 workers. Every output starts at 7 so an unwritten bool shows. */
#include "rt_test.h"

/* Values that make every predicate's edge cases. */
static void fill_edgy(int dt, void *p, int64_t n)
{
    static const float V[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, NAN, INFINITY, -INFINITY, 2.0f};
    static const int64_t I[] = {0, -1, 1, INT64_MIN, INT64_MAX, 2, -2, 3, INT32_MIN, INT32_MAX};
    for (int64_t i = 0; i < n; i++) {
        const float r = frand();
        const int64_t k = r < 0.0f ? I[(uint32_t)(-r * 1000) % 10] : (int64_t)(r * 4);
        if (dt == PZ_BOOL) ((uint8_t *)p)[i] = r < 0.0f;
        else if (dt == PZ_F32) ((float *)p)[i] = r < 0.0f ? V[(uint32_t)(-r * 1000) % 9] : (float)(int)(r * 4);
        else if (dt == PZ_I32) ((int32_t *)p)[i] = (int32_t)k;
        else ((int64_t *)p)[i] = k;
    }
}

static void test_compare(void)
{
    static const int64_t NS[] = {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100};
    static const int DT[] = {PZ_F32, PZ_I32, PZ_I64, PZ_BOOL};
    static const char *const FN[] = {"EQ", "LT", "LE", "GT", "GE", "AND", "OR", "XOR"};
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
    for (int d = 0; d < 4; d++) {
        const int dt = DT[d];
        const bool bl = dt == PZ_BOOL;
        CHECK(pz_num_compare_fast_takes(PZ_CMP_EQ, dt) &&
              pz_num_compare_fast_takes(PZ_CMP_AND, dt) == bl);
        for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++)
            for (int mode = 0; mode < BCAST_MODES; mode++) {
                const int64_t n = NS[t];
                pz_bcast bc;
                bcast_mode(mode, n, &bc);
                void *a = malloc((size_t)(6 * n) * 8), *b = malloc((size_t)(3 * n) * 8);
                fill_edgy(dt, a, 6 * n);
                fill_edgy(dt, b, 3 * n);
                uint8_t *yr = malloc((size_t)(3 * n)), *y = malloc((size_t)(3 * n));
                for (int f = PZ_CMP_EQ; f < PZ_CMP_COUNT_; f++) {
                    if (f > PZ_CMP_EQ && (f <= PZ_CMP_GE) == bl) continue;   /* bool: EQ, logic */
                    pz_any_compare__ref((pz_compare_func)f, dt, &bc, a, b, yr, 0, 1);
                    for (int k = 0; k < nk; k++)
                        for (int nth = 1; nth <= 3; nth += 2) {
                            memset(y, 7, (size_t)(3 * n));
                            for (int ith = 0; ith < nth; ith++)
                                ks[k]->compare((pz_compare_func)f, dt, &bc, a, b, y, ith, nth);
                            checkf(memcmp(y, yr, (size_t)(3 * n)) == 0,
                                   "compare %s %s %s n%lld mode%d nth%d", ks[k]->name,
                                   pz_dtype_name(dt), FN[f], (long long)n, mode, nth);
                        }
                }
                free(a); free(b); free(yr); free(y);
            }
    }
}

int main(void)
{
    test_compare();
    return test_summary("rt_compare");
}
