/* rt_fast.c - the fast kernels (rt/kernels/fast.h) against their scalar twins
 * and the twins against the plain-layout reference kernels, over edge sizes:
 * odd channel counts (3, 15, 16, 17, 33; last output blocks with 8 and 12
 * valid lanes), widths below, equal to and above the register tiles, padding
 * 0..3 on each side independently, strides 1 to 3, dilation, with and without bias, residual and activation (a Clip whose
 * lower bound is above zero checks that padded lanes stay zero).
 *
 * Each case runs the AVX-512, the AVX2 and the scalar kernel explicitly (the
 * SIMD ones when this CPU has them and the build is not PZ_SCALAR), once with
 * one worker and once split over 3 (the results must be bitwise equal), on an
 * output buffer filled with NaN (an element left unwritten shows). Errors are
 * normalised: max |a - b| / max |ref| <= 1e-5.
 *
 * Prints `rt_fast: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmmintrin.h>

#include "rt/kernels/fast.h"
#include "rt/net.h"

#include "rt_test.h"

/* check, frand, new_rand, new_nan, nerr: rt_test.h (rt_fast seeds rng in main) */

/* ---- kernels under test --------------------------------------------------- */

typedef struct {
    const char *name;
    pz_isa isa;
} isa_case;

static isa_case ISAS[3];
static int n_isas;

static void isas_init(void)
{
    ISAS[n_isas++] = (isa_case){"scalar", PZ_ISA_REF};
#ifndef PZ_SCALAR
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        ISAS[n_isas++] = (isa_case){"avx2", PZ_ISA_AVX2};
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        ISAS[n_isas++] = (isa_case){"avx512", PZ_ISA_AVX512};
#endif
}

/* ---- conv and depthwise ------------------------------------------------------ */

typedef struct {
    int64_t c, m, h, w;
    int k[2], s[2], d[2], pb[2], pe[2];
    bool depthwise, bias, residual;
    pz_act_kind act;
} conv_case;

static int64_t out_size(int64_t in, int k, int s, int d, int pb, int pe)
{
    int64_t span = in + pb + pe - (int64_t)d * (k - 1) - 1;
    return span < 0 ? 0 : span / s + 1;
}

static void conv_case_str(const conv_case *t, const char *isa, int nth, char *buf, size_t n)
{
    snprintf(buf, n,
             "%s %s C%lld M%lld %lldx%lld k%dx%d s%d,%d d%d,%d pads t%d l%d b%d r%d%s%s act%d nth%d",
             t->depthwise ? "dwconv" : "conv", isa, (long long)t->c, (long long)t->m,
             (long long)t->h, (long long)t->w, t->k[0], t->k[1], t->s[0], t->s[1], t->d[0],
             t->d[1], t->pb[0], t->pb[1], t->pe[0], t->pe[1], t->bias ? " bias" : "",
             t->residual ? " residual" : "", (int)t->act, nth);
}

/* The lanes of y (NCHW16c, m channels) past channel m are all zero. */
static bool pad_lanes_zero(const float *y, int64_t ny, int64_t m, int64_t oh, int64_t ow)
{
    for (int64_t e = 0; e < ny; e++) {
        int64_t ch = e / (oh * ow * 16) % ((m + 15) / 16) * 16 + e % 16;
        if (ch >= m && y[e] != 0.0f) return false;
    }
    return true;
}

