/* rt_qmatmul_dyn.c - MatMulInteger with a run-time zero point
 * (rt/kernels/quant/qmatmul_dyn.h) against the reference MatMulInteger
 * (pz_any_qmatmul__ref): every kernel set this CPU has (scalar twin, AVX2,
 * AVX-VNNI, VNNI) bit for bit equal to it, at 1 and 3 workers. Cases: A and
 * B uint8 and int8, B's zero point absent, per tensor or per column, A's
 * any value of its type; one row (a token), odd K and N, batch dims on A,
 * more rows than a block; extreme values where the sums grow most. With
 * the float32 output stage (qdyn_out.h): the reference's sums through the
 * unfused chain's roundings, bit for bit. */
#include "rt/kernels/quant/qmatmul_dyn.h"
#include "rt_test.h"
#include "q8_test.h"

static int extreme;

/* QLinearMatMul's 8-bit out (pz_qmm_dyn_run_q8) against the reference's
 * requantization: y int8 and uint8 by turns, b's scale one or per column
 * (with b's zero point), y_scale 0 in the extreme cases (an infinite
 * factor: the clamp, and NaN -> 0 where a sum is 0). */
static void q8_case(const pz_qmm_dyn *q, const pz_qmatmul_desc *rd0, const uint8_t *a,
                    const uint8_t *azb, int32_t azp, const uint8_t *b, const uint8_t *bz, int nth,
                    const char *kname)
{
    static int turn;
    const int64_t n = rd0->s.N, ny = rd0->s.bdims[0] * rd0->s.M * n;
    pz_qmatmul_desc rd = *rd0;
    rd.ty = turn++ % 2 ? PZ_I8 : PZ_U8, rd.ts = PZ_F32, rd.bs_col = rd.bzp_col;
    float as = 0.0173f, ys = extreme ? 0.0f : 0.37f + (float)(rnd() % 100) / 50.0f;
    float *bs = malloc((size_t)n * 4);
    double *mult = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        bs[i] = 0.001f + (float)(rnd() % 1000) / 4e4f;
        mult[i] = (double)((float)(as * bs[i]) / ys);   /* the reference's roundings */
    }
    const uint8_t yzb = (uint8_t)rnd();
    const pz_qmatmul_scales sc = {&as, bs, &ys, &yzb};
    uint8_t *yr = malloc((size_t)ny), *y = malloc((size_t)ny);
    pz_any_qmatmul__ref(&rd, a, b, azb, bz, &sc, yr, 0, 1);
    pz_qmm_requant r = {.mult = mult, .mult_per = rd.bs_col, .y_signed = rd.ty == PZ_I8,
                        .yzp = rd.ty == PZ_I8 ? (int8_t)yzb : yzb};
    pz_quant_range(rd.ty, &r.lo, &r.hi);
    const size_t sb = pz_qmm_dyn_scratch(q);
    void *scratch = aligned_alloc(64, sb * (size_t)nth);
    memset(y, 0x5a, (size_t)ny);
    for (int ith = 0; ith < nth; ith++) pz_qmm_dyn_run_q8(q, a, azp, &r, y, scratch, ith, nth);
    int64_t bad = 0;
    for (int64_t i = 0; i < ny; i++) bad += y[i] != yr[i];
    checkf(bad == 0, "%s nth %d 8-bit out (y %s, b scale per column %d): %lld of %lld differ",
           kname, nth, rd.ty == PZ_I8 ? "s8" : "u8", rd.bs_col, (long long)bad, (long long)ny);
    free(bs), free(mult), free(yr), free(y), free(scratch);
}

