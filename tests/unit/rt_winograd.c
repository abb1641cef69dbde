/* rt_winograd.c - Winograd F(4x4, 3x3) (rt/kernels/conv/winograd.h) against the
 * plain reference convolution (pz_f32_conv__ref) and against the direct
 * NCHW16c conv, over edge sizes:
 *   channels 5, 16, 17, 32, 33, 64, 512 in; 3, 16, 20, 32, 48, 64 out
 *     (non-multiples of 16: the padded lanes must come out zero);
 *   heights and widths 1..9, 13, 14, 17, 30 (tiles of 4 overhanging the
 *     output by 0..3; tile blocks of 14 split unevenly);
 *   pads 0, 1 (and 2) on each side independently;
 *   with and without bias, residual, ReLU, Clip (lo > 0, which moves zero:
 *     padded lanes must still be zero); batch 1 and 2;
 *   the panel order and the whole-image order (512 channels at 28x28).
 * Also the AUTO rule (pz_winograd_pays) on the layers it was measured on.
 * Each case runs the scalar and (when the CPU has it and the build is not
 * PZ_SCALAR) the AVX-512 kernel, with 1 worker and split over 3 (bitwise
 * equal), on NaN-filled output and scratch (an element left unwritten, or
 * scratch read before written, shows). Errors are normalised: max |a - b| /
 * max |ref before the activation|, <= 1e-4 against the reference and the
 * direct conv (the bound), <= 1e-5 between the two ISAs.
 *
 * Prints `rt_winograd: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/winograd.h"
#include "rt_test.h"

static double worst_ref;   /* largest error against the reference seen */
static int n_whole;         /* cases run in the whole-image order */
static bool have_avx512;

typedef struct {
    int64_t n, c, m, h, w;
    int pt, pl, pb, pr;
    bool bias, residual;
    pz_act_kind act;
} wcase;

static void case_str(const wcase *t, const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "%s N%lld C%lld M%lld %lldx%lld pads t%d l%d b%d r%d%s%s act%d", what,
             (long long)t->n, (long long)t->c, (long long)t->m, (long long)t->h, (long long)t->w,
             t->pt, t->pl, t->pb, t->pr, t->bias ? " bias" : "", t->residual ? " residual" : "",
             (int)t->act);
}

static void run_case(const wcase *t)
{
    const int64_t N = t->n, oh = t->h + t->pt + t->pb - 2, ow = t->w + t->pl + t->pr - 2;
    if (oh < 1 || ow < 1) return;
    pz_conv_params p = {.nsp = 2, .group = 1};
    for (int j = 0; j < 2; j++) {
        p.kernel[j] = 3;
        p.stride[j] = 1;
        p.dilation[j] = 1;
    }
    p.pad_begin[0] = t->pt;
    p.pad_begin[1] = t->pl;
    p.pad_end[0] = t->pb;
    p.pad_end[1] = t->pr;
    p.act.kind = t->act;
    p.act.lo = 0.25f;   /* CLIP: lo > 0 moves zero; padded lanes must stay zero */
    p.act.hi = 1.5f;
    const int64_t xd[4] = {N, t->c, t->h, t->w}, yd[4] = {N, t->m, oh, ow};
    const int64_t nplain = N * t->m * oh * ow;

    float *x = new_rand(N * t->c * t->h * t->w), *w = new_rand(t->m * t->c * 9);
    float *b = t->bias ? new_rand(t->m) : NULL;
    float *z = t->residual ? new_rand(nplain) : NULL;
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, nplain, &yref, &yscale);

    char what[256];
    pz_conv16c_desc d;
    int rc = pz_conv16c_init(&d, &p, xd, yd);
    case_str(t, "init+ok", what, sizeof what);
    check(rc == 0 && pz_winograd_ok(&d), what);
    if (rc || !pz_winograd_ok(&d)) {
        free(x), free(w), free(b), free(z), free(yref), free(yscale);
        return;
    }

    const int64_t ny = pz_nchwxc_size(N, t->m, oh, ow, 16);
    float *x16, *z16, *bp;
    conv_pack16(N, t->c, t->h, t->w, t->m, oh, ow, x, z, b, &x16, &z16, &bp);
    float *u = new_nan(pz_winograd_weights_size(&d));
    pz_winograd_pack_weights(&d, w, u);
    const int64_t ns1 = pz_winograd_scratch_size(&d, 1), ns3 = pz_winograd_scratch_size(&d, 3);
    if (pz_winograd_whole_image(&d, 1) || pz_winograd_whole_image(&d, 3)) n_whole++;
    float *s1 = new_nan(ns1), *s3 = new_nan(ns3);

    /* the direct conv, AVX-512 when there is one */
    float *ydir = NULL;
