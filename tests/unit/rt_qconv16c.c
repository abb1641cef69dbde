/* rt_qconv16c.c - the int8 NCHW16c convolution (rt/kernels/quant/qconv16c.h):
 * the VNNI kernel (where the CPU has AVX512-VNNI), the AVX-VNNI kernel
 * (where it has AVX-VNNI) and the AVX2 kernel (where it has AVX2; each in
 * both its tiles, 6x1 and 3x2) and the scalar twin
 * against the reference QLinearConv (pz_any_qconv__ref, its output clamped
 * here for a fused ReLU), converting NCHW <-> NCHW16c here. Required: the
 * kernels equal to the scalar twin bit for bit, every output within 1 of the reference
 * (the kernels requantize in float, the reference in double: qconv16c.h
 * says when they round apart; the count of such outputs is printed), the
 * padding lanes of y equal to y_zp, the same bytes for 1 and 3 workers.
 * Shapes: 1x1, 3x3 stride 1 and 2, the 7x7/2 stem over C = 3, pads on
 * every side, dilation, C and M of 3, 24, 40, widths around the tiles, N = 2,
 * per-channel weight scales, u8 and s8 input and output, random zero
 * points, with and without a ReLU clamp; the plan's refusals; and the u8
 * NCHW <-> NCHW16c conversions against the test's own loops. Extreme cases
 * (x 255 or 0, weights +-127 in runs, |acc| near 255 * 127 * K) pin the
 * AVX2 kernel's exact sums where 16-bit pair sums would saturate. The
 * residual epilogue (zsum) of every kernel against QADD's scalar kernel
 * over that kernel's plain output (sum_case), and its refusals.
 *
 * `rt_qconv16c --bench` instead times ResNet-50's layers at 1 thread: the
 * VNNI kernel's GMAC/s, and the fp32 conv16c AVX-512 kernel's for the same
 * layer (the fastest run of each in 0.3 s); `--bench avx2` the AVX2 int8
 * kernel, `--bench avxvnni` the AVX-VNNI one, against the fp32 conv16c AVX2
 * kernel. */
#include <time.h>

#include "rt/kernels/quant/qconv.h"
#include "rt/kernels/quant/qconv16c_impl.h"   /* the plan's tile, for the bench */
#include "rt_test.h"

static uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* an integer in [a, b] */
static int irnd(int a, int b)
{
    return a + (int)(rnd() % (uint32_t)(b - a + 1));
}

typedef struct {
    int n, c, m, ih, iw, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
} shape;

static int64_t total_mismatch, total_out;
static int extreme;   /* x 255 or 0 and weights +-127 in runs of 4 */

/* The kernel sets tried: scalar, AVX2 and AVX-VNNI (each its 6x1 tile and
 * its 3x2), VNNI. */
#define NK 6
static const pz_isa KISA[NK] = {PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX2,
                                PZ_ISA_AVX2,   PZ_ISA_AVX2, PZ_ISA_AVX512};
static const pz_q8_kernel KSET[NK] = {PZ_Q8_SCALAR,  PZ_Q8_AVX2,    PZ_Q8_AVX2,
                                      PZ_Q8_AVXVNNI, PZ_Q8_AVXVNNI, PZ_Q8_VNNI};
static const int KRM[NK] = {0, 1, 2, 1, 2, 0};
static const char *const KNAME[NK] = {"scalar", "avx2", "avx2 3x2", "avxvnni", "avxvnni 3x2",
                                      "vnni"};

static int kernel_here(int k)
{
    return KSET[k] == PZ_Q8_SCALAR || (KSET[k] == PZ_Q8_AVX2 && pz_cpu_isa() >= PZ_ISA_AVX2) ||
           (KSET[k] == PZ_Q8_AVXVNNI && pz_cpu_has_avxvnni()) ||
           (KSET[k] == PZ_Q8_VNNI && pz_cpu_has_vnni());
}

/* The residual epilogue (desc.zsum) of the plan of dk on kernel set isa:
 * its output against the QADD layer's scalar kernel (pz_qadd8__scalar) over
 * yp, that plan's plain output, and a random z (every lane, padding too), z
 * as the add's B or A, with and without Relu: bit for bit, for 1 and 3
 * workers and strips of 2 rows. */
