/* rt_reduce.c - the reductions' kernels: the blocked float32 row path
 * (reduce_rows.c) against the reference over row lengths below, at and
 * above its 16-lane block, and the reference's exact integer results,
 * empty sets, ArgMax ties and CumSum on integers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/kernels.h"
#include "test_check.h"

static void test_rows(void)
{
    static const int64_t lens[] = {1, 7, 15, 16, 17, 31, 32, 33, 100, 1000};
    static const pz_reduce_func funcs[] = {PZ_RED_SUM, PZ_RED_MAX, PZ_RED_MEAN};
    const int64_t rows = 3;
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        const int64_t len = lens[li];
        float *x = malloc(sizeof(float) * (size_t)(rows * len));
        for (int64_t i = 0; i < rows * len; i++) x[i] = (float)((i * 7919 % 2003) - 1000) / 97.0f;
        for (size_t fi = 0; fi < 3; fi++) {
            pz_reduce_params p = {.axes_mask = 2u, .func = funcs[fi]};
            const int64_t dims[2] = {rows, len};
            float ref[3], got[3];
            pz_f32_reduce__ref(&p, 2, dims, x, ref, 0, 1);
            for (int nth = 1; nth <= 2; nth++) {
                for (int ith = 0; ith < nth; ith++)
                    pz_f32_reduce_rows__blocked(funcs[fi], rows, len, x, got, ith, nth);
                /* error normalised by the row's sum of |x| */
                for (int64_t r = 0; r < rows; r++) {
                    double scale = 0;
                    for (int64_t i = 0; i < len; i++) scale += fabs(x[r * len + i]);
                    double e = fabs((double)got[r] - ref[r]) / (scale > 0 ? scale : 1);
                    checkf(e <= 1e-6, "rows func %d len %lld nth %d row %lld: %g vs %g",
                           (int)funcs[fi], (long long)len, nth, (long long)r, got[r], ref[r]);
                }
            }
        }
        /* a NaN anywhere in the row makes its max NaN, as the reference */
        x[len - 1] = NAN;
        float m;
        pz_f32_reduce_rows__blocked(PZ_RED_MAX, 1, len, x, &m, 0, 1);
        checkf(m != m, "rows max with a NaN, len %lld: %g", (long long)len, m);
        free(x);
    }
}

/* One reduction of a 1-D buffer to a scalar, as bits. */
static uint64_t reduce_1d(pz_reduce_func f, int dt, const void *x, int64_t n)
{
    uint64_t y = 0;
    pz_reduce_params p = {.axes_mask = 1u, .func = f};
    pz_any_reduce__ref(&p, dt, 1, &n, x, &y, 0, 1);
    return pz_load_bits(&y, dt, 0);
}