static void run_conv_case(const conv_case *t)
{
    const int64_t N = 1;
    int64_t oh = out_size(t->h, t->k[0], t->s[0], t->d[0], t->pb[0], t->pe[0]);
    int64_t ow = out_size(t->w, t->k[1], t->s[1], t->d[1], t->pb[1], t->pe[1]);
    if (oh < 1 || ow < 1) return;
    pz_conv_params p = {.nsp = 2, .group = t->depthwise ? t->c : 1};
    for (int j = 0; j < 2; j++) {
        p.kernel[j] = t->k[j];
        p.stride[j] = t->s[j];
        p.dilation[j] = t->d[j];
        p.pad_begin[j] = t->pb[j];
        p.pad_end[j] = t->pe[j];
    }
    p.act.kind = t->act;
    p.act.lo = 0.25f;   /* CLIP: lo > 0, padded lanes must still be zero */
    p.act.hi = 1.5f;
    /* PRELU: a slope per output channel, negative ones too (read below m only) */
    float *slope = t->act == PZ_ACT_PRELU ? new_rand(t->m) : NULL;
    p.act.slope = slope;
    const int64_t xd[4] = {N, t->c, t->h, t->w}, yd[4] = {N, t->m, oh, ow};
    const int64_t cg = t->depthwise ? 1 : t->c;

    float *x = new_rand(N * t->c * t->h * t->w);
    float *w = new_rand(t->m * cg * t->k[0] * t->k[1]);
    float *b = t->bias ? new_rand(t->m) : NULL;
    float *z = t->residual ? new_rand(N * t->m * oh * ow) : NULL;
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, N * t->m * oh * ow, &yref, &yscale);
    /* the blocked scale: |pre-activation| per element of y16 */
    int64_t nys = pz_nchwxc_size(N, t->m, oh, ow, 16);
    float *yscale16 = new_nan(nys);
    pz_f32_nchw_to_nchwxc(N, t->m, oh, ow, 16, yscale, yscale16, 0, 1);

    pz_conv16c_desc d;
    int rc = t->depthwise ? pz_dwconv16c_init(&d, &p, xd, yd) : pz_conv16c_init(&d, &p, xd, yd);
    char what[256];
    conv_case_str(t, "init", 1, what, sizeof what);
    check(rc == 0, what);
    if (rc) goto out;

    /* blocked input, residual; packed weights and bias */
    int64_t nx = pz_nchwxc_size(N, t->c, t->h, t->w, d.cblk);
    int64_t ny = pz_nchwxc_size(N, t->m, oh, ow, 16);
    float *x16 = new_nan(nx), *z16 = z ? new_nan(ny) : NULL, *bp = NULL;
    pz_f32_nchw_to_nchwxc(N, t->c, t->h, t->w, d.cblk, x, x16, 0, 1);
    if (z) pz_f32_nchw_to_nchwxc(N, t->m, oh, ow, 16, z, z16, 0, 1);
    int64_t nw = t->depthwise ? pz_dw16c_weights_size(t->c) : pz_conv16c_weights_size(&d);
    float *wp = new_nan(nw);
    if (t->depthwise) pz_dw16c_pack_weights(t->c, w, wp);
    else pz_conv16c_pack_weights(&d, w, wp);
    if (b) {
        bp = new_nan(pz_pack_bias16_size(t->m));
        pz_pack_bias16(t->m, b, bp);
    }

    float *ytwin = new_nan(ny), *y = new_nan(ny), *y3 = new_nan(ny), *yplain = new_nan(N * t->m * oh * ow);
    float *yk = new_nan(ny);
    for (int i = 0; i < n_isas; i++) {
        const pz_fast_kernels *k = pz_fast_kernels_for(ISAS[i].isa);
        pz_conv16c_fn fn = t->depthwise ? k->dwconv3x3 : k->conv2d;
        for (int64_t e = 0; e < ny; e++) y[e] = y3[e] = NAN;
        fn(&d, x16, wp, bp, z16, y, 0, 1);
        for (int ith = 0; ith < 3; ith++) fn(&d, x16, wp, bp, z16, y3, ith, 3);
        if (ISAS[i].isa == PZ_ISA_REF) {
            /* the twin against the plain reference, through the layouts */
            memcpy(ytwin, y, (size_t)ny * sizeof *y);
            pz_f32_nchwxc_to_nchw(N, t->m, oh, ow, 16, y, yplain, 0, 1);
            conv_case_str(t, "scalar-vs-ref", 1, what, sizeof what);
            check(nerr(yplain, yref, yscale, N * t->m * oh * ow) <= 1e-5, what);
        } else {
            conv_case_str(t, ISAS[i].name, 1, what, sizeof what);
            check(nerr(y, ytwin, yscale16, ny) <= 1e-5, what);
        }
        /* the padded lanes are zero, the split gives the same bits */
        conv_case_str(t, ISAS[i].name, 3, what, sizeof what);
        check(pad_lanes_zero(y, ny, t->m, oh, ow) && memcmp(y, y3, (size_t)ny * sizeof *y) == 0, what);
        if (!t->depthwise && ISAS[i].isa != PZ_ISA_REF) {
            /* the k-chunked order (conv16c_plan.c, plan_chunks) on every shape,
             * whatever its weights: chunks of 1 and 2 input blocks against
             * the twin, their padded lanes zero, and on 3 workers the bits
             * of 1 */
            for (int64_t kc = 1; kc <= 2; kc++) {
                pz_conv16c_desc dk = d;
                dk.kc = kc;
                for (int64_t e = 0; e < ny; e++) yk[e] = y3[e] = NAN;
                fn(&dk, x16, wp, bp, z16, yk, 0, 1);
                for (int ith = 0; ith < 3; ith++) fn(&dk, x16, wp, bp, z16, y3, ith, 3);
                conv_case_str(t, ISAS[i].name, 1, what, sizeof what);
                snprintf(what + strlen(what), sizeof what - strlen(what), " kc%lld", (long long)kc);
                check(pad_lanes_zero(yk, ny, t->m, oh, ow) && nerr(yk, ytwin, yscale16, ny) <= 1e-5, what);
                snprintf(what + strlen(what), sizeof what - strlen(what), " nth3");
                check(memcmp(yk, y3, (size_t)ny * sizeof *y) == 0, what);
            }
        }
        if (t->depthwise || oh < 2) continue;
        /* row windows (a fused F-Block, rt/fuse.c): [0, cut) then [cut, OH)
         * on 2 workers give the rows of the whole-layer call, bitwise.
         * Outputs at most 7 wide cut at an even row (rt/ops/conv.c's
         * conv_rows: their tiles span pairs of rows). */
        int64_t cut = oh / 2;
        if (ow <= 7) cut = cut / 2 * 2;
        if (cut == 0) cut = oh;
        for (int64_t e = 0; e < ny; e++) y3[e] = NAN;
        for (int win = 0; win < 2; win++) {
            pz_conv16c_desc dw = d;
            dw.r0 = win ? cut : 0;
            dw.r1 = win ? oh : cut;
            if (dw.r1 <= dw.r0) continue;
            for (int ith = 0; ith < 2; ith++) fn(&dw, x16, wp, bp, z16, y3, ith, 2);
        }
        snprintf(what + strlen(what), sizeof what - strlen(what), " rows [0,%lld) [%lld,%lld)",
                 (long long)cut, (long long)cut, (long long)oh);
        check(memcmp(y, y3, (size_t)ny * sizeof *y) == 0, what);
    }
    free(x16); free(z16); free(wp); free(bp); free(ytwin); free(y); free(y3); free(yplain); free(yk);
out:
    free(x); free(w); free(b); free(z); free(yref); free(yscale); free(yscale16); free(slope);
}