static int residual;

static void sum_case(const pz_qconv16c_desc *dk, pz_isa isa, const uint8_t *xb, const int8_t *w,
                     const int32_t *b, float xs, const float *ws, float ys, const uint8_t *yp,
                     int64_t ysz, int64_t OH, const char *tag, const char *kname)
{
    const int sg = dk->y_signed, tlo = sg ? -128 : 0;
    uint8_t *z = malloc((size_t)ysz), *got = malloc((size_t)ysz), *want = malloc((size_t)ysz);
    for (int v = 0; v < 4; v++) {
        for (int64_t i = 0; i < ysz; i++) z[i] = (uint8_t)rnd();
        pz_qconv16c_desc dz = *dk;
        dz.zsum = 1, dz.z_b = v & 1, dz.z_relu = v >> 1;
        dz.z_scale = ys * (0.3f + 1.5f * (float)(rnd() % 1000) / 1000.0f);
        dz.s_scale = (ys + dz.z_scale) * (0.4f + 0.5f * (float)(rnd() % 1000) / 1000.0f);
        dz.z_zp = irnd(tlo, tlo + 255), dz.s_zp = irnd(tlo, tlo + 255);
        char err[256];
        pz_qconv16c_plan *p = pz_qconv16c_plan_new(&dz, isa, w, b, xs, ws, ys, err, sizeof err);
        checkf(p != NULL, "%s %s residual: plan: %s", tag, kname, err);
        if (!p) continue;
        /* QADD: A the conv's y (y_scale, y_zp), B z; swapped when z_b */
        const pz_qadd_args q = {.sa = dz.z_b ? dz.z_scale : ys, .za = dz.z_b ? dz.z_zp : dz.y_zp,
                                .sb = dz.z_b ? ys : dz.z_scale, .zb = dz.z_b ? dz.y_zp : dz.z_zp,
                                .sc = dz.s_scale, .zc = dz.s_zp, .sgn = sg, .relu = dz.z_relu};
        pz_qadd8__scalar(ysz, &q, dz.z_b ? z : yp, dz.z_b ? yp : z, want);
        memset(got, 0xa5, (size_t)ysz);
        pz_qconv16c_run(p, xb, z, got, 0, 1);
        int64_t bad = 0;
        for (int64_t i = 0; i < ysz; i++) bad += got[i] != want[i];
        checkf(bad == 0, "%s %s residual z_b %d relu %d: %lld of %lld bytes differ from QADD's",
               tag, kname, dz.z_b, dz.z_relu, (long long)bad, (long long)ysz);
        memset(got, 0x5a, (size_t)ysz);
        for (int t = 0; t < 3; t++) pz_qconv16c_run(p, xb, z, got, t, 3);
        checkf(!memcmp(got, want, (size_t)ysz), "%s %s residual: 3 workers differ", tag, kname);
        memset(got, 0x5a, (size_t)ysz);
        for (int64_t r = 0; r < OH; r += 2)
            for (int t = 0; t < 2; t++)
                pz_qconv16c_run_rows(p, xb, z, got, r, r + 2 > OH ? OH : r + 2, t, 2);
        checkf(!memcmp(got, want, (size_t)ysz), "%s %s residual: strips of 2 rows differ", tag,
               kname);
        pz_qconv16c_plan_free(p);
    }
    free(z), free(got), free(want);
}

