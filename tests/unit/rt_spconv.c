/* rt_spconv.c - the block-sparse conv (rt/kernels/conv/spconv16c.h) against
 * the plain reference convolution (pz_f32_conv__ref) on the same weights,
 * with whole 16x16-per-tap weight blocks zeroed (about 60%, and none, and
 * all of one output block), over its three ways of running:
 *   flat (1x1, stride 1, no padding), and wide over phase planes (stride
 *   1: 3x3 pad 1, 3x3 no pad, 5x5 dilated 2, 1x3; strided: 3x3 stride 2
 *   and 3, 1x1 stride 2, 7x7 stride 2 pad 3, 3x3 stride 2 dilated 2, 2x2
 *   stride 2, strides 3x1 and 1x2); rows of several 28-pixel tiles and
 *   images of several spans (256 channels);
 * channels not multiples of 16 (the padded lanes must be written 0), batch
 * 1 and 2, bias, residual, ReLU and Clip with lo > 0.
 * Each case runs the scalar twin and (when the CPU has it) the AVX-512 row
 * kernel, on 1 worker and split over 3 (bitwise equal), on NaN-filled
 * outputs; the AVX-512 kernel gives the scalar twin's bits (one fused
 * multiply-add per tap in the same order). Error against the reference,
 * normalised by max |ref before the activation|: at most 1e-5. Also: the
 * plan's non-zero block count equals the blocks the test left non-zero, and
 * pz_spconv_ok refuses an input with fewer than 16-channel blocks.
 *
 * Prints `rt_spconv: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/spconv16c.h"
#include "rt_test.h"

static bool have_avx512;

typedef struct {
    int64_t n, c, m, h, w;
    int k0, k1, s, pad, dil;
    int sw;            /* the stride along W when not s (0: s) */
    int zero;          /* 0: none, 1: ~60% of blocks, 2: ~60% and all of output block 0 */
    bool bias, residual;
    pz_act_kind act;
} scase;

static void case_str(const scase *t, const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "%s N%lld C%lld M%lld %lldx%lld k%dx%d s%dx%d p%d d%d zero%d%s%s act%d",
             what, (long long)t->n, (long long)t->c, (long long)t->m, (long long)t->h,
             (long long)t->w, t->k0, t->k1, t->s, t->sw ? t->sw : t->s, t->pad, t->dil, t->zero,
             t->bias ? " bias" : "", t->residual ? " residual" : "", (int)t->act);
}