static void test_conv(void)
{
    static const int64_t CH[] = {3, 15, 16, 17, 33};
    int pat = 0;   /* cycles the pads through 0..3 on each side */
    /* kernel, stride, dilation configurations */
    static const struct { int kh, kw, sh, sw, dh, dw; } K[] = {
        {3, 3, 1, 1, 1, 1}, {3, 3, 2, 2, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 2, 2, 1, 1},
        {7, 7, 2, 2, 1, 1}, {5, 3, 1, 2, 1, 1}, {3, 3, 1, 1, 2, 2}, {1, 3, 3, 1, 1, 1},
    };
    static const int64_t WS[] = {1, 5, 6, 7, 9, 13, 14, 15, 29, 31};
    for (size_t ki = 0; ki < sizeof K / sizeof K[0]; ki++)
        for (size_t ci = 0; ci < 5; ci++)
            for (size_t mi = 0; mi < 5; mi++) {
                if ((ci + mi + ki) % 2) continue;   /* half the channel pairs per kernel */
                for (size_t wi = 0; wi < sizeof WS / sizeof WS[0]; wi++) {
                    conv_case t = {
                        .c = CH[ci], .m = CH[mi], .h = 3 + (int64_t)(wi * 3 + ci) % 9, .w = WS[wi],
                        .k = {K[ki].kh, K[ki].kw}, .s = {K[ki].sh, K[ki].sw},
                        .d = {K[ki].dh, K[ki].dw},
                        .pb = {pat % 4, (pat / 4) % 4}, .pe = {(pat / 16) % 4, (pat / 2 + 1) % 4},
                        .bias = pat % 3 != 0, .residual = pat % 5 == 1,
                        .act = (pz_act_kind)(pat % 3),
                    };
                    if (K[ki].kh == 1 && K[ki].kw == 1 && pat % 2) t.pb[0] = t.pb[1] = t.pe[0] = t.pe[1] = 0;
                    pat++;
                    run_conv_case(&t);
                }
            }
    /* network-sized layers: several interior tiles per row, many output blocks */
    conv_case big[] = {
        {.c = 64, .m = 64, .h = 20, .w = 56, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
         .pb = {1, 1}, .pe = {1, 1}, .bias = true, .residual = true, .act = PZ_ACT_RELU},
        {.c = 32, .m = 72, .h = 16, .w = 28, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
         .pb = {1, 1}, .pe = {1, 1}, .bias = true, .act = PZ_ACT_RELU},
        {.c = 96, .m = 40, .h = 7, .w = 7, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .act = PZ_ACT_CLIP},
        {.c = 3, .m = 64, .h = 30, .w = 40, .k = {7, 7}, .s = {2, 2}, .d = {1, 1},
         .pb = {3, 3}, .pe = {3, 3}, .bias = true, .act = PZ_ACT_RELU},
        {.c = 3, .m = 32, .h = 17, .w = 33, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
         .pb = {0, 1}, .pe = {1, 0}, .bias = true, .act = PZ_ACT_CLIP},
        {.c = 48, .m = 80, .h = 7, .w = 7, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
         .pb = {1, 1}, .pe = {1, 1}, .residual = true},
        /* weights over 1 MB (conv16c_drive.c prefetches the next output group's
         * weights): two-row tiles (7 wide) with a last group of one block,
         * one-row tiles with stride 2, and a flat 1x1 with a tail block
         * under a clip that moves 0 */
        {.c = 256, .m = 144, .h = 7, .w = 7, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
         .pb = {1, 1}, .pe = {1, 1}, .bias = true, .residual = true, .act = PZ_ACT_RELU},
        {.c = 512, .m = 80, .h = 9, .w = 21, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
         .pb = {1, 1}, .pe = {1, 1}, .bias = true, .act = PZ_ACT_RELU},
        {.c = 600, .m = 520, .h = 5, .w = 6, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .act = PZ_ACT_CLIP},
        /* flat 1x1 convs whose image outweighs their weights: every output
         * group over each worker's pixels in turn (conv16c_drive.c, pixel_major);
         * 126 pixels (the old chunk), 127, several hundred, a last input
         * block of 8 channels, a last group of one block, a tail block */
        {.c = 16, .m = 64, .h = 9, .w = 14, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .act = PZ_ACT_CLIP},
        {.c = 16, .m = 64, .h = 1, .w = 127, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .residual = true},
        {.c = 16, .m = 96, .h = 20, .w = 17, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .act = PZ_ACT_CLIP},
        {.c = 24, .m = 40, .h = 13, .w = 23, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .residual = true, .act = PZ_ACT_RELU},
        {.c = 17, .m = 80, .h = 12, .w = 11, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .act = PZ_ACT_CLIP},
        {.c = 32, .m = 24, .h = 16, .w = 16, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .residual = true},
        /* images of several spans of 128 KB of input (PZ_CONV16C_SPAN_BYTES:
         * 2048 pixels of one input block, 1024 of two), with 6 output
         * blocks (at least 2 groups whatever the tile: pixel-major): 2162
         * pixels of 16 channels (2 spans; on 3 workers 721 pixels, 1 span
         * each), 3075 of 24 to 88 channels, the last block half (4 spans; on
         * 3 workers 1025 pixels, 2 spans each) */
        {.c = 16, .m = 96, .h = 46, .w = 47, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .act = PZ_ACT_CLIP},
        {.c = 24, .m = 88, .h = 41, .w = 75, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .residual = true, .act = PZ_ACT_RELU},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) run_conv_case(&big[i]);
    /* the epilogue activations that are not a clamp (conv16c_drive.c's
     * conv_row, dwconv16c.c's units_act, act16c*.c): a 3x3 (residual for
     * every other kind), a strided 3x3, a flat 1x1 and its k-chunked order,
     * two depthwise 3x3, each with a part-full last block (sigmoid(0) and
     * HardSigmoid(0) are not 0: the padded lanes must still be); PRELU's
     * slopes per channel across the blocks */
    for (int a = PZ_ACT_LEAKY_RELU; a < PZ_ACT_COUNT_; a++) {
        const pz_act_kind k = (pz_act_kind)a;
        conv_case ac[] = {
            {.c = 24, .m = 40, .h = 9, .w = 11, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
             .pb = {1, 1}, .pe = {1, 1}, .bias = true, .residual = a % 2 == 0, .act = k},
            {.c = 16, .m = 20, .h = 8, .w = 13, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
             .pb = {1, 1}, .pe = {1, 1}, .bias = true, .act = k},
            {.c = 40, .m = 24, .h = 6, .w = 9, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
             .bias = true, .act = k},
            {.c = 40, .m = 40, .h = 10, .w = 12, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
             .pb = {1, 1}, .pe = {1, 1}, .depthwise = true, .bias = true, .act = k},
            {.c = 24, .m = 24, .h = 9, .w = 9, .k = {3, 3}, .s = {2, 2}, .d = {1, 1},
             .pb = {1, 1}, .pe = {1, 1}, .depthwise = true, .bias = true, .residual = true, .act = k},
        };
        for (size_t i = 0; i < sizeof ac / sizeof ac[0]; i++) run_conv_case(&ac[i]);
    }
}