/* One case: returns nothing, counts checks. */
static void qcase(const shape *s, int xsg, int ysg, int relu, const char *tag)
{
    const int64_t N = s->n, C = s->c, M = s->m, IH = s->ih, IW = s->iw;
    const int64_t OH = (IH + s->pt + s->pb - (int64_t)s->dh * (s->kh - 1) - 1) / s->sh + 1;
    const int64_t OW = (IW + s->pl + s->pr - (int64_t)s->dw * (s->kw - 1) - 1) / s->sw + 1;
    const int64_t K = C * s->kh * s->kw, cb = (C + 15) / 16, mb = (M + 15) / 16;
    uint8_t *x = malloc((size_t)(N * C * IH * IW));
    int8_t *w = malloc((size_t)(M * K));
    int32_t *b = malloc((size_t)M * sizeof *b);
    float *ws = malloc((size_t)M * sizeof *ws);
    for (int64_t i = 0; i < N * C * IH * IW; i++) x[i] = (uint8_t)rnd();
    for (int64_t i = 0; i < M * K; i++) w[i] = (int8_t)irnd(-127, 127);
    if (extreme) {
        for (int64_t i = 0; i < N * C * IH * IW; i++) x[i] = (uint8_t)(rnd() % 8 ? (xsg ? 0x7f : 255) : (xsg ? 0x80 : 0));
        for (int64_t i = 0; i < M * K; i++) w[i] = (int8_t)(i / 4 % 3 ? 127 : -127);
    }
    for (int64_t m = 0; m < M; m++) b[m] = irnd(-20000, 20000);
    const float xs = 0.02f + 0.01f * (float)(rnd() % 100) / 100.0f;
    for (int64_t m = 0; m < M; m++) ws[m] = 0.002f + 0.004f * (float)(rnd() % 1000) / 1000.0f;
    /* outputs spread over the range: |acc| ~ 70 * 64 * sqrt(K) */
    float ys = xs * 0.004f * 70.0f * 64.0f * (float)sqrt((double)K) / 60.0f;
    if (extreme) ys = xs * 0.006f * 255.0f * 127.0f * (float)K / 100.0f;
    const int32_t xz = xsg ? irnd(-128, 127) : irnd(0, 255);
    const int32_t yz = ysg ? irnd(-100, 100) : irnd(0, 255);
    const int32_t tlo = ysg ? -128 : 0, thi = ysg ? 127 : 255;
    const int32_t lo = relu ? yz : tlo, hi = thi;

    /* the reference, NCHW, clamped to [lo, hi] */
    pz_qconv_params qp = {.func = PZ_QCONV_QLINEAR, .nsp = 2, .group = 1,
                          .kernel = {s->kh, s->kw}, .stride = {s->sh, s->sw},
                          .dilation = {s->dh, s->dw}, .pad_begin = {s->pt, s->pl},
                          .pad_end = {s->pb, s->pr}};
    pz_qconv_desc qd = {.tx = xsg ? PZ_I8 : PZ_U8, .tw = PZ_I8, .ty = ysg ? PZ_I8 : PZ_U8,
                        .ts = PZ_F32, .N = N, .C = C, .M = M, .xsp = {IH, IW},
                        .ysp = {OH, OW}, .wzp_per_m = 0, .ws_per_m = 1};
    uint8_t xzb = (uint8_t)xz, yzb = (uint8_t)yz;
    pz_qconv_args qa = {&xzb, NULL, &xs, ws, &ys, &yzb, b};
    uint8_t *yref = malloc((size_t)(N * M * OH * OW));
    pz_any_qconv__ref(&qp, &qd, x, w, &qa, yref, 0, 1);
    for (int64_t i = 0; i < N * M * OH * OW; i++) {
        int32_t v = ysg ? (int32_t)(int8_t)yref[i] : (int32_t)yref[i];
        v = v < lo ? lo : v > hi ? hi : v;
        yref[i] = (uint8_t)v;
    }

    /* x in NCHW16c, its padding lanes garbage */
    uint8_t *xb = malloc((size_t)(N * cb * IH * IW * 16));
    for (int64_t i = 0; i < N * cb * IH * IW * 16; i++) xb[i] = (uint8_t)rnd();
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < IH * IW; p++)
                xb[((n * cb + c / 16) * IH * IW + p) * 16 + c % 16] = x[(n * C + c) * IH * IW + p];

    pz_qconv16c_desc d = {.n = N, .c = C, .m = M, .ih = IH, .iw = IW, .oh = OH, .ow = OW,
                          .kh = s->kh, .kw = s->kw, .sh = s->sh, .sw = s->sw, .dh = s->dh,
                          .dw = s->dw, .pt = s->pt, .pl = s->pl, .x_signed = xsg,
                          .y_signed = ysg, .x_zp = xz, .y_zp = yz, .lo = lo, .hi = hi};
    const int64_t ysz = N * mb * OH * OW * 16;
    uint8_t *yk[NK];
    uint8_t *y3 = malloc((size_t)ysz);
    char err[256];
    for (int k = 0; k < NK; k++) {
        yk[k] = malloc((size_t)ysz);
        if (!kernel_here(k)) continue;
        pz_qconv16c_desc dk = d;
        dk.rm = KRM[k];
        dk.novnni = KSET[k] == PZ_Q8_AVX2;
        pz_qconv16c_plan *p =
            pz_qconv16c_plan_new(&dk, KISA[k], w, b, xs, ws, ys, err, sizeof err);
        checkf(p != NULL, "%s: plan: %s", tag, err);
        if (!p) continue;
        checkf(pz_qconv16c_plan_kernel(p) == KSET[k], "%s: plan's kernel set %d", tag, k);
        memset(yk[k], 0xa5, (size_t)ysz);
        pz_qconv16c_run(p, xb, NULL, yk[k], 0, 1);
        memset(y3, 0x5a, (size_t)ysz);
        for (int t = 0; t < 3; t++) pz_qconv16c_run(p, xb, NULL, y3, t, 3);
        checkf(!memcmp(y3, yk[k], (size_t)ysz), "%s %s: 3 workers differ from 1", tag, KNAME[k]);
        /* row ranges (fused F-Blocks): strips of 1, 2 and 3 rows, 2 workers
         * each, make the bits of the whole run */
        for (int64_t st = 1; st <= 3; st++) {
            memset(y3, 0x5a, (size_t)ysz);
            for (int64_t r = 0; r < OH; r += st)
                for (int t = 0; t < 2; t++)
                    pz_qconv16c_run_rows(p, xb, NULL, y3, r, r + st > OH ? OH : r + st, t, 2);
            checkf(!memcmp(y3, yk[k], (size_t)ysz), "%s %s: strips of %lld rows differ from "
                   "the whole run", tag, KNAME[k], (long long)st);
        }
        pz_qconv16c_plan_free(p);
        if (residual) sum_case(&dk, KISA[k], xb, w, b, xs, ws, ys, yk[k], ysz, OH, tag, KNAME[k]);
        if (k) {
            checkf(!memcmp(yk[0], yk[k], (size_t)ysz), "%s: %s and scalar differ", tag,
                   KNAME[k]);
            continue;
        }
        int64_t far = 0, off1 = 0, badpad = 0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t m = 0; m < mb * 16; m++)
                for (int64_t q = 0; q < OH * OW; q++) {
                    uint8_t got = yk[k][((n * mb + m / 16) * OH * OW + q) * 16 + m % 16];
                    if (m >= M) {
                        badpad += got != yzb;
                        continue;
                    }
                    uint8_t want = yref[(n * M + m) * OH * OW + q];
                    int gv = ysg ? (int8_t)got : got, wv = ysg ? (int8_t)want : want;
                    int e = abs(gv - wv);
                    far += e > 1;
                    off1 += e == 1;
                }
        checkf(far == 0 && badpad == 0, "%s scalar: %lld outputs off by more than 1, %lld bad "
               "pad lanes", tag, (long long)far, (long long)badpad);
        total_mismatch += off1, total_out += N * M * OH * OW;
    }
    /* the layout helpers against the loops above: x's blocks (padding
     * lanes aside), and y back to NCHW against the reference */
    uint8_t *xc = malloc((size_t)(N * cb * IH * IW * 16)), *yn = malloc((size_t)(N * M * OH * OW));
    for (int t = 0; t < 2; t++) pz_u8_nchw_to_nchw16c(N, C, IH, IW, 0x77, x, xc, t, 2);
    int64_t bad = 0;
    for (int64_t i = 0; i < N * cb * IH * IW * 16; i++)
        bad += i % 16 + (i / (IH * IW * 16)) % cb * 16 < C ? xc[i] != xb[i] : xc[i] != 0x77;
    for (int t = 0; t < 3; t++) pz_u8_nchw16c_to_nchw(N, M, OH, OW, yk[0], yn, t, 3);
    for (int64_t i = 0; i < N * M * OH * OW; i++) {
        int gv = ysg ? (int8_t)yn[i] : yn[i], wv = ysg ? (int8_t)yref[i] : yref[i];
        bad += abs(gv - wv) > 1;
    }
    checkf(bad == 0, "%s: layout conversion: %lld bytes wrong", tag, (long long)bad);
    free(xc), free(yn);
    for (int k = 0; k < NK; k++) free(yk[k]);
    free(x), free(w), free(b), free(ws), free(yref), free(xb), free(y3);
}