#ifndef PZ_SCALAR
    if (have_avx512) {
        float *wd = new_nan(pz_conv16c_weights_size(&d));
        pz_conv16c_pack_weights(&d, w, wd);
        ydir = new_nan(ny);
        pz_f32_conv2d_nchw16c__avx512(&d, x16, wd, bp, z16, ydir, 0, 1);
        free(wd);
    }
#endif

    float *yscale16 = new_nan(ny), *y1 = new_nan(ny), *y3 = new_nan(ny), *ytwin = new_nan(ny);
    float *yplain = new_nan(nplain);
    pz_f32_nchw_to_nchwxc(N, t->m, oh, ow, 16, yscale, yscale16, 0, 1);
    const struct {
        const char *name;
        pz_winograd_fn fn;
        bool on;
    } isas[2] = {
        {"scalar", pz_f32_conv3x3_winograd_nchw16c__scalar, true},
#ifndef PZ_SCALAR
        {"avx512", pz_f32_conv3x3_winograd_nchw16c__avx512, have_avx512},
#else
        {"avx512", NULL, false},
#endif
    };
    for (int i = 0; i < 2; i++) {
        if (!isas[i].on) continue;
        fill_nan(y1, ny);
        fill_nan(y3, ny);
        fill_nan(s1, ns1);
        fill_nan(s3, ns3);
        isas[i].fn(&d, x16, u, bp, z16, y1, s1, 0, 1);
        for (int ith = 0; ith < 3; ith++) isas[i].fn(&d, x16, u, bp, z16, y3, s3, ith, 3);

        char tag[64];
        snprintf(tag, sizeof tag, "%s vs ref", isas[i].name);
        case_str(t, tag, what, sizeof what);
        pz_f32_nchwxc_to_nchw(N, t->m, oh, ow, 16, y1, yplain, 0, 1);
        double e = nerr(yplain, yref, yscale, nplain);
        if (e > worst_ref) worst_ref = e;
        check(e <= 1e-4, what);
        if (e > 1e-4) printf("  error %.3g\n", e);

        if (ydir) {
            snprintf(tag, sizeof tag, "%s vs direct", isas[i].name);
            case_str(t, tag, what, sizeof what);
            check(nerr(y1, ydir, yscale16, ny) <= 1e-4, what);
        }
        if (i == 0) {
            memcpy(ytwin, y1, (size_t)ny * sizeof *y1);
        } else {
            case_str(t, "avx512 vs scalar", what, sizeof what);
            check(nerr(y1, ytwin, yscale16, ny) <= 1e-5, what);
        }
        /* padded lanes zero; the 3-way split gives the same bits */
        bool lanes = true;
        for (int64_t e2 = 0; e2 < ny; e2++) {
            int64_t ch = e2 / (oh * ow * 16) % ((t->m + 15) / 16) * 16 + e2 % 16;
            if (ch >= t->m && y1[e2] != 0.0f) lanes = false;
        }
        snprintf(tag, sizeof tag, "%s padded lanes zero", isas[i].name);
        case_str(t, tag, what, sizeof what);
        check(lanes, what);
        snprintf(tag, sizeof tag, "%s nth=3 bitwise", isas[i].name);
        case_str(t, tag, what, sizeof what);
        check(memcmp(y1, y3, (size_t)ny * sizeof *y1) == 0, what);
    }

    free(x), free(w), free(b), free(z), free(yref), free(yscale);
    free(x16), free(z16), free(bp), free(u), free(s1), free(s3), free(ydir);
    free(yscale16), free(y1), free(y3), free(ytwin), free(yplain);
}