/* bzk: 0 no b zero point, 1 per tensor, 2 per column */
static void mcase(int64_t batch, int64_t m, int64_t k, int64_t n, int as, int bs, int bzk)
{
    const int64_t rows = batch * m, na = rows * k, nb = k * n, ny = rows * n;
    uint8_t *a = malloc((size_t)na), *b = malloc((size_t)nb), *bz = malloc((size_t)n);
    int32_t *yr = malloc((size_t)ny * 4), *y = malloc((size_t)ny * 4);
    for (int64_t i = 0; i < na; i++) a[i] = (uint8_t)(extreme ? (rnd() % 4 ? 255 : 0) : rnd());
    for (int64_t i = 0; i < nb; i++)
        b[i] = (uint8_t)(extreme ? (i % 3 ? (bs ? 0x80 : 0) : (bs ? 0x7f : 0xff)) : rnd());
    for (int64_t i = 0; i < n; i++) bz[i] = (uint8_t)(extreme ? (bs ? 0x7f : 0) : rnd());
    const uint8_t azb = (uint8_t)(extreme ? (as ? 0x80 : 0) : rnd());
    const int32_t azp = as ? (int8_t)azb : azb;
    pz_qmatmul_desc rd = {.s = {.nb = 1, .bdims = {batch}, .sa = {m * k}, .sb = {0},
                                .M = m, .N = n, .K = k},
                          .ta = as ? PZ_I8 : PZ_U8, .tb = bs ? PZ_I8 : PZ_U8, .ty = PZ_I32,
                          .bzp_col = bzk == 2};
    pz_any_qmatmul__ref(&rd, a, b, &azb, bzk ? bz : NULL, NULL, yr, 0, 1);
    const pz_qmm_dyn_desc d = {.rows = rows, .n = n, .k = k, .a_signed = as, .b_signed = bs};
    for (int kk = 0; kk < NK; kk++) {
        if (!kernel_here(kk)) continue;
        pz_qmm_dyn_desc dk = d;
        dk.novnni = kk == PZ_Q8_AVX2;
        char err[200];
        pz_qmm_dyn *q = pz_qmm_dyn_new(&dk, KISA[kk], b, bzk ? bz : NULL, bzk == 2, err,
                                       sizeof err);
        checkf(q != NULL, "plan %s: %s", KNAME[kk], err);
        if (!q) continue;
        check(pz_qmm_dyn_kernel(q) == (pz_q8_kernel)kk, "the kernel set asked for");
        for (int nth = 1; nth <= 3; nth += 2) {
            memset(y, 0x5a, (size_t)ny * 4);
            for (int ith = 0; ith < nth; ith++) pz_qmm_dyn_run(q, a, azp, NULL, y, ith, nth);
            int64_t bad = 0;
            for (int64_t i = 0; i < ny; i++) bad += y[i] != yr[i];
            checkf(bad == 0, "%s nth %d: %lldx%lldx%lldx%lld a%s b%s bz %d: %lld of %lld differ",
                   KNAME[kk], nth, (long long)batch, (long long)m, (long long)k, (long long)n,
                   as ? "s8" : "u8", bs ? "s8" : "u8", bzk, (long long)bad, (long long)ny);
            /* the float32 output stage (qdyn_out.h), columns its channels,
             * against the reference's sums through the unfused chain's steps */
            float *wsc = malloc((size_t)n * 4), *bia = malloc((size_t)n * 4), *yf = (float *)y;
            for (int64_t i = 0; i < n; i++)
                wsc[i] = (float)rnd() / 9e3f, bia[i] = (float)rnd() / 300.0f - 0.4f;
            const pz_qdyn_out o = {.xs = 0.0211f, .ws = wsc, .ws_per = bzk == 2,
                                   .b = nth == 1 ? bia : NULL, .b_per = bzk != 1,
                                   .act = {.kind = bzk ? PZ_ACT_RELU : PZ_ACT_NONE}};
            for (int ith = 0; ith < nth; ith++) pz_qmm_dyn_run(q, a, azp, &o, y, ith, nth);
            bad = 0;
            for (int64_t i = 0; i < ny; i++) {
                const int64_t c = i % n;
                float v = (float)yr[i] * (o.xs * wsc[o.ws_per ? c : 0]);
                if (o.b) v += bia[o.b_per ? c : 0];
                if (o.act.kind == PZ_ACT_RELU && v < 0) v = 0;
                bad += memcmp(&v, &yf[i], 4) != 0;
            }
            checkf(bad == 0, "%s nth %d float out: %lld of %lld differ", KNAME[kk], nth,
                   (long long)bad, (long long)ny);
            free(wsc), free(bia);
            q8_case(q, &rd, a, &azb, azp, b, bzk ? bz : NULL, nth, KNAME[kk]);
        }
        pz_qmm_dyn_free(q);
    }
    free(a), free(b), free(bz), free(yr), free(y);
}

/* The column stage's AVX-512 kernels against their twins directly: row
 * sums over every tail length, int8 and uint8 bytes of every value. */
static void twin_rowsums(void)
{
    if (pz_cpu_isa() < PZ_ISA_AVX512) return;
    uint8_t a[300];
    for (int64_t k = 1; k <= 300; k += k < 140 ? 1 : 37)
        for (int sg = 0; sg < 2; sg++) {
            for (int64_t i = 0; i < k; i++) a[i] = (uint8_t)(k % 5 == 0 ? (sg ? 0x80 : 0xff) : rnd());
            const int64_t r0 = pz_qmm_cols__scalar.rowsum(a, k, sg);
            const int64_t r1 = pz_qmm_cols__avx512.rowsum(a, k, sg);
            checkf(r0 == r1, "row sum k %lld %s: twin %lld, AVX-512 %lld", (long long)k,
                   sg ? "s8" : "u8", (long long)r0, (long long)r1);
        }
}

int main(void)
{
    twin_rowsums();
    if (!pz_cpu_has_vnni()) printf("no AVX512-VNNI here: no VNNI kernel tested\n");
    if (!pz_cpu_has_avxvnni()) printf("no AVX-VNNI here: no AVX-VNNI kernel tested\n");
    static const int64_t ks[] = {1, 3, 7, 33, 64, 129}, ns[] = {1, 5, 16, 17, 63, 65, 200};
    int v = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 7; j++, v++) {
            const int64_t m = v % 3 == 0 ? 1 : irnd(2, 13);
            mcase(1 + v % 2, m, ks[i], ns[j], v % 2, v / 2 % 2, v % 3);
        }
    /* one token over a wide layer (columns split among workers); rows of
     * several blocks; batch dims */
    mcase(1, 1, 768, 301, 0, 1, 1);
    mcase(1, 1, 255, 1000, 1, 0, 2);
    mcase(1, 200, 97, 45, 0, 0, 1);
    mcase(3, 70, 31, 129, 1, 1, 2);
    extreme = 1;
    for (int i = 0; i < 4; i++) mcase(1, 7 + i, 1000 + 333 * i, 37, i % 2, i / 2, 1 + i % 2);
    extreme = 0;
    char err[200];
    const uint8_t b1 = 1;
    const pz_qmm_dyn_desc bad = {.rows = 1, .n = 0, .k = 1};
    pz_qmm_dyn *q = pz_qmm_dyn_new(&bad, PZ_ISA_AVX512, &b1, NULL, 0, err, sizeof err);
    checkf(!q && strstr(err, "sizes"), "an empty output refused: %s", err);
    return test_summary("rt_qmatmul_dyn");
}
