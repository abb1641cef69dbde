/* rt_qdwconv16c.c - the int8 depthwise convolution on NCHW16c
 * (rt/kernels/quant/qdwconv16c.h): the AVX-512 and AVX2 kernels and the
 * scalar twin against the reference QLinearConv with group == C
 * (pz_any_qconv__ref, clamped here for a fused ReLU); the AVX-512 one
 * as the VNNI row (vpdpwssd, where the CPU has VNNI) and as the float row
 * (novnni). Required: the kernels
 * equal to the twin bit for bit; every output within 1 of the reference (float against double
 * requantization, as qconv16c; the count that differs is printed); padding
 * lanes equal to y_zp; 1 and 3 workers the same bytes. Shapes: 3x3 stride 1
 * and 2, 5x5, dilation 2, C of 16, 24, 40 and 96, pads on every side, N = 2,
 * 4x400 (the AVX-512 kernel's four-pixel tiles on rows with a kernel row outside),
 * images 1 and 2 wide, 3x3 with pad 2,
 * uint8 and int8 in and out, random zero points, ReLU on and off; and the
 * plan's refusal of c != m. */
#include "rt/kernels/quant/qconv.h"
#include "rt/kernels/quant/qdwconv16c.h"
#include "rt_test.h"

static uint64_t seed = 41;
static uint32_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(seed >> 33);
}
static int irnd(int a, int b)
{
    return a + (int)(rnd() % (uint32_t)(b - a + 1));
}

static int64_t differ, total;

static void dcase(int n, int c, int ih, int iw, int k, int s, int d, int pad, int xsg, int ysg,
                  int relu)
{
    const int64_t oh = (ih + 2 * pad - d * (k - 1) - 1) / s + 1, ow = (iw + 2 * pad - d * (k - 1) - 1) / s + 1;
    const int64_t cb = (c + 15) / 16, nx = (int64_t)n * c * ih * iw, ny = n * c * oh * ow;
    uint8_t *x = malloc((size_t)nx), *xb = malloc((size_t)(n * cb * 16 * ih * iw));
    uint8_t *want = malloc((size_t)ny), *got = malloc((size_t)(n * cb * 16 * oh * ow));
    uint8_t *gplain = malloc((size_t)ny), *first = malloc((size_t)(n * cb * 16 * oh * ow));
    int8_t *w = malloc((size_t)(c * k * k));
    int32_t *b = malloc((size_t)c * sizeof *b);
    float *ws = malloc((size_t)c * sizeof *ws);
    for (int64_t i = 0; i < nx; i++) x[i] = (uint8_t)rnd();
    for (int64_t i = 0; i < c * k * k; i++) w[i] = (int8_t)irnd(-127, 127);
    for (int i = 0; i < c; i++) b[i] = irnd(-5000, 5000), ws[i] = 0.002f + 0.004f * (float)(rnd() % 1000) / 1000.0f;
    const float xs = 0.03f, ys = xs * 0.004f * 70.0f * 64.0f * (float)k / 40.0f;
    const int32_t xz = xsg ? irnd(-128, 127) : irnd(0, 255), yz = ysg ? irnd(-100, 100) : irnd(0, 255);
    const int32_t lo = relu ? yz : (ysg ? -128 : 0), hi = ysg ? 127 : 255;
    pz_qconv_params qp = {.func = PZ_QCONV_QLINEAR, .nsp = 2, .group = c, .kernel = {k, k},
                          .stride = {s, s}, .dilation = {d, d}, .pad_begin = {pad, pad},
                          .pad_end = {pad, pad}};
    pz_qconv_desc qd = {.tx = xsg ? PZ_I8 : PZ_U8, .tw = PZ_I8, .ty = ysg ? PZ_I8 : PZ_U8,
                        .ts = PZ_F32, .N = n, .C = c, .M = c, .xsp = {ih, iw}, .ysp = {oh, ow},
                        .ws_per_m = 1};
    int8_t xz8 = (int8_t)xz, yz8 = (int8_t)yz;
    uint8_t xzu = (uint8_t)xz, yzu = (uint8_t)yz;
    pz_qconv_args a = {.xzp = xsg ? (const void *)&xz8 : &xzu, .xs = &xs, .ws = ws, .ys = &ys,
                       .yzp = ysg ? (const void *)&yz8 : &yzu, .b = b};
    pz_any_qconv__ref(&qp, &qd, x, w, &a, want, 0, 1);
    for (int64_t i = 0; i < ny; i++) {   /* the fused ReLU's clamp */
        int v = ysg ? (int8_t)want[i] : want[i];
        v = v < lo ? lo : v;
        want[i] = (uint8_t)v;
    }
    pz_u8_nchw_to_nchw16c(n, c, ih, iw, 0x5a, x, xb, 0, 1);
    pz_qconv16c_desc dd = {.n = n, .c = c, .m = c, .ih = ih, .iw = iw, .oh = oh, .ow = ow,
                           .kh = k, .kw = k, .sh = s, .sw = s, .dh = d, .dw = d, .pt = pad,
                           .pl = pad, .x_signed = xsg, .y_signed = ysg, .x_zp = xz, .y_zp = yz,
                           .lo = lo, .hi = hi};
    /* avx512: the VNNI row where the CPU has it and the shape is 3x3 at
     * stride 1 or 2; avx512-novnni: the float row */
    const pz_isa isas[4] = {PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX512, PZ_ISA_AVX512};
    static const char *const names[4] = {"scalar", "avx2", "avx512", "avx512-novnni"};
    for (int t = 0; t < 4; t++)
        for (int nth = 1; nth <= 3 && pz_cpu_isa() >= isas[t]; nth += 2) {
            char err[200];
            dd.novnni = t == 3;
            pz_qdwconv16c_plan *p = pz_qdwconv16c_plan_new(&dd, isas[t], w, b, xs, ws, ys, err,
                                                           sizeof err);
            checkf(p != NULL, "plan: %s", p ? "" : err);
            if (!p) continue;
            memset(got, 0xa5, (size_t)(n * cb * 16 * oh * ow));
            for (int i = 0; i < nth; i++) pz_qdwconv16c_run(p, xb, got, i, nth);
            /* row ranges (fused F-Blocks): strips of 2 rows make the same bits */
            uint8_t *strips = malloc((size_t)(n * cb * 16 * oh * ow));
            memset(strips, 0x3c, (size_t)(n * cb * 16 * oh * ow));
            for (int64_t r = 0; r < oh; r += 2)
                for (int i = 0; i < nth; i++)
                    pz_qdwconv16c_run_rows(p, xb, strips, r, r + 2 > oh ? oh : r + 2, i, nth);
            checkf(!memcmp(strips, got, (size_t)(n * cb * 16 * oh * ow)),
                   "dw c%d %dx%d k%d s%d: strips of 2 rows differ from the whole run", c, ih, iw,
                   k, s);
            free(strips);
            pz_qdwconv16c_plan_free(p);
            int pad_ok = 1;
            for (int64_t e = 0; e < n * cb * oh * ow; e++)
                for (int l = c - (cb - 1) * 16; l < 16 && e % (cb * oh * ow) >= (cb - 1) * oh * ow; l++)
                    pad_ok &= got[e * 16 + l] == (uint8_t)yz;
            pz_u8_nchw16c_to_nchw(n, c, oh, ow, got, gplain, 0, 1);
            int64_t bad = 0, off = 0;
            for (int64_t i = 0; i < ny; i++) {
                int g = ysg ? (int8_t)gplain[i] : gplain[i], r = ysg ? (int8_t)want[i] : want[i];
                bad += g - r > 1 || r - g > 1;
                off += g != r;
            }
            if (t == 0 && nth == 1) {
                memcpy(first, got, (size_t)(n * cb * 16 * oh * ow));
                differ += off, total += ny;
            }
            checkf(!bad && pad_ok && !memcmp(first, got, (size_t)(n * cb * 16 * oh * ow)),
                   "dw c%d %dx%d k%d s%d d%d pad%d x%s y%s relu%d %s nth %d: %lld beyond 1, "
                   "pad lanes %s, %s the scalar twin's", c, ih, iw, k, s, d, pad,
                   xsg ? "s8" : "u8", ysg ? "s8" : "u8", relu, names[t], nth,
                   (long long)bad, pad_ok ? "ok" : "wrong",
                   memcmp(first, got, (size_t)(n * cb * 16 * oh * ow)) ? "not" : "equal to");
        }
    free(x), free(xb), free(want), free(got), free(gplain), free(first), free(w), free(b), free(ws);
}