/* The convs pz_winograd_ok must refuse. */
static void check_refusals(void)
{
    const int64_t xd[4] = {1, 32, 10, 10};
    struct {
        int k, s, dl;
        int64_t c;
        const char *what;
    } r[] = {
        {3, 2, 1, 32, "stride 2"}, {5, 1, 1, 32, "5x5"}, {1, 1, 1, 32, "1x1"},
        {3, 1, 2, 32, "dilation 2"}, {3, 1, 1, 3, "3 channels (cblk 3, NHWC input)"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        pz_conv_params p = {.nsp = 2, .group = 1};
        for (int j = 0; j < 2; j++) {
            p.kernel[j] = r[i].k;
            p.stride[j] = r[i].s;
            p.dilation[j] = r[i].dl;
            p.pad_begin[j] = p.pad_end[j] = 1;
        }
        int64_t x2[4] = {1, r[i].c, xd[2], xd[3]};
        int64_t o = (10 + 2 - r[i].dl * (r[i].k - 1) - 1) / r[i].s + 1;
        int64_t yd[4] = {1, 16, o, o};
        pz_conv16c_desc d;
        char what[96];
        snprintf(what, sizeof what, "pz_winograd_ok refuses %s", r[i].what);
        check(pz_conv16c_init(&d, &p, x2, yd) == 0 && !pz_winograd_ok(&d), what);
    }
}

/* The AUTO rule (pz_winograd_pays) on the layers it was measured on in the
 * nets (winograd.h lists the times): a change of the cost model that flips
 * one of them needs those measurements again. */
static void check_rule(void)
{
    static const struct {
        int64_t c, m, hw;
        int wino;
        const char *what;
    } r[] = {
        {64, 64, 224, 1, "VGG-16 conv1_2"},
        {128, 256, 56, 1, "VGG-16 conv3_1"},
        {256, 256, 56, 1, "VGG-16 conv3_2"},
        {256, 512, 28, 1, "VGG-16 conv4_1 (9.3-9.4 direct, 4.0-4.1 ms Winograd)"},
        {512, 512, 28, 1, "VGG-16 conv4_2 (18.4-18.9 direct, 7.7-8.0 ms Winograd)"},
        {512, 512, 14, 1, "VGG-16 conv5 (4.5-4.6 direct, 4.3-4.4 ms Winograd)"},
        {64, 64, 56, 1, "ResNet-18 layer1"},
        {128, 128, 28, 1, "ResNet-18 layer2"},
        {256, 256, 14, 1, "ResNet-18 layer3 (1.08-1.11 direct, 0.92-1.03 ms Winograd)"},
        {512, 512, 7, 0, "ResNet-18 layer4 (4 tiles)"},
        {192, 384, 13, 0, "AlexNet 192->384 @13 (1.04 direct, 1.05-1.10 Winograd)"},
        {384, 256, 13, 0, "AlexNet 384->256 @13 (1.37 direct, 1.97 Winograd)"},
        {256, 256, 13, 0, "AlexNet 256->256 @13 (0.95-1.01 direct, 1.20 Winograd)"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char what[128];
        snprintf(what, sizeof what, "the rule takes %s for %s", r[i].wino ? "Winograd" : "direct",
                 r[i].what);
        check(pz_winograd_pays(r[i].c, r[i].m, r[i].hw, r[i].hw) == r[i].wino, what);
    }
    check(!pz_winograd_pays(0, 16, 8, 8) && !pz_winograd_pays(16, 16, 0, 8),
          "the rule takes direct for an empty conv");
}

int main(void)
{
    have_avx512 = cpu_has_avx512();
    if (!have_avx512) printf("rt_winograd: no AVX-512 here: the scalar kernel only\n");
    check_refusals();
    check_rule();

    static const int64_t CH[][2] = {{16, 16}, {5, 3}, {17, 20}, {32, 32}, {33, 48}, {64, 64}};
    static const int64_t HW[][2] = {{1, 1}, {2, 3}, {4, 4}, {5, 7}, {6, 6}, {8, 9}, {13, 14}, {17, 30}};
    int k = 0;
    for (size_t ci = 0; ci < sizeof CH / sizeof CH[0]; ci++)
        for (size_t hi = 0; hi < sizeof HW / sizeof HW[0]; hi++)
            for (int pads = 0; pads < 16; pads += 5) {   /* 4 bits: t l b r; 0, 5, 10, 15 */
                wcase t = {.n = 1, .c = CH[ci][0], .m = CH[ci][1], .h = HW[hi][0], .w = HW[hi][1],
                           .pt = pads & 1, .pl = pads >> 1 & 1, .pb = pads >> 2 & 1, .pr = pads >> 3 & 1};
                /* rotate the epilogues through the cases */
                t.bias = k % 2 == 0;
                t.residual = k % 3 == 1;
                t.act = (pz_act_kind)(k % 3);   /* none, relu, clip */
                k++;
                run_case(&t);
            }
    /* the epilogue activations that are not a clamp (pz_act16_ps in the
     * output transform): each on a partial last block, with a residual
     * (PRELU: not on Winograd, pz_conv_winograd_applies) */
    for (int a = PZ_ACT_LEAKY_RELU; a < PZ_ACT_PRELU; a++) {
        wcase t = {.n = 1, .c = 17, .m = 20, .h = 9, .w = 11, .pt = 1, .pl = 1, .pb = 1, .pr = 1,
                   .bias = true, .residual = a % 2 == 0, .act = (pz_act_kind)a};
        run_case(&t);
    }
    /* every pad pattern once, at a size with border tiles on all sides */
    for (int pads = 0; pads < 16; pads++) {
        wcase t = {.n = 1, .c = 17, .m = 16, .h = 9, .w = 11, .pt = pads & 1, .pl = pads >> 1 & 1,
                   .pb = pads >> 2 & 1, .pr = pads >> 3 & 1, .bias = true, .act = PZ_ACT_RELU};
        run_case(&t);
    }
    /* pads of 2 (more than the kernel's reach on one side), batch 2, long sums */
    run_case(&(wcase){.n = 1, .c = 16, .m = 16, .h = 5, .w = 6, .pt = 2, .pl = 2, .pb = 2, .pr = 2,
                      .bias = true, .act = PZ_ACT_CLIP});
    run_case(&(wcase){.n = 2, .c = 32, .m = 48, .h = 14, .w = 14, .pt = 1, .pl = 1, .pb = 1, .pr = 1,
                      .bias = true, .residual = true, .act = PZ_ACT_RELU});
    run_case(&(wcase){.n = 1, .c = 512, .m = 32, .h = 7, .w = 7, .pt = 1, .pl = 1, .pb = 1, .pr = 1,
                      .bias = true, .residual = true, .act = PZ_ACT_RELU});
    run_case(&(wcase){.n = 1, .c = 64, .m = 64, .h = 56, .w = 56, .pt = 1, .pl = 1, .pb = 1, .pr = 1,
                      .bias = true, .act = PZ_ACT_RELU});
    /* one panel of 49 tiles that the workers split into nth panels
     * (ResNet-18's layer2; batch 2 with fewer channels) */
    run_case(&(wcase){.n = 1, .c = 128, .m = 128, .h = 28, .w = 28, .pt = 1, .pl = 1, .pb = 1,
                      .pr = 1, .bias = true, .residual = true, .act = PZ_ACT_RELU});
    run_case(&(wcase){.n = 2, .c = 32, .m = 48, .h = 28, .w = 28, .pt = 1, .pl = 1, .pb = 1,
                      .pr = 1, .bias = true, .act = PZ_ACT_CLIP});
    /* the whole-image order (U read again for each of 4 panels): 4 output
     * blocks in 2 groups, so the 3-way split leaves a worker idle; 3 blocks
     * (a last group of one block, 8 lanes of tail), batch 2, residual */
    run_case(&(wcase){.n = 1, .c = 512, .m = 64, .h = 28, .w = 28, .pt = 1, .pl = 1, .pb = 1,
                      .pr = 1, .bias = true, .act = PZ_ACT_RELU});
    run_case(&(wcase){.n = 2, .c = 500, .m = 40, .h = 27, .w = 26, .pt = 1, .pl = 0, .pb = 1,
                      .pr = 1, .residual = true, .act = PZ_ACT_CLIP});

    check(n_whole == 2, "the two whole-image cases run in the whole-image order, no other");
    printf("rt_winograd: worst error against the reference %.2g (bound 1e-4)\n", worst_ref);
    return test_summary("rt_winograd");
}