static void run_case(const scase *t)
{
    const int64_t N = t->n, C = t->c, M = t->m, H = t->h, W = t->w;
    const int sw = t->sw ? t->sw : t->s;
    pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {t->k0, t->k1}, .stride = {t->s, sw},
                        .dilation = {t->dil, t->dil}, .pad_begin = {t->pad, t->pad},
                        .pad_end = {t->pad, t->pad}};
    p.act.kind = t->act;
    p.act.lo = 0.25f;
    p.act.hi = 1.5f;
    const int64_t OH = (H + 2 * t->pad - t->dil * (t->k0 - 1) - 1) / t->s + 1;
    const int64_t OW = (W + 2 * t->pad - t->dil * (t->k1 - 1) - 1) / sw + 1;
    const int64_t xd[4] = {N, C, H, W}, yd[4] = {N, M, OH, OW}, ny_plain = N * M * OH * OW;
    const int64_t taps = (int64_t)t->k0 * t->k1, cb = (C + 15) / 16, mb = (M + 15) / 16;
    float *x = new_rand(N * C * H * W), *w = new_rand(M * C * taps);
    /* zero whole blocks (ob, ib, tap): a fixed pseudo-random ~60% */
    int64_t nonzero = 0;
    for (int64_t ob = 0; ob < mb; ob++)
        for (int64_t ib = 0; ib < cb; ib++)
            for (int64_t tp = 0; tp < taps; tp++) {
                uint64_t hsh = (uint64_t)((ob * cb + ib) * taps + tp) * 0x9E3779B97F4A7C15ull;
                bool z = (t->zero >= 1 && (hsh >> 40) % 10 < 6) || (t->zero == 2 && ob == 0);
                if (!z) {
                    nonzero++;
                    continue;
                }
                for (int64_t o = ob * 16; o < ob * 16 + 16 && o < M; o++)
                    for (int64_t i = ib * 16; i < ib * 16 + 16 && i < C; i++) w[(o * C + i) * taps + tp] = 0;
            }
    float *b = t->bias ? new_rand(M) : NULL, *z = t->residual ? new_rand(ny_plain) : NULL;
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, ny_plain, &yref, &yscale);

    char what[256];
    pz_conv16c_desc d;
    int rc = pz_conv16c_init(&d, &p, xd, yd);
    d.cblk = 16;
    case_str(t, "init+ok", what, sizeof what);
    check(rc == 0 && pz_spconv_ok(&d), what);
    if (rc || !pz_spconv_ok(&d)) {
        free(x), free(w), free(b), free(z), free(yref), free(yscale);
        return;
    }
    const int64_t nx = pz_nchwxc_size(N, C, H, W, 16), ny = pz_nchwxc_size(N, M, OH, OW, 16);
    float *x16 = new_nan(nx), *z16 = z ? new_nan(ny) : NULL;
    float *bp = calloc((size_t)pz_pack_bias16_size(M), sizeof(float));
    pz_f32_nchw_to_nchwxc(N, C, H, W, 16, x, x16, 0, 1);
    if (z) pz_f32_nchw_to_nchwxc(N, M, OH, OW, 16, z, z16, 0, 1);
    pz_pack_bias16(M, b, bp);
    float *yref16 = new_nan(ny), *y1 = new_nan(ny), *y3 = new_nan(ny), *ytwin = new_nan(ny);
    pz_f32_nchw_to_nchwxc(N, M, OH, OW, 16, yref, yref16, 0, 1);
    double s = 0;
    for (int64_t k = 0; k < ny_plain; k++)
        if (fabs(yscale[k]) > s) s = fabs(yscale[k]);

    pz_isa isas[2] = {PZ_ISA_SCALAR, PZ_ISA_AVX512};
    for (int i = 0; i < 2; i++) {
        if (i == 1 && !have_avx512) continue;
        pz_spconv_plan plan;
        if (pz_spconv_plan_make(&plan, &d, w, isas[i])) {
            check(0, "plan (out of memory)");
            continue;
        }
        const char *name = i ? "avx512" : "scalar";
        char tag[64];
        snprintf(tag, sizeof tag, "%s plan keeps the non-zero blocks", name);
        case_str(t, tag, what, sizeof what);
        check(plan.nnz == nonzero && plan.nblocks == mb * cb * taps, what);
        int64_t ss = pz_spconv_scratch_size(&plan);
        float *scratch = malloc((size_t)(ss * 3 > 0 ? ss * 3 : 1) * sizeof(float));
        fill_nan(y1, ny);
        fill_nan(y3, ny);
        pz_spconv_run(&plan, plan.d.n, x16, bp, z16, y1, scratch, 0, 1);
        for (int ith = 0; ith < 3; ith++)
            pz_spconv_run(&plan, plan.d.n, x16, bp, z16, y3, scratch + ith * ss, ith, 3);
        double e = 0;
        bool lanes = true;
        for (int64_t k = 0; k < ny; k++) {
            int64_t ch = k / (OH * OW * 16) % mb * 16 + k % 16;
            if (ch >= M) {
                if (y1[k] != 0.0f) lanes = false;
                continue;
            }
            double err = isnan(y1[k]) ? INFINITY : fabs((double)y1[k] - yref16[k]);
            if (err > e) e = err;
        }
        e /= s > 0 ? s : 1;
        snprintf(tag, sizeof tag, "%s vs ref", name);
        case_str(t, tag, what, sizeof what);
        check(e <= 1e-5, what);
        if (e > 1e-5) printf("  error %.3g\n", e);
        snprintf(tag, sizeof tag, "%s padded lanes zero", name);
        case_str(t, tag, what, sizeof what);
        check(lanes, what);
        snprintf(tag, sizeof tag, "%s nth=3 bitwise", name);
        case_str(t, tag, what, sizeof what);
        check(memcmp(y1, y3, (size_t)ny * sizeof *y1) == 0, what);
        if (t->n > 1) {   /* a dynamic region's run: the first N - 1 images, the last untouched */
            fill_nan(y3, ny);
            for (int ith = 0; ith < 3; ith++)
                pz_spconv_run(&plan, t->n - 1, x16, bp, z16, y3, scratch + ith * ss, ith, 3);
            snprintf(tag, sizeof tag, "%s n = N - 1 bitwise, the rest untouched", name);
            case_str(t, tag, what, sizeof what);
            check(first_images_only(y1, y3, ny, t->n), what);
        }
        if (i == 0) {
            memcpy(ytwin, y1, (size_t)ny * sizeof *y1);
        } else {
            case_str(t, "avx512 bitwise the scalar twin", what, sizeof what);
            check(memcmp(y1, ytwin, (size_t)ny * sizeof *y1) == 0, what);
        }
        free(scratch);
        pz_spconv_plan_free(&plan);
    }
    free(x), free(w), free(b), free(z), free(yref), free(yscale);
    free(x16), free(z16), free(bp), free(yref16), free(y1), free(y3), free(ytwin);
}