/* Output channels that leave the last block of 16 part full: 8 (the only
 * block is half), 24 and 40 (a half last block after full ones: MobileNetV2's
 * 24-channel projects), 20 (12 valid lanes), with 1x1 and 3x3 kernels,
 * widths below, equal to and above the register tiles (7, 14: two-row and
 * one-row tiles) and one flat 1x1 over several hundred pixels, padding on every
 * side, with and without bias, residual and a clip (lo > 0: the padded
 * lanes must be masked back to zero). */
static void test_conv_tail_blocks(void)
{
    static const int64_t MS[] = {8, 24, 20, 40};
    static const int64_t WS[] = {3, 7, 13, 14, 15, 29};
    static const struct { int k, s; } K[] = {{1, 1}, {3, 1}, {3, 2}};
    int pat = 0;
    for (size_t ki = 0; ki < sizeof K / sizeof K[0]; ki++)
        for (size_t mi = 0; mi < sizeof MS / sizeof MS[0]; mi++)
            for (size_t wi = 0; wi < sizeof WS / sizeof WS[0]; wi++) {
                const int k = K[ki].k;
                conv_case t = {
                    .c = pat % 2 ? 24 : 19, .m = MS[mi], .h = 2 + (int64_t)(wi + mi) % 6,
                    .w = WS[wi], .k = {k, k}, .s = {K[ki].s, K[ki].s}, .d = {1, 1},
                    .bias = pat % 3 != 2, .residual = pat % 2 == 0,
                    .act = pat % 4 == 3 ? PZ_ACT_NONE : PZ_ACT_CLIP,
                };
                /* 3x3: padding 0..2 on each side in turn; 1x1: none (the
                 * flat path) or one side */
                if (k == 3) {
                    t.pb[0] = pat % 3;
                    t.pb[1] = (pat + 1) % 3;
                    t.pe[0] = (pat / 3) % 3;
                    t.pe[1] = (pat / 2 + 2) % 3;
                } else if (pat % 3 == 1) {
                    t.pb[pat % 2] = 1;
                    t.pe[(pat + 1) % 2] = 1;
                }
                pat++;
                run_conv_case(&t);
            }
    /* flat 1x1 over several hundred pixels, and MobileNetV2's shapes */
    conv_case big[] = {
        {.c = 96, .m = 24, .h = 19, .w = 21, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true},
        {.c = 144, .m = 24, .h = 14, .w = 28, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .residual = true},
        {.c = 32, .m = 8, .h = 17, .w = 16, .k = {1, 1}, .s = {1, 1}, .d = {1, 1},
         .bias = true, .residual = true, .act = PZ_ACT_CLIP},
        {.c = 40, .m = 40, .h = 15, .w = 30, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
         .pb = {1, 1}, .pe = {1, 1}, .residual = true, .act = PZ_ACT_CLIP},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) run_conv_case(&big[i]);
}

/* 3x3 pad 1 convs whose output row is one register tile: conv16c_drive.c's
 * border tiles (every tap in one call, the first and last pixels skipping
 * the taps in the padding), stride 1 at widths 7 (two-row tiles), 13 and
 * 14, stride 2 from even widths to 7 and 14; heights whose pairs of rows
 * see different kernel rows (2, 3, 7, 8) or one row (1); a last output
 * group of one block (m = 17, 40), a half block (24), input channels past a
 * block (33). Odd widths at stride 2 and one-sided pads take the passes.
 * Rows wider than a tile: their first and last tiles (stride 1 and 2, and
 * the 3-channel stem's input blocks). */