int main(void)
{
    for (int v = 0; v < 4; v++) {
        const int xsg = v & 1, ysg = v >> 1;
        dcase(1, 32, 14, 14, 3, 1, 1, 1, xsg, ysg, 1);
        dcase(2, 24, 11, 9, 3, 2, 1, 1, xsg, ysg, 0);
        dcase(1, 40, 9, 13, 5, 1, 1, 2, xsg, ysg, 1);
        dcase(1, 96, 8, 8, 3, 1, 2, 2, xsg, ysg, 0);
        dcase(1, 16, 7, 7, 3, 2, 1, 0, xsg, ysg, 1);
        /* wide and short: tiles on the top and bottom rows, x_zp * w given back */
        dcase(1, 16, 4, 400, 3, 1, 1, 1, xsg, ysg, 0);
        /* the VNNI row's edges: 1- and 2-wide images, pad 2 (two columns
         * of x_zp), an even image at stride 2 (no right pad read) */
        dcase(1, 16, 3, 1, 3, 1, 1, 1, xsg, ysg, 0);
        dcase(1, 32, 2, 2, 3, 2, 1, 1, xsg, ysg, 1);
        dcase(1, 16, 5, 6, 3, 1, 1, 2, xsg, ysg, 0);
        dcase(1, 48, 10, 22, 3, 2, 1, 1, xsg, ysg, 0);
    }
    char err[200];
    pz_qconv16c_desc bad = {.n = 1, .c = 16, .m = 32, .ih = 4, .iw = 4, .oh = 4, .ow = 4,
                            .kh = 1, .kw = 1, .sh = 1, .sw = 1, .dh = 1, .dw = 1, .hi = 255};
    int8_t w1[32] = {0};
    float s1[32] = {0};
    CHECK(pz_qdwconv16c_plan_new(&bad, PZ_ISA_SCALAR, w1, NULL, 1, s1, 1, err, sizeof err) == NULL);
    printf("rt_qdwconv16c: %lld of %lld outputs one step from the double reference\n",
           (long long)differ, (long long)total);
    return test_summary("rt_qdwconv16c");
}