static void test_exact(void)
{
    /* int64 sums past 2^53, exact */
    const int64_t big[3] = {(int64_t)1 << 60, 1, 3};
    CHECK((int64_t)reduce_1d(PZ_RED_SUM, PZ_I64, big, 3) == ((int64_t)1 << 60) + 4);
    CHECK((int64_t)reduce_1d(PZ_RED_MAX, PZ_I64, big, 3) == (int64_t)1 << 60);
    const int32_t neg[3] = {-5, -2, -9};
    CHECK((int32_t)reduce_1d(PZ_RED_MAX, PZ_I32, neg, 3) == -2);
    CHECK((int32_t)reduce_1d(PZ_RED_MIN, PZ_I32, neg, 3) == -9);
    CHECK((int32_t)reduce_1d(PZ_RED_L1, PZ_I32, neg, 3) == 16);
    CHECK((int32_t)reduce_1d(PZ_RED_PROD, PZ_I32, neg, 3) == -90);
    CHECK((int32_t)reduce_1d(PZ_RED_SUM_SQUARE, PZ_I32, neg, 3) == 110);
    const uint8_t u8[3] = {200, 7, 255};
    CHECK(reduce_1d(PZ_RED_MIN, PZ_U8, u8, 3) == 7);
    CHECK(reduce_1d(PZ_RED_MAX, PZ_U8, u8, 3) == 255);
    CHECK(reduce_1d(PZ_RED_SUM, PZ_U8, u8, 3) == (200 + 7 + 255) % 256);   /* wraps */
    const uint8_t b[3] = {0, 1, 0};
    CHECK(reduce_1d(PZ_RED_MAX, PZ_BOOL, b, 3) == 1);
    CHECK(reduce_1d(PZ_RED_MIN, PZ_BOOL, b, 3) == 0);
    /* empty sets: the type's extremes, 0, 1 */
    CHECK((int32_t)reduce_1d(PZ_RED_MAX, PZ_I32, neg, 0) == INT32_MIN);
    CHECK((int32_t)reduce_1d(PZ_RED_MIN, PZ_I32, neg, 0) == INT32_MAX);
    CHECK(reduce_1d(PZ_RED_MIN, PZ_U16, u8, 0) == 65535);
    CHECK(reduce_1d(PZ_RED_MIN, PZ_BOOL, b, 0) == 1);
    CHECK(reduce_1d(PZ_RED_PROD, PZ_I64, big, 0) == 1);
    float fy = 0;
    const float fx[1] = {0};
    const int64_t zero = 0;
    pz_reduce_params p = {.axes_mask = 1u, .func = PZ_RED_MAX};
    pz_f32_reduce__ref(&p, 1, &zero, fx, &fy, 0, 1);
    CHECK(isinf(fy) && fy < 0);
    p.func = PZ_RED_LOG_SUM_EXP;
    pz_f32_reduce__ref(&p, 1, &zero, fx, &fy, 0, 1);
    CHECK(isinf(fy) && fy < 0);
    /* LogSumExp without overflow: log(2 e^1000) */
    const float lx[2] = {1000, 1000};
    const int64_t two = 2;
    pz_f32_reduce__ref(&p, 1, &two, lx, &fy, 0, 1);
    CHECK(fabsf(fy - (1000 + logf(2))) < 1e-3f);
}

static void test_arg_cum(void)
{
    const float x[6] = {1, 3, 3, 0, 2, 3};   /* [2, 3] */
    pz_axis_shape s = {2, 3, 1};
    int64_t idx[2];
    pz_arg_params ap = {.func = PZ_ARG_MAX};
    pz_any_arg__ref(&ap, PZ_F32, &s, x, idx, 0, 1);
    CHECK(idx[0] == 1 && idx[1] == 2);
    ap.select_last = 1;
    pz_any_arg__ref(&ap, PZ_F32, &s, x, idx, 0, 1);
    CHECK(idx[0] == 2 && idx[1] == 2);
    ap = (pz_arg_params){.func = PZ_ARG_MIN};
    const int64_t xi[3] = {INT64_MAX, INT64_MAX - 1, INT64_MAX};   /* equal as doubles */
    pz_axis_shape s1 = {1, 3, 1};
    pz_any_arg__ref(&ap, PZ_I64, &s1, xi, idx, 0, 1);
    CHECK(idx[0] == 1);
    /* exclusive reverse CumSum of int64 past 2^53 */
    const int64_t c[3] = {(int64_t)1 << 60, 1, 2};
    int64_t y[3];
    pz_cum_params cp = {.func = PZ_CUM_SUM, .exclusive = 1, .reverse = 1};
    pz_any_cumulative__ref(&cp, PZ_I64, &s1, c, y, 0, 1);
    CHECK(y[0] == 3 && y[1] == 2 && y[2] == 0);
    cp = (pz_cum_params){.func = PZ_CUM_PROD};
    pz_any_cumulative__ref(&cp, PZ_I64, &s1, c, y, 0, 1);
    CHECK(y[0] == (int64_t)1 << 60 && y[1] == (int64_t)1 << 60 && y[2] == (int64_t)1 << 61);
}

int main(void)
{
    test_rows();
    test_exact();
    test_arg_cum();
    return test_summary("rt_reduce");
}