static void test_conv_border(void)
{
    static const struct { int64_t w; int s, pl, pr; } G[] = {
        {7, 1, 1, 1}, {13, 1, 1, 1}, {14, 1, 1, 1}, {14, 2, 1, 1}, {28, 2, 1, 1},
        {13, 2, 1, 1}, {7, 1, 0, 1}, {7, 1, 1, 0}, {6, 1, 1, 1},
        /* wider rows: the first and last tiles as border tiles (plan_edges) */
        {28, 1, 1, 1}, {29, 1, 1, 1}, {43, 1, 1, 0}, {56, 2, 1, 1}, {57, 2, 1, 1},
        /* rows two tiles wide or a little less, cut in two border segments
         * (plan_rows): AVX2's 6-pixel tiles at 10 to 12 (stride 1 and 2),
         * AVX-512's 14 at 28 (above) */
        {10, 1, 1, 1}, {11, 1, 1, 1}, {12, 1, 1, 1}, {24, 2, 1, 1},
    };
    static const int64_t HS[] = {1, 2, 3, 7, 8};
    static const int64_t MS[] = {16, 17, 24, 40, 64};
    int pat = 0;
    for (size_t gi = 0; gi < sizeof G / sizeof G[0]; gi++)
        for (size_t hi = 0; hi < sizeof HS / sizeof HS[0]; hi++)
            for (size_t mi = 0; mi < sizeof MS / sizeof MS[0]; mi++) {
                if ((gi + hi + mi) % 2) continue;
                const int s = G[gi].s;
                conv_case t = {
                    .c = pat % 3 == 0 ? 33 : 16, .m = MS[mi], .h = HS[hi] * s, .w = G[gi].w,
                    .k = {3, 3}, .s = {s, s}, .d = {1, 1}, .pb = {1, G[gi].pl},
                    .pe = {1, G[gi].pr}, .bias = pat % 3 != 1, .residual = pat % 2 == 0,
                    .act = (pz_act_kind)(pat % 3),
                };
                pat++;
                run_conv_case(&t);
                /* the 3-channel stem (input blocks of 3 channels, NHWC) */
                if (G[gi].s == 2 && G[gi].w >= 28) {
                    t.c = 3;
                    t.w = 2 * G[gi].w + (pat % 2);
                    run_conv_case(&t);
                }
            }
}

static void test_dwconv(void)
{
    static const int64_t CH[] = {3, 15, 16, 17, 33};
    static const int64_t WS[] = {1, 2, 3, 7, 8, 9, 16, 17, 30};
    int pat = 0;
    for (int s = 1; s <= 3; s++)
        for (size_t ci = 0; ci < 5; ci++)
            for (size_t wi = 0; wi < sizeof WS / sizeof WS[0]; wi++) {
                conv_case t = {
                    .c = CH[ci], .m = CH[ci], .h = 2 + (int64_t)(wi + ci) % 7, .w = WS[wi],
                    .k = {3, 3}, .s = {s, s}, .d = {1, 1},
                    .pb = {pat % 4, (pat / 4) % 4}, .pe = {(pat / 16) % 4, (pat / 2 + 1) % 4},
                    .depthwise = true, .bias = pat % 3 != 1, .residual = pat % 4 == 2,
                    .act = (pz_act_kind)(pat % 3),
                };
                pat += 3;
                run_conv_case(&t);
            }
    conv_case big = {.c = 144, .m = 144, .h = 20, .w = 56, .k = {3, 3}, .s = {1, 1},
                     .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .depthwise = true,
                     .bias = true, .act = PZ_ACT_CLIP};
    run_conv_case(&big);
    big.s[0] = big.s[1] = 2;
    big.pb[0] = big.pb[1] = 0;
    run_conv_case(&big);
}

/* pz_dwconv3x3_drive: by rows, the workers' shares cover every unit (n,
 * block, oh) once, and each share is the rows of pz_split over the
 * row-major order (n, oh, block); by whole blocks, pz_split over the
 * kernel's order. A units function that records what it was given stands
 * for an ISA's kernel. */
static int dw_hits[3 * 36 * 56];
static void dw_record(const pz_conv16c_desc *d, const float *x, const float *w, const float *b,
                      const float *z, float *y, int64_t lo, int64_t hi)
{
    for (int64_t u = lo; u < hi; u++) dw_hits[u]++;
}

static void test_dw_share(void)
{
    static const int64_t NS[] = {1, 2, 3}, CBS[] = {1, 2, 5, 36}, OHS[] = {1, 3, 7, 14, 56};
    for (int whole = 0; whole < 2; whole++)
        for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 4; b++)
                for (size_t c = 0; c < 5; c++)
                    for (int nth = 1; nth <= 5; nth++) {
                        int64_t n = NS[a], cb = CBS[b], oh = OHS[c], all = n * cb * oh;
                        pz_conv16c_desc d = {.n = n, .c = cb * 16, .m = cb * 16, .oh = oh};
                        memset(dw_hits, 0, sizeof dw_hits);
                        int rows_ok = 1;
                        for (int ith = 0; ith < nth; ith++) {
                            int64_t lo, hi;
                            pz_split(all, ith, nth, &lo, &hi);
                            static int before[3 * 36 * 56];
                            memcpy(before, dw_hits, sizeof before);
                            pz_dwconv3x3_drive(&d, dw_record, NULL, whole, NULL, NULL, NULL, NULL, NULL,
                                               ith, nth);
                            for (int64_t u = 0; u < all; u++) {
                                if (dw_hits[u] == before[u]) continue;
                                int64_t r = u % oh, bc = u / oh % cb, ni = u / (oh * cb);
                                /* by rows (nth > 1): row-major; else the kernel's order */
                                int64_t at = whole || nth == 1 ? u : (ni * oh + r) * cb + bc;
                                rows_ok &= at >= lo && at < hi;
                            }
                        }
                        int once = 1;
                        for (int64_t u = 0; u < all; u++) once &= dw_hits[u] == 1;
                        char what[96];
                        snprintf(what, sizeof what, "dw %s n%lld cb%lld oh%lld nth%d",
                                 whole ? "blocks" : "rows", (long long)n, (long long)cb,
                                 (long long)oh, nth);
                        check(once && rows_ok, what);
                    }
}

/* ---- GEMM / GEMV ---------------------------------------------------------- */