static void shapes(void)
{
    static const shape S[] = {
        /* n  c   m  ih  iw kh kw sh sw dh dw pt pl pb pr */
        {1, 16, 16, 5, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
        {1, 64, 64, 7, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
        {2, 24, 40, 9, 17, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
        {1, 40, 24, 8, 8, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},
        {1, 3, 24, 6, 15, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
        {1, 16, 16, 8, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 24, 40, 13, 29, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {2, 40, 24, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
        {1, 64, 128, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 32, 72, 15, 15, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0},
        {1, 48, 40, 6, 31, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0},
        {1, 3, 64, 32, 32, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},
        {2, 3, 24, 23, 21, 7, 7, 2, 2, 1, 1, 3, 3, 2, 3},
        {1, 24, 24, 11, 11, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
        {1, 16, 32, 9, 12, 5, 3, 1, 2, 1, 1, 2, 1, 2, 1},
        {1, 8, 16, 3, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
        {1, 40, 40, 2, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 3, 3, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 160, 48, 10, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    };
    residual = 1;
    for (size_t i = 0; i < sizeof S / sizeof S[0]; i++)
        for (int v = 0; v < 4; v++) {
            int xsg = v & 1, ysg = v >> 1 & 1, relu = (int)((i + (size_t)v) % 2);
            char tag[160];
            snprintf(tag, sizeof tag, "shape %zu (n%d c%d m%d %dx%d k%dx%d s%d d%d p%d%d%d%d) "
                     "x %s y %s relu %d", i, S[i].n, S[i].c, S[i].m, S[i].ih, S[i].iw, S[i].kh,
                     S[i].kw, S[i].sh, S[i].dh, S[i].pt, S[i].pl, S[i].pb, S[i].pr,
                     xsg ? "s8" : "u8", ysg ? "s8" : "u8", relu);
            qcase(&S[i], xsg, ysg, relu, tag);
        }
    /* random shapes */
    for (int t = 0; t < 40; t++) {
        shape s;
        s.n = irnd(1, 2);
        s.c = irnd(1, 70);
        s.m = irnd(1, 90);
        s.kh = irnd(1, 4), s.kw = irnd(1, 4);
        s.sh = irnd(1, 2), s.sw = irnd(1, 3);
        s.dh = irnd(1, 2), s.dw = irnd(1, 2);
        s.pt = irnd(0, 2), s.pl = irnd(0, 2), s.pb = irnd(0, 2), s.pr = irnd(0, 2);
        s.ih = irnd(1, 20), s.iw = irnd(1, 40);
        if (s.ih + s.pt + s.pb < (s.kh - 1) * s.dh + 1) s.ih = (s.kh - 1) * s.dh + 1;
        if (s.iw + s.pl + s.pr < (s.kw - 1) * s.dw + 1) s.iw = (s.kw - 1) * s.dw + 1;
        int xsg = irnd(0, 1), ysg = irnd(0, 1), relu = irnd(0, 1);
        residual = t % 2 == 0;
        char tag[200];
        snprintf(tag, sizeof tag, "random %d (n%d c%d m%d %dx%d k%dx%d s%dx%d d%dx%d p%d%d%d%d) "
                 "x %d y %d relu %d", t, s.n, s.c, s.m, s.ih, s.iw, s.kh, s.kw, s.sh, s.sw, s.dh,
                 s.dw, s.pt, s.pl, s.pb, s.pr, xsg, ysg, relu);
        qcase(&s, xsg, ysg, relu, tag);
    }
    /* extreme values: 16-bit pair sums of u8 x s8 would saturate */
    static const shape E[] = {
        {1, 64, 32, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        {1, 48, 16, 5, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
        {1, 3, 16, 11, 11, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},
    };
    residual = 0;
    extreme = 1;
    for (size_t i = 0; i < sizeof E / sizeof E[0]; i++)
        for (int v = 0; v < 2; v++) {
            char tag[80];
            snprintf(tag, sizeof tag, "extreme %zu x %s", i, v ? "s8" : "u8");
            qcase(&E[i], v, 0, 0, tag);
        }
    extreme = 0;
    printf("qconv16c: %lld of %lld outputs 1 from the reference (float vs double "
           "requantization)\n", (long long)total_mismatch, (long long)total_out);
}

/* Plans refused: the layer falls back to the reference. */
static void refusals(void)
{
    char err[256];
    int8_t w[9] = {0};
    float ws = 1.0f;
    pz_qconv16c_desc d = {.n = 1, .c = 1, .m = 1, .ih = 3, .iw = 3, .oh = 3, .ow = 3, .kh = 3,
                          .kw = 3, .sh = 1, .sw = 1, .dh = 1, .dw = 1, .pt = 1, .pl = 1,
                          .lo = 0, .hi = 255};
    pz_qconv16c_plan *p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 0.0f, err,
                                               sizeof err);
    checkf(!p && strstr(err, "not finite"), "y_scale 0 refused: %s", err);
    d.w_zp = 3;
    p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 1.0f, err, sizeof err);
    checkf(!p && strstr(err, "weight zero point"), "w_zp 3 refused: %s", err);
    d.w_zp = 0;
    d.x_zp = 256;
    p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 1.0f, err, sizeof err);
    checkf(!p && strstr(err, "x zero point"), "x_zp 256 refused: %s", err);
    d.x_zp = 0;
    d.y_signed = 1;   /* hi 255 outside int8 */
    p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 1.0f, err, sizeof err);
    checkf(!p && strstr(err, "clamp"), "int8 y with hi 255 refused: %s", err);
    d.y_signed = 0;
    p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 1.0f, err, sizeof err);
    checkf(p != NULL, "the same plan accepted: %s", err);
    pz_qconv16c_plan_free(p);
    /* a residual: zero points outside y's type, a sum scale of 0 */
    d.zsum = 1, d.z_scale = 1.0f, d.s_scale = 1.0f, d.z_zp = 256;
    p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 1.0f, err, sizeof err);
    checkf(!p && strstr(err, "residual zero points"), "residual z_zp 256 refused: %s", err);
    d.z_zp = 0, d.s_scale = 0.0f;
    p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 1.0f, err, sizeof err);
    checkf(!p && strstr(err, "not finite"), "residual s_scale 0 refused: %s", err);
    d.zsum = 0;
    d.sh = 0;
    p = pz_qconv16c_plan_new(&d, PZ_ISA_AVX512, w, NULL, 1.0f, &ws, 1.0f, err, sizeof err);
    checkf(!p && err[0], "stride 0 refused: %s", err);
    pz_qconv16c_plan_free(NULL);
}

/* ---- bench ---------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void bench(int avx2)
{
    static const struct { const char *name; int c, m, h, k, s, p; } L[] = {
        {"56x56 64->64 3x3", 64, 64, 56, 3, 1, 1},
        {"56x56 64->256 1x1", 64, 256, 56, 1, 1, 0},
        {"28x28 128->128 3x3", 128, 128, 28, 3, 1, 1},
        {"14x14 256->256 3x3", 256, 256, 14, 3, 1, 1},
        {"7x7 512->512 3x3", 512, 512, 7, 3, 1, 1},
        {"7x7 512->2048 1x1", 512, 2048, 7, 1, 1, 0},
        {"224 3->64 7x7/2 stem", 3, 64, 224, 7, 2, 3},
        {"224 3->32 3x3/2 stem", 3, 32, 224, 3, 2, 1},
    };
    const char *rms = getenv("PZ_QCONV16C_RM");
    printf("%-22s %10s %10s %6s %5s\n", "layer (1 thread)", "int8 GMAC/s", "fp32 GMAC/s", "ratio",
           "rm");
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        const int C = L[i].c, M = L[i].m, H = L[i].h, KK = L[i].k, S = L[i].s, P = L[i].p;
        const int OH = (H + 2 * P - KK) / S + 1;
        const int64_t cb = (C + 15) / 16, mb = (M + 15) / 16, K = (int64_t)C * KK * KK;
        const double macs = (double)M * OH * OH * (double)K;
        int8_t *w = malloc((size_t)(M * K));
        float *ws = malloc((size_t)M * sizeof *ws);
        for (int64_t j = 0; j < M * K; j++) w[j] = (int8_t)irnd(-127, 127);
        for (int m = 0; m < M; m++) ws[m] = 0.003f;
        uint8_t *x = malloc((size_t)(cb * H * H * 16)), *y = malloc((size_t)(mb * OH * OH * 16));
        for (int64_t j = 0; j < cb * H * H * 16; j++) x[j] = (uint8_t)rnd();
        pz_qconv16c_desc d = {.n = 1, .c = C, .m = M, .ih = H, .iw = H, .oh = OH, .ow = OH,
                              .kh = KK, .kw = KK, .sh = S, .sw = S, .dh = 1, .dw = 1, .pt = P,
                              .pl = P, .x_zp = 128, .y_zp = 128, .lo = 128, .hi = 255,
                              .rm = rms ? atoi(rms) : 0};
        char err[256];
        const pz_isa isa = avx2 ? PZ_ISA_AVX2 : PZ_ISA_AVX512;
        d.novnni = avx2 == 1;
        pz_qconv16c_plan *p = pz_qconv16c_plan_new(&d, isa, w, NULL, 0.02f, ws, 0.5f, err,
                                                   sizeof err);
        if (!p) {
            printf("%s: %s\n", L[i].name, err);
            continue;
        }
        /* the fastest of the runs in 0.3 s: the machine may be shared, and
         * a run of a layer (a few ms) often goes uninterrupted */
        double best = 1e30, t_end = now() + 0.3;
        do {
            double t0 = now();
            pz_qconv16c_run(p, x, NULL, y, 0, 1);
            double t = now() - t0;
            if (t < best) best = t;
        } while (now() < t_end);
        const double gq = macs / best / 1e9;

        /* fp32 conv16c, AVX-512 (or AVX2) */
        double gf = 0;
        if (avx2 ? pz_cpu_isa() >= PZ_ISA_AVX2 : cpu_has_avx512()) {
            const int cblk = C <= 4 ? C : 16;
            pz_conv16c_desc fd = {.n = 1, .c = C, .h = H, .w = H, .m = M, .oh = OH, .ow = OH,
                                  .kh = KK, .kw = KK, .sh = S, .sw = S, .dh = 1, .dw = 1,
                                  .pt = P, .pl = P, .cblk = cblk};
            float *wf = new_rand(M * K);
            float *wp = malloc((size_t)pz_conv16c_weights_size(&fd) * sizeof(float));
            pz_conv16c_pack_weights(&fd, wf, wp);
            const int64_t xn = (C + cblk - 1) / cblk * cblk * (int64_t)H * H;
            float *xf = new_rand(xn), *yf = malloc((size_t)(mb * 16 * OH * OH) * sizeof(float));
            const pz_fast_kernels *k = pz_fast_kernels_for(isa);
            best = 1e30;
            t_end = now() + 0.3;
            do {
                double t0 = now();
                k->conv2d(&fd, xf, wp, NULL, NULL, yf, 0, 1);
                double t = now() - t0;
                if (t < best) best = t;
            } while (now() < t_end);
            gf = macs / best / 1e9;
            free(wf), free(wp), free(xf), free(yf);
        }
        printf("%-22s %10.1f %10.1f %6.2f %5d\n", L[i].name, gq, gf, gf > 0 ? gq / gf : 0.0,
               p->rm);
        pz_qconv16c_plan_free(p);
        free(w), free(ws), free(x), free(y);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        /* 1: the AVX2 int8 kernel, 2: AVX-VNNI, both against fp32 AVX2 */
        const int avx2 = argc > 2 && !strcmp(argv[2], "avx2")      ? 1
                         : argc > 2 && !strcmp(argv[2], "avxvnni") ? 2
                                                                   : 0;
        if (!avx2 && !pz_cpu_has_vnni()) printf("no AVX512-VNNI here: the scalar twin is timed\n");
        bench(avx2);
        return 0;
    }
    if (!pz_cpu_has_vnni()) printf("no AVX512-VNNI here: no VNNI kernel tested\n");
    if (!pz_cpu_has_avxvnni()) printf("no AVX-VNNI here: no AVX-VNNI kernel tested\n");
    shapes();
    refusals();
    return test_summary("rt_qconv16c");
}