int main(void)
{
    have_avx512 = cpu_has_avx512();
    if (!have_avx512) printf("rt_spconv: no AVX-512 here: the scalar twin only\n");
    /* an unblocked input (C <= 4 from a graph input) is refused */
    {
        pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {3, 3}, .stride = {1, 1},
                            .dilation = {1, 1}, .pad_begin = {1, 1}, .pad_end = {1, 1}};
        int64_t xd[4] = {1, 3, 8, 8}, yd[4] = {1, 16, 8, 8};
        pz_conv16c_desc d;
        check(pz_conv16c_init(&d, &p, xd, yd) == 0 && !pz_spconv_ok(&d),
              "pz_spconv_ok refuses 3 unblocked input channels");
    }
    static const struct {
        int k0, k1, s, pad, dil;
    } G[] = {{1, 1, 1, 0, 1}, {3, 3, 1, 1, 1}, {3, 3, 1, 0, 1}, {5, 5, 1, 2, 2}, {1, 3, 1, 0, 1},
             {3, 3, 2, 1, 1}, {1, 1, 2, 0, 1}, {7, 7, 2, 3, 1}, {3, 3, 3, 1, 1}, {3, 3, 2, 1, 2},
             {2, 2, 2, 0, 1}};
    static const int64_t CM[][2] = {{16, 16}, {24, 40}, {64, 32}, {5, 17}};
    static const int64_t HW[][2] = {{7, 7}, {9, 13}, {1, 1}, {14, 3}};
    int k = 0;
    for (size_t gi = 0; gi < sizeof G / sizeof G[0]; gi++)
        for (size_t ci = 0; ci < sizeof CM / sizeof CM[0]; ci++)
            for (size_t hi = 0; hi < sizeof HW / sizeof HW[0]; hi++) {
                scase t = {.n = 1 + (k % 5 == 0), .c = CM[ci][0], .m = CM[ci][1],
                           .h = HW[hi][0], .w = HW[hi][1], .k0 = G[gi].k0, .k1 = G[gi].k1,
                           .s = G[gi].s, .pad = G[gi].pad, .dil = G[gi].dil};
                if (t.h + 2 * t.pad < t.dil * (t.k0 - 1) + 1 || t.w + 2 * t.pad < t.dil * (t.k1 - 1) + 1)
                    continue;
                t.zero = k % 3 == 0 ? 1 : k % 3 == 1 ? 2 : (k % 6 == 2 ? 0 : 1);
                t.bias = k % 2 == 0;
                t.residual = k % 3 == 1;
                t.act = (pz_act_kind)(k % 3);
                k++;
                run_case(&t);
            }
    /* unequal strides (planes 3 x 1 and 1 x 2) */
    run_case(&(scase){.n = 1, .c = 32, .m = 16, .h = 13, .w = 11, .k0 = 3, .k1 = 3, .s = 3, .sw = 1,
                      .pad = 1, .dil = 1, .zero = 1, .bias = true, .act = PZ_ACT_RELU});
    run_case(&(scase){.n = 2, .c = 16, .m = 24, .h = 9, .w = 14, .k0 = 1, .k1 = 5, .s = 1, .sw = 2,
                      .pad = 2, .dil = 1, .zero = 1, .residual = true});
    /* rows of more than one tile (28 pixels) and images of several spans
     * (SPCONV_SPAN_BYTES): a ResNet-50 stride-2 3x3 at 28 -> 14 and a 1x1 at
     * 24x24, 256 input channels, each in two spans */
    run_case(&(scase){.n = 1, .c = 256, .m = 128, .h = 28, .w = 28, .k0 = 3, .k1 = 3, .s = 2,
                      .pad = 1, .dil = 1, .zero = 1, .bias = true, .act = PZ_ACT_RELU});
    run_case(&(scase){.n = 1, .c = 256, .m = 256, .h = 24, .w = 24, .k0 = 1, .k1 = 1, .s = 1,
                      .pad = 0, .dil = 1, .zero = 1, .residual = true, .act = PZ_ACT_RELU});
    run_case(&(scase){.n = 1, .c = 32, .m = 40, .h = 20, .w = 40, .k0 = 3, .k1 = 3, .s = 1,
                      .pad = 1, .dil = 1, .zero = 2, .bias = true, .act = PZ_ACT_CLIP});
    /* ResNet-50 layer4's shapes, narrowed: 3x3 stride 2 to 7x7 (four planes) */
    run_case(&(scase){.n = 1, .c = 64, .m = 48, .h = 14, .w = 14, .k0 = 3, .k1 = 3, .s = 2,
                      .pad = 1, .dil = 1, .zero = 1, .bias = true, .act = PZ_ACT_RELU});
    /* a ResNet-50 layer4 3x3 (7x7 output, wide) */
    run_case(&(scase){.n = 1, .c = 64, .m = 48, .h = 7, .w = 7, .k0 = 3, .k1 = 3, .s = 1,
                      .pad = 1, .dil = 1, .zero = 1, .bias = true, .act = PZ_ACT_RELU});
    return test_summary("rt_spconv");
}