static void run_gemm_case(int64_t M, int64_t N, int64_t K, int trans_b, int cmode, float alpha,
                          pz_act_kind act)
{
    float *a = new_rand(M * K), *b = new_rand(K * N), *c = new_rand(M * N), *slope = new_rand(N);
    /* cmode: 0 none, 1 row vector (bias), 2 column, 3 full matrix, 4 scalar */
    static const char *CM[] = {"none", "row", "col", "full", "scalar"};
    int64_t csm = cmode == 2 ? 1 : cmode == 3 ? N : 0, csn = cmode == 1 || cmode == 3 ? 1 : 0;
    pz_gemm_params gp = {.trans_b = trans_b, .alpha = alpha, .beta = 0.75f,
                         .act = {.kind = act, .lo = -0.5f, .hi = 0.5f, .slope = slope}};
    float *yref = new_nan(M * N), *yscale = new_nan(M * N);
    pz_f32_gemm__ref(&gp, M, N, K, a, b, cmode ? c : NULL, csm, csn, yref, 0, 1);
    pz_gemm_params gn = gp;
    gn.act.kind = PZ_ACT_NONE;
    pz_f32_gemm__ref(&gn, M, N, K, a, b, cmode ? c : NULL, csm, csn, yscale, 0, 1);

    float *bp = new_nan(pz_gemm_packed_b_size(K, N));
    pz_gemm_pack_b(K, N, b, trans_b, alpha, bp);
    pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N, .c = cmode ? c : NULL,
                      .csm = csm, .csn = csn, .beta = 0.75f, .act = gp.act};
    float *y = new_nan(M * N), *y3 = new_nan(M * N);
    char what[200];
    for (int i = 0; i < n_isas; i++) {
        const pz_fast_kernels *k = pz_fast_kernels_for(ISAS[i].isa);
        for (int gv = 0; gv < (M == 1 ? 2 : 1); gv++) {
            pz_gemm_fn fn = gv ? k->gemv : k->gemm;
            for (int64_t e = 0; e < M * N; e++) y[e] = y3[e] = NAN;
            fn(&g, a, bp, y, 0, 1);
            for (int ith = 0; ith < 3; ith++) fn(&g, a, bp, y3, ith, 3);
            snprintf(what, sizeof what, "%s %s M%lld N%lld K%lld transB%d C=%s alpha%g act%d",
                     gv ? "gemv" : "gemm", ISAS[i].name, (long long)M, (long long)N,
                     (long long)K, trans_b, CM[cmode], alpha, (int)act);
            check(nerr(y, yref, yscale, M * N) <= 1e-5, what);
            strcat(what, " nth3");
            check(memcmp(y, y3, (size_t)(M * N) * sizeof *y) == 0, what);
            /* a row of a batch has the bits of the same row alone (GEMV):
             * --batch N gives each image its batch-1 output */
            if (M > 1 && (cmode == 0 || cmode == 1 || cmode == 4)) {
                pz_gemm_desc g1 = g;
                g1.m = 1;
                int same = 1;
                for (int64_t r = 0; r < M; r += M - 1) {
                    for (int64_t e = 0; e < N; e++) y3[e] = NAN;
                    k->gemv(&g1, a + r * K, bp, y3, 0, 1);
                    same &= memcmp(y + r * N, y3, (size_t)N * sizeof *y) == 0;
                }
                strcat(what, ": rows 0 and M-1 bitwise equal to the GEMV of that row");
                check(same, what);
            }
        }
    }
    free(a); free(b); free(c); free(yref); free(yscale); free(bp); free(y); free(y3); free(slope);
}

/* The AVX-512 LayerNorm against the reference: rows below, at and above a
 * ZMM (odd tails), Scale and B per element or broadcast, B absent, Mean and
 * InvStdDev, at 1 and 3 workers (bitwise the same: rows are split). An
 * offset keeps the mean far from 0, where single-pass sums would cancel. */
static void test_layernorm(void)
{
#ifndef PZ_SCALAR
    if (!cpu_has_avx512()) return;
    static const int64_t NN[] = {15, 16, 17, 33, 96, 100, 768};
    char what[160];
    for (size_t t = 0; t < sizeof NN / sizeof NN[0]; t++)
        for (int v = 0; v < 3; v++) {
            const int64_t nn = NN[t], outer = 7, n = outer * nn;
            const int64_t ns = v == 1 ? 1 : nn, nb = v == 2 ? 1 : nn;
            float *x = new_rand(n), *s = new_rand(ns), *b = new_rand(nb);
            for (int64_t i = 0; i < n; i++) x[i] = 50.0f + 3.0f * x[i];
            float *y = new_nan(n), *y3 = new_nan(n), *yr = new_nan(n);
            float mr[7], ir[7], m[7], iv[7];
            const float *bb = v == 1 ? NULL : b;
            float *yt = new_nan(n), mt[7], it[7];
            pz_f32_layernorm__ref(outer, nn, x, s, ns, bb, nb, 1e-5f, yr, mr, ir, 0, 1);
            pz_f32_layernorm__avx512(outer, nn, x, s, ns, bb, nb, 1e-5f, y, m, iv, 0, 1);
            pz_f32_layernorm__scalar(outer, nn, x, s, ns, bb, nb, 1e-5f, yt, mt, it, 0, 1);
            for (int ith = 0; ith < 3; ith++)
                pz_f32_layernorm__avx512(outer, nn, x, s, ns, bb, nb, 1e-5f, y3, NULL, NULL, ith, 3);
            snprintf(what, sizeof what, "layernorm avx512 nn%lld scale%lld b%s", (long long)nn,
                     (long long)ns, bb ? (nb == 1 ? "1" : "n") : "none");
            check(nerr(y, yr, yr, n) <= 1e-5 && nerr(m, mr, mr, outer) <= 1e-6 &&
                  nerr(iv, ir, ir, outer) <= 1e-5, what);
            check(memcmp(y, yt, (size_t)n * sizeof *y) == 0 && memcmp(m, mt, sizeof m) == 0 &&
                      memcmp(iv, it, sizeof iv) == 0,
                  "layernorm scalar twin: the avx512 bits");
            strcat(what, " nth3");
            check(memcmp(y, y3, (size_t)n * sizeof *y) == 0, what);
            free(x); free(s); free(b); free(y); free(y3); free(yr); free(yt);
        }
#endif
}

