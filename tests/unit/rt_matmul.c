/* rt_matmul.c - the fast MatMul and Gemm with a B computed at run time (B
 * read in place by the packed GEMM's tiles, g.ldb; rt/kernels/gemm/matmul.c)
 * against the reference kernels, on every ISA this CPU and build have:
 *   - batched MatMul with numpy broadcasting of the batch dims (either side
 *     broadcast, ranks that differ, 1-D A or B), M, N, K below, at and above
 *     the tiles (14 x 32 on AVX-512, 6 x 16 on AVX2) and attention's shapes;
 *   - the GEMM on an unpacked B whose rows are ldb > N apart, the columns
 *     between filled with NaN (a lane past N that leaked would show), with a
 *     C (row, column, full) and an activation.
 * Each at 1 worker and split (MatMul over 2, 3, 4 and 8 workers, the GEMM
 * over 3; bitwise equal to 1: every element sums its K products in the same
 * order), on outputs filled with NaN. Errors normalised: max |a - b| /
 * max |ref| <= 1e-5.
 *
 * Prints `rt_matmul: P passed, F failed`; exits 1 on a failure.
 */
#include <stdio.h>

#include "rt/ops/ops.h"
#include "rt_test.h"

static pz_tensor tensor(int rank, const int64_t *dims, float *data)
{
    pz_tensor t = {.dtype = PZ_F32, .rank = rank, .data = data};
    for (int i = 0; i < rank; i++) t.dims[i] = dims[i];
    return t;
}

static int64_t numel(int rank, const int64_t *d)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= d[i];
    return n;
}

static void dims_str(int rank, const int64_t *d, char *buf, size_t n)
{
    size_t u = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < rank && u < n; i++)
        u += (size_t)snprintf(buf + u, n - u, "%s%lld", i ? "," : "", (long long)d[i]);
    if (u < n) snprintf(buf + u, n - u, "]");
}

/* A (ra dims da) times B (rb dims db) on each ISA at 1, 2 and 3 workers. */
static void run_matmul_case(int ra, const int64_t *da, int rb, const int64_t *db)
{
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
    const int64_t na = numel(ra, da), nb = numel(rb, db);
    float *a = new_rand(na), *b = new_rand(nb);
    pz_tensor ta = tensor(ra, da, a), tb = tensor(rb, db, b);
    pz_matmul_shape s;
    char sa[64], sb[64], what[200];
    dims_str(ra, da, sa, sizeof sa);
    dims_str(rb, db, sb, sizeof sb);
    if (pz_matmul_shape_init(&s, &ta, &tb)) {
        snprintf(what, sizeof what, "matmul %s x %s: shapes multiply", sa, sb);
        check(false, what);
        free(a); free(b);
        return;
    }
    const int64_t ny = pz_prod(s.bdims, s.nb) * s.M * s.N;
    float *yref = new_nan(ny), *y = new_nan(ny), *yn = new_nan(ny);
    pz_f32_matmul__ref(&s, a, b, yref, 0, 1);
    for (int i = 0; i < nk; i++) {
        fill_nan(y, ny);
        pz_f32_matmul_gemm(&s, ks[i]->gemm, a, b, y, 0, 1);
        snprintf(what, sizeof what, "matmul %s %s x %s", ks[i]->name, sa, sb);
        check(nerr(y, yref, yref, ny) <= 1e-5, what);
        for (int nth = 2; nth <= 8; nth += nth < 4 ? 1 : 4) {   /* 2, 3, 4, 8 */
            fill_nan(yn, ny);
            for (int ith = 0; ith < nth; ith++) pz_f32_matmul_gemm(&s, ks[i]->gemm, a, b, yn, ith, nth);
            snprintf(what, sizeof what, "matmul %s %s x %s nth%d", ks[i]->name, sa, sb, nth);
            check(memcmp(y, yn, (size_t)ny * sizeof *y) == 0, what);
        }
    }
    free(a); free(b); free(yref); free(y); free(yn);
}

