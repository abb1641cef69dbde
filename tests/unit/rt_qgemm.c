/* rt_qgemm.c - the int8 GEMM (rt/kernels/quant/qgemm.h): the VNNI kernel
 * (where the CPU has AVX512-VNNI), the AVX-VNNI kernel (where it has
 * AVX-VNNI), the AVX2 kernel (where it has AVX2) and
 * the scalar twin against a reference
 * computed here (exact int64 sums; bytes out requantized in double, as
 * pz_any_qconv__ref does, floats out as the float product of the sum and
 * the float scale). Required: the kernels equal to the twin bit for bit; bytes
 * within 1 of the reference (float vs double requantization, qconv16c.h),
 * floats equal to it; columns past N and rows past M of y untouched; 1 and
 * 3 workers the same. Shapes around the tile (6 rows x 64 columns) and K
 * % 4, A u8 and s8, y u8, s8 and f32, ReLU clamp, random zero points,
 * per-column scales, B as [K][N] and transposed, lda and ldy beyond the
 * row; extreme values (A 255 or 0, B +-127 in runs: 16-bit pair sums
 * would saturate). `rt_qgemm --bench [avx2|avxvnni]`: GMAC/s of a few FC shapes at
 * 1 thread. */
#include <time.h>

#include "rt/kernels/quant/qgemm.h"
#include "rt_test.h"
#include "q8_test.h"

static int64_t off1, nout;
static int extreme;   /* A 255 or 0, B +-127 in runs of 4 */