static void test_gemm(void)
{
    static const int64_t MS[] = {1, 2, 5, 13, 14, 15, 29};
    static const int64_t NS[] = {1, 7, 15, 16, 17, 31, 32, 33, 100};
    static const int64_t KS[] = {1, 7, 255, 256, 257, 600};
    int pat = 0;
    for (size_t mi = 0; mi < sizeof MS / sizeof MS[0]; mi++)
        for (size_t ni = 0; ni < sizeof NS / sizeof NS[0]; ni++)
            for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++) {
                if ((mi + ni + ki) % 3 && MS[mi] != 1) continue;   /* a third of the grid */
                run_gemm_case(MS[mi], NS[ni], KS[ki], pat % 2, pat % 5, pat % 4 ? 1.0f : 0.5f,
                              (pz_act_kind)(pat % 3));
                pat++;
            }
    run_gemm_case(1, 1000, 512, 1, 1, 1.0f, PZ_ACT_NONE);    /* ResNet-18 FC */
    run_gemm_case(64, 300, 700, 0, 3, 1.0f, PZ_ACT_RELU);
    /* 19 panels: AVX2 a block of 16 and one of 3, three K slices at 1
     * thread; at 3 threads each worker's slices are deeper (6 or 7 panels).
     * AVX-512 (blocks of 3, slices of 1024): 7 blocks, one slice at 700,
     * two at 1100 (at 3 threads too) */
    run_gemm_case(20, 600, 700, 1, 1, 1.0f, PZ_ACT_CLIP);
    run_gemm_case(20, 600, 1100, 0, 1, 1.0f, PZ_ACT_GELU);
    /* GELU (MatMul's fused epilogue), a row bias C and beside it none */
    run_gemm_case(30, 50, 300, 0, 1, 1.0f, PZ_ACT_GELU);
    run_gemm_case(1, 70, 90, 0, 0, 1.0f, PZ_ACT_GELU);
    /* the other epilogue activations (pz_act16_ps, pz_act8_ps; PRELU a slope
     * per column, read under the tail's mask): a GEMM and a GEMV */
    for (int a = PZ_ACT_LEAKY_RELU; a < PZ_ACT_COUNT_; a++) {
        run_gemm_case(13, 40 + a, 70, a % 2, 1, 1.0f, (pz_act_kind)a);
        run_gemm_case(1, 33, 50, 0, 0, 1.0f, (pz_act_kind)a);
    }
}

/* The GEMM epilogue's GELU against erf in double, x swept over [-12, 12] by
 * 2^-10 and beyond: a GEMM with K = 1 and B all ones gives Y[m, n] =
 * GELU(A[m]) exactly at its input. Bound (vmath_avx512.h, gelu_erf_ps):
 * 2.5e-7 * max(|x|, 1); NaN stays NaN, +inf stays +inf. The scalar twin
 * is within a few ulps of the same reference: it is not the yardstick. */
static void test_gemm_gelu_bound(void)
{
    static const float XS[] = {-1e30f, -100.0f, -20.0f, -13.5f, 13.5f, 20.0f, 100.0f, 1e30f,
                               INFINITY, NAN, 0.0f, -0.0f, 1e-30f, -1e-30f};
    const int64_t nsw = 24 * 1024 + 1, nx = sizeof XS / sizeof XS[0], M = nsw + nx, N = 17;
    float *a = new_nan(M), *b = new_nan(N), *bp = new_nan(pz_gemm_packed_b_size(1, N));
    float *y = new_nan(M * N);
    for (int64_t m = 0; m < nsw; m++) a[m] = -12.0f + (float)m / 1024.0f;
    for (int64_t m = 0; m < nx; m++) a[nsw + m] = XS[m];
    for (int64_t n = 0; n < N; n++) b[n] = 1.0f;
    pz_gemm_pack_b(1, N, b, 0, 1.0f, bp);
    pz_gemm_desc g = {.m = M, .n = N, .k = 1, .lda = 1, .ldy = N, .act = {.kind = PZ_ACT_GELU}};
    char what[160];
    for (int i = 0; i < n_isas; i++) {
        const pz_fast_kernels *k = pz_fast_kernels_for(ISAS[i].isa);
        k->gemm(&g, a, bp, y, 0, 1);
        double worst = 0, at = 0;
        int ok = 1;
        for (int64_t m = 0; m < M && ok; m++)
            for (int64_t n = 0; n < N; n++) {
                float x = a[m], v = y[m * N + n];
                if (isnan(x) || isinf(x)) {
                    ok &= isnan(x) ? isnan(v) : x < 0 || v == INFINITY;
                    continue;
                }
                double e = fabs((double)v - pz_act_f64(&g.act, (double)x)) /
                           (fabs(x) > 1 ? fabs(x) : 1.0);
                if (!(e <= worst)) worst = e, at = x;
            }
        snprintf(what, sizeof what, "GEMM GELU epilogue %s: worst %.3g * max(|x|, 1) at x = %g",
                 ISAS[i].name, worst, at);
        check(ok && worst <= 2.5e-7, what);
        /* and no denormal on the way over the sweep times 2.5, [-30, 30]
         * (MXCSR's sticky DE and UE flags): each would cost a microcode
         * assist, as an e^t-based GELU's did below x = -13 */
        if (ISAS[i].isa != PZ_ISA_AVX512) continue;
        pz_gemm_desc gs = g;
        gs.m = nsw;
        for (int64_t m = 0; m < nsw; m++) a[m] *= 2.5f;
        _mm_setcsr(_mm_getcsr() & ~0x3fu);
        k->gemm(&gs, a, bp, y, 0, 1);
        unsigned flags = _mm_getcsr() & 0x12u;
        for (int64_t m = 0; m < nsw; m++) a[m] /= 2.5f;
        snprintf(what, sizeof what, "GEMM GELU epilogue avx512: MXCSR flags 0x%x on [-30, 30]",
                 flags);
        check(flags == 0, what);
    }
    free(a); free(b); free(bp); free(y);
}