static void test_matmul(void)
{
#define MM(ra, rb, ...)                                                     \
    do {                                                                    \
        const int64_t d_[] = {__VA_ARGS__};                                 \
        run_matmul_case(ra, d_, rb, d_ + (ra));                             \
    } while (0)
    /* attention: Q K^T and P V of 12 heads, 128 tokens, head size 64 */
    MM(4, 4, 1, 12, 128, 64, 1, 12, 64, 128);
    MM(4, 4, 1, 12, 128, 128, 1, 12, 128, 64);
    /* M, N, K around the tiles, one batch dim */
    static const int64_t MS[] = {1, 2, 5, 6, 7, 13, 14, 15, 29};
    static const int64_t NS[] = {1, 7, 15, 16, 17, 31, 32, 33, 100};
    static const int64_t KS[] = {1, 7, 64, 257, 600};
    for (size_t mi = 0; mi < sizeof MS / sizeof *MS; mi++)
        for (size_t ni = 0; ni < sizeof NS / sizeof *NS; ni++)
            for (size_t ki = 0; ki < sizeof KS / sizeof *KS; ki++) {
                if ((mi + ni + ki) % 3) continue;   /* a third of the grid */
                MM(3, 3, 3, MS[mi], KS[ki], 3, KS[ki], NS[ni]);
            }
    /* broadcast batch dims: B shared, A shared, both, ranks that differ */
    MM(4, 2, 2, 3, 17, 40, 40, 33);
    MM(2, 4, 17, 40, 2, 3, 40, 33);
    MM(4, 4, 2, 1, 9, 20, 1, 3, 20, 45);
    MM(3, 4, 3, 9, 20, 2, 1, 20, 45);
    MM(5, 4, 2, 1, 1, 31, 65, 5, 3, 65, 50);
    /* 1-D A (a row) and 1-D B (a column) */
    MM(1, 3, 70, 4, 70, 37);
    MM(3, 1, 4, 37, 70, 70);
    MM(1, 1, 300, 300);
    MM(1, 2, 33, 33, 1);
    /* a large M: more row tiles than a panel block, K sliced */
    MM(2, 2, 512, 300, 300, 70);
    /* empty: K = 0 (zeros), a batch dim of 0 */
    MM(3, 3, 2, 5, 0, 2, 0, 9);
    MM(3, 3, 0, 5, 4, 1, 4, 9);
#undef MM
}

/* The GEMM on an unpacked B (rows ldb apart, NaN between) against the
 * reference Gemm, C as cmode (0 none, 1 row, 2 column, 3 full), act. */
static void run_gemm_case(int64_t M, int64_t N, int64_t K, int64_t ldb, int cmode, pz_act_kind act)
{
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(M * N);
    float *bs = new_nan(K * ldb);
    for (int64_t k = 0; k < K; k++) memcpy(bs + k * ldb, b + k * N, (size_t)N * sizeof *b);
    int64_t csm = cmode == 2 ? 1 : cmode == 3 ? N : 0, csn = cmode == 1 || cmode == 3 ? 1 : 0;
    pz_gemm_params gp = {.alpha = 1.0f, .beta = 0.75f, .act = {.kind = act, .lo = -0.5f, .hi = 0.5f}};
    pz_gemm_params gn = gp;
    gn.act.kind = PZ_ACT_NONE;
    float *yref = new_nan(M * N), *yscale = new_nan(M * N), *y = new_nan(M * N), *yn = new_nan(M * N);
    const float *cc = cmode ? c : NULL;
    pz_f32_gemm__ref(&gp, M, N, K, a, b, cc, csm, csn, yref, 0, 1);
    pz_f32_gemm__ref(&gn, M, N, K, a, b, cc, csm, csn, yscale, 0, 1);
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldb = ldb, .ldy = N, .c = cc,
                      .csm = csm, .csn = csn, .beta = 0.75f, .act = gp.act};
    char what[160];
    for (int i = 0; i < nk; i++) {
        fill_nan(y, M * N);
        ks[i]->gemm(&g, a, bs, y, 0, 1);
        snprintf(what, sizeof what, "gemm in place %s M%lld N%lld K%lld ldb%lld C%d act%d",
                 ks[i]->name, (long long)M, (long long)N, (long long)K, (long long)ldb, cmode,
                 (int)act);
        check(nerr(y, yref, yscale, M * N) <= 1e-5, what);
        fill_nan(yn, M * N);
        for (int ith = 0; ith < 3; ith++) ks[i]->gemm(&g, a, bs, yn, ith, 3);
        strcat(what, " nth3");
        check(memcmp(y, yn, (size_t)(M * N) * sizeof *y) == 0, what);
    }
    free(a); free(b); free(c); free(bs); free(yref); free(yscale); free(y); free(yn);
}

static void test_gemm(void)
{
    run_gemm_case(1, 45, 30, 48, 1, PZ_ACT_RELU);
    run_gemm_case(13, 17, 100, 19, 3, PZ_ACT_NONE);
    run_gemm_case(20, 600, 700, 611, 1, PZ_ACT_CLIP);
    run_gemm_case(30, 50, 300, 64, 2, PZ_ACT_GELU);
    run_gemm_case(15, 33, 257, 40, 0, PZ_ACT_NONE);
}

int main(void)
{
    const pz_fast_kernels *ks[3];
    const int nk = fast_kernels_here(ks);
    printf("rt_matmul: kernels tested:");
    for (int i = 0; i < nk; i++) printf(" %s", ks[i]->name);
    printf("\n");
    test_matmul();
    test_gemm();
    return test_summary("rt_matmul");
}