static void gcase(int64_t M, int64_t K, int64_t N, int asg, int yk, int relu, int trans_b)
{
    /* yk: 0 u8, 1 s8, 2 f32 */
    const int64_t lda = K + irnd(0, 5), ldy = N + irnd(0, 3);
    uint8_t *a = malloc((size_t)(M * lda));
    int8_t *b = malloc((size_t)(K * N));
    int32_t *bias = malloc((size_t)N * sizeof *bias);
    float *bs = malloc((size_t)N * sizeof *bs);
    for (int64_t i = 0; i < M * lda; i++) a[i] = (uint8_t)rnd();
    for (int64_t i = 0; i < K * N; i++) b[i] = (int8_t)irnd(-127, 127);
    for (int64_t n = 0; n < N; n++) bias[n] = irnd(-20000, 20000);
    if (extreme) {
        for (int64_t i = 0; i < M * lda; i++) a[i] = (uint8_t)(rnd() % 8 ? 255 : 0);
        for (int64_t i = 0; i < K * N; i++) b[i] = (int8_t)(i / 4 % 3 ? 127 : -127);
    }
    for (int64_t n = 0; n < N; n++) bs[n] = 0.002f + 0.004f * (float)(rnd() % 1000) / 1000.0f;
    const float as = 0.02f + 0.01f * (float)(rnd() % 100) / 100.0f;
    float ys = as * 0.004f * 70.0f * 64.0f * (float)sqrt((double)K) / 60.0f;
    if (extreme) ys = as * 0.006f * 255.0f * 127.0f * (float)K / 100.0f;
    pz_qgemm_desc d = {.m = M, .n = N, .k = K, .a_signed = asg, .y_signed = yk == 1,
                       .a_zp = asg ? irnd(-128, 127) : irnd(0, 255), .out_f32 = yk == 2};
    const int32_t tlo = yk == 1 ? -128 : 0;
    d.y_zp = yk == 2 ? 0 : irnd(tlo, tlo + 255);
    d.lo = relu ? d.y_zp : tlo;
    d.hi = tlo + 255;
    /* the reference, and y filled with a sentinel past N */
    const size_t es = yk == 2 ? 4 : 1, ysz = (size_t)(M * ldy) * es;
    uint8_t *want = malloc(ysz), *got[NK];
    for (int k = 0; k < NK; k++) got[k] = malloc(ysz);
    uint8_t *g3 = malloc(ysz);
    memset(want, 0x5c, ysz);
    for (int64_t i = 0; i < M; i++)
        for (int64_t n = 0; n < N; n++) {
            int64_t acc = bias[n];
            for (int64_t k = 0; k < K; k++) {
                int av = asg ? (int8_t)a[i * lda + k] : a[i * lda + k];
                acc += (int64_t)(av - d.a_zp) * (trans_b ? b[n * K + k] : b[k * N + n]);
            }
            if (yk == 2) {
                float v = (float)acc * (as * bs[n]);
                memcpy(want + (size_t)(i * ldy + n) * 4, &v, 4);
            } else {
                const double mult = (double)(float)((float)(as * bs[n]) / ys);
                double v = nearbyint((double)acc * mult) + d.y_zp;
                v = v < d.lo ? d.lo : v > d.hi ? d.hi : v;
                want[i * ldy + n] = (uint8_t)(int)v;
            }
        }
    int8_t *bt = malloc((size_t)(K * N));   /* B in the layout asked for */
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++)
            bt[trans_b ? n * K + k : k * N + n] = trans_b ? b[n * K + k] : b[k * N + n];
    char tag[160], err[256];
    snprintf(tag, sizeof tag, "M%lld K%lld N%lld a %s y %s relu %d transB %d", (long long)M,
             (long long)K, (long long)N, asg ? "s8" : "u8", yk == 2 ? "f32" : yk ? "s8" : "u8",
             relu, trans_b);
    for (int k = 0; k < NK; k++) {
        if (!kernel_here(k)) continue;
        d.novnni = k == PZ_Q8_AVX2;
        pz_qgemm_plan *p = pz_qgemm_plan_new(&d, KISA[k], bt, trans_b, bias, as, bs, ys, err,
                                             sizeof err);
        checkf(p != NULL, "%s: plan: %s", tag, err);
        if (!p) continue;
        checkf(pz_qgemm_plan_kernel(p) == (pz_q8_kernel)k, "%s: plan's kernel set", tag);
        memset(got[k], 0x5c, ysz);
        pz_qgemm_run(p, a, lda, got[k], ldy, 0, 1);
        memset(g3, 0x5c, ysz);
        for (int t = 0; t < 3; t++) pz_qgemm_run(p, a, lda, g3, ldy, t, 3);
        checkf(!memcmp(g3, got[k], ysz), "%s %s: 3 workers differ", tag, KNAME[k]);
        pz_qgemm_plan_free(p);
        if (k) {
            checkf(!memcmp(got[0], got[k], ysz), "%s: %s and scalar differ", tag, KNAME[k]);
            continue;
        }
        int64_t far = 0, one = 0, pad = 0;
        for (int64_t i = 0; i < M; i++)
            for (int64_t n = 0; n < ldy; n++) {
                const size_t o = (size_t)(i * ldy + n) * es;
                if (n >= N) {
                    pad += memcmp(got[k] + o, want + o, es) != 0;
                } else if (yk == 2) {
                    far += memcmp(got[k] + o, want + o, 4) != 0;
                } else {
                    int gv = yk ? (int8_t)got[k][o] : got[k][o];
                    int wv = yk ? (int8_t)want[o] : want[o];
                    far += abs(gv - wv) > 1;
                    one += abs(gv - wv) == 1;
                }
            }
        checkf(far == 0 && pad == 0, "%s scalar: %lld outputs off, %lld written past N", tag,
               (long long)far, (long long)pad);
        off1 += one, nout += M * N;
    }
    free(a), free(b), free(bt), free(bias), free(bs), free(want), free(got[0]), free(got[1]), free(got[2]), free(got[3]),
        free(g3);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void bench(pz_isa isa, int novnni)
{
    static const int64_t S[][3] = {{1, 2048, 1000}, {8, 2048, 1000}, {64, 768, 768},
                                   {128, 1024, 4096}};
    printf("%-22s %12s\n", "M x K x N (1 thread)", "int8 GMAC/s");
    for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
        const int64_t M = S[i][0], K = S[i][1], N = S[i][2];
        int8_t *b = malloc((size_t)(K * N));
        float *bs = malloc((size_t)N * sizeof *bs);
        uint8_t *a = malloc((size_t)(M * K)), *y = malloc((size_t)(M * N));
        for (int64_t j = 0; j < K * N; j++) b[j] = (int8_t)irnd(-127, 127);
        for (int64_t j = 0; j < M * K; j++) a[j] = (uint8_t)rnd();
        for (int64_t n = 0; n < N; n++) bs[n] = 0.003f;
        pz_qgemm_desc d = {.m = M, .n = N, .k = K, .a_zp = 128, .y_zp = 128, .lo = 0, .hi = 255,
                           .novnni = novnni};
        char err[200];
        pz_qgemm_plan *p = pz_qgemm_plan_new(&d, isa, b, 0, NULL, 0.02f, bs, 0.5f, err,
                                             sizeof err);
        double best = 1e30, t_end = now() + 0.3;
        do {
            double t0 = now();
            pz_qgemm_run(p, a, K, y, N, 0, 1);
            double t = now() - t0;
            if (t < best) best = t;
        } while (now() < t_end);
        char name[64];
        snprintf(name, sizeof name, "%lld x %lld x %lld", (long long)M, (long long)K,
                 (long long)N);
        printf("%-22s %12.1f\n", name, (double)(M * K * N) / best / 1e9);
        pz_qgemm_plan_free(p);
        free(b), free(bs), free(a), free(y);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        const char *k = argc > 2 ? argv[2] : "";
        bench(!strcmp(k, "avx2") || !strcmp(k, "avxvnni") ? PZ_ISA_AVX2 : PZ_ISA_AVX512,
              !strcmp(k, "avx2"));
        return 0;
    }
    if (!pz_cpu_has_vnni()) printf("no AVX512-VNNI here: no VNNI kernel tested\n");
    if (!pz_cpu_has_avxvnni()) printf("no AVX-VNNI here: no AVX-VNNI kernel tested\n");
    static const int64_t Ms[] = {1, 2, 5, 6, 7, 13}, Ks[] = {1, 3, 4, 17, 64, 100},
                         Ns[] = {1, 15, 16, 17, 40, 64, 100};
    int v = 0;
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 6; j++)
            for (size_t k = 0; k < 7; k++, v++)
                gcase(Ms[i], Ks[j], Ns[k], v & 1, v % 3, v / 3 % 2, v / 6 % 2);
    extreme = 1;
    for (int i = 0; i < 6; i++)
        gcase(1 + 3 * i, 64 + 37 * i, 16 + 9 * i, 0, i % 3, 0, i % 2);
    extreme = 0;
    printf("qgemm: %lld of %lld byte outputs 1 from the reference\n", (long long)off1,
           (long long)nout);
    char err[200];
    float one = 1.0f;
    int8_t w1 = 1;
    pz_qgemm_desc d = {.m = 1, .n = 1, .k = 1, .b_zp = 2, .hi = 255};
    pz_qgemm_plan *p = pz_qgemm_plan_new(&d, PZ_ISA_AVX512, &w1, 0, NULL, 1, &one, 1, err,
                                         sizeof err);
    checkf(!p && strstr(err, "zero point"), "b_zp 2 refused: %s", err);
    return test_summary("rt_qgemm");
}