/* ---- layouts ---------------------------------------------------------------- */

static void test_layout(void)
{
    static const int64_t CH[] = {1, 3, 15, 16, 17, 33};
    for (size_t ci = 0; ci < 6; ci++)
        for (int cblk = 1; cblk <= 16; cblk *= 2) {
            int64_t n = 2, c = CH[ci], h = 3, w = 5;
            int bk = cblk == 1 ? (int)c : cblk;   /* also NHWC (cblk = c) */
            float *x = new_rand(n * c * h * w), *x2 = new_nan(n * c * h * w);
            int64_t nb = pz_nchwxc_size(n, c, h, w, bk);
            float *xb = new_nan(nb);
            for (int ith = 0; ith < 2; ith++) pz_f32_nchw_to_nchwxc(n, c, h, w, bk, x, xb, ith, 2);
            for (int ith = 0; ith < 2; ith++) pz_f32_nchwxc_to_nchw(n, c, h, w, bk, xb, x2, ith, 2);
            bool ok = memcmp(x, x2, (size_t)(n * c * h * w) * sizeof *x) == 0;
            /* element (n, ch, ih, iw) lies at [n][ch/bk][ih][iw][ch%bk]; padding is zero */
            int64_t nblk = (c + bk - 1) / bk;
            for (int64_t e = 0; e < nb; e++) {
                int64_t lane = e % bk, iw = e / bk % w, ih = e / (bk * w) % h;
                int64_t blk = e / (bk * w * h) % nblk, in = e / (bk * w * h * nblk);
                int64_t ch = blk * bk + lane;
                float want = ch < c ? x[((in * c + ch) * h + ih) * w + iw] : 0.0f;
                if (xb[e] != want) ok = false;
            }
            char what[80];
            snprintf(what, sizeof what, "layout C%lld block %d", (long long)c, bk);
            check(ok, what);
            free(x); free(x2); free(xb);
        }
}

/* The NHWC interleave of every ISA (how a net's RGB input is converted for
 * the fast stem) against the index formula, with nothing written past the
 * end; then pz_layout_convert, as a net runs it (two images, three workers),
 * against the generic conversion. */
static void test_interleave(void)
{
    static const int64_t NP[] = {1, 15, 16, 17, 47, 48, 100};
    for (int i = 0; i < n_isas; i++) {
        const pz_fast_kernels *k = pz_fast_kernels_for(ISAS[i].isa);
        for (int nc = 1; nc <= 4; nc++)
            for (size_t pi = 0; pi < sizeof NP / sizeof *NP; pi++) {
                int64_t np = NP[pi], plane = np + 5;
                float *x = new_rand(plane * nc), *y = new_nan(np * nc + 16);
                k->interleave(x, plane, nc, np, y);
                bool ok = true;
                for (int64_t p = 0; p < np; p++)
                    for (int l = 0; l < nc; l++)
                        if (y[p * nc + l] != x[l * plane + p]) ok = false;
                for (int64_t e = np * nc; e < np * nc + 16; e++)
                    if (!isnan(y[e])) ok = false;
                char what[80];
                snprintf(what, sizeof what, "interleave %s: %d channels, %lld pixels", ISAS[i].name,
                         nc, (long long)np);
                check(ok, what);
                free(x); free(y);
            }
        for (int c = 1; c <= 4; c++) {
            const int64_t xd[4] = {2, c, 7, 9}, size = 2 * c * 7 * 9;
            float *x = new_rand(size), *y = new_nan(size), *yref = new_nan(size);
            for (int ith = 0; ith < 3; ith++) pz_layout_convert(ISAS[i].isa, PZ_F32, xd, 0, c, x, y, ith, 3);
            pz_f32_nchw_to_nchwxc(2, c, 7, 9, c, x, yref, 0, 1);
            char what[80];
            snprintf(what, sizeof what, "layout convert %s: NCHW -> NHWC, C%d, 3 workers",
                     ISAS[i].name, c);
            check(memcmp(y, yref, (size_t)size * sizeof *y) == 0, what);
            free(x); free(y); free(yref);
        }
    }
}

int main(void)
{
    rng = 0x9e3779b97f4a7c15ull;   /* the data this test has always drawn */
    isas_init();
    printf("rt_fast: kernels tested:");
    for (int i = 0; i < n_isas; i++) printf(" %s", ISAS[i].name);
    printf("\n");
    test_layout();
    test_interleave();
    test_conv();
    test_conv_tail_blocks();
    test_conv_border();
    test_dwconv();
    test_dw_share();
    test_gemm();
    test_gemm_gelu_bound();
    test_layernorm();
    return test_summary("rt_fast");
}
