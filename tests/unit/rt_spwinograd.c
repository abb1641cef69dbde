/* rt_spwinograd.c - the block-sparse Winograd conv (winograd.h,
 * pz_spwino_plan) against the dense Winograd conv of the same weights:
 *   weights with all-zero 16 x 16 x 9 blocks in patterns: none, all, random
 *     (1/4 and 3/4 of the blocks), a whole output block, a whole input
 *     block, one output block of a pair (the mask-1 and mask-2 entries);
 *   channels 16, 17, 33, 48, 64, 512 in; 16, 20, 48, 64 out (a last group
 *     of one output block, partial blocks), sizes with border tiles, batch
 *     1 and 2, bias, residual, ReLU and Clip;
 *   the panel order and the whole-image order (512 channels at 28x28).
 * Each case runs the scalar twin and (with AVX-512, not PZ_SCALAR) the
 * AVX-512 steps: the sparse result is bitwise the dense one of the same ISA
 * (skipped blocks add exact zeros, the order is kept), 1 worker and 3
 * bitwise, within 1e-4 of the reference conv, the two ISAs within 1e-5;
 * output and scratch start as NaN. The plan's counts equal the pattern's.
 * Also the rule (pz_spwino_pays) on the shapes it decides.
 *
 * Prints `rt_spwinograd: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/winograd.h"
#include "rt_test.h"

static bool have_avx512;

typedef enum { Z_NONE, Z_ALL, Z_QUARTER, Z_THREE_QUARTERS, Z_OUT_BLOCK, Z_IN_BLOCK, Z_ODD } zpat;

typedef struct {
    int64_t n, c, m, h, w;
    int pad;
    bool bias, residual;
    pz_act_kind act;
    zpat z;
} scase;

/* Zeroes W's 16 x 16 x 9 blocks by the pattern; returns the blocks left with a weight. */
static int64_t prune(float *w, int64_t m, int64_t c, zpat z)
{
    const int64_t MB = (m + 15) / 16, CB = (c + 15) / 16;
    int64_t nnz = 0;
    for (int64_t ob = 0; ob < MB; ob++)
        for (int64_t ib = 0; ib < CB; ib++) {
            bool zero = z == Z_ALL || (z == Z_QUARTER && frand() < -0.5f) ||
                        (z == Z_THREE_QUARTERS && frand() < 0.5f) ||
                        (z == Z_OUT_BLOCK && ob == 0) || (z == Z_IN_BLOCK && ib == CB - 1) ||
                        (z == Z_ODD && (ob + ib) % 2 == 1);
            if (!zero) {
                nnz++;
                continue;
            }
            for (int64_t o = ob * 16; o < ob * 16 + 16 && o < m; o++)
                for (int64_t i = ib * 16; i < ib * 16 + 16 && i < c; i++)
                    memset(w + (o * c + i) * 9, 0, 9 * sizeof(float));
        }
    return nnz;
}

static void run_case(const scase *t)
{
    const int64_t N = t->n, oh = t->h + 2 * t->pad - 2, ow = t->w + 2 * t->pad - 2;
    pz_conv_params p = {.nsp = 2, .group = 1};
    for (int j = 0; j < 2; j++) {
        p.kernel[j] = 3;
        p.stride[j] = p.dilation[j] = 1;
        p.pad_begin[j] = p.pad_end[j] = t->pad;
    }
    p.act.kind = t->act;
    p.act.lo = 0.25f;
    p.act.hi = 1.5f;
    const int64_t xd[4] = {N, t->c, t->h, t->w}, yd[4] = {N, t->m, oh, ow};
    const int64_t nplain = N * t->m * oh * ow, ny = pz_nchwxc_size(N, t->m, oh, ow, 16);
    float *x = new_rand(N * t->c * t->h * t->w), *w = new_rand(t->m * t->c * 9);
    float *b = t->bias ? new_rand(t->m) : NULL, *z = t->residual ? new_rand(nplain) : NULL;
    const int64_t nnz = prune(w, t->m, t->c, t->z);
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, nplain, &yref, &yscale);
    char what[256];
    snprintf(what, sizeof what, "N%lld C%lld M%lld %lldx%lld pad %d%s%s act%d zeros %d",
             (long long)N, (long long)t->c, (long long)t->m, (long long)t->h, (long long)t->w,
             t->pad, t->bias ? " bias" : "", t->residual ? " residual" : "", (int)t->act, (int)t->z);
    const size_t wl = strlen(what);
    pz_conv16c_desc d;
    if (pz_conv16c_init(&d, &p, xd, yd) || !pz_winograd_ok(&d)) {
        check(false, what);
        return;
    }
    float *x16, *z16, *bp;
    conv_pack16(N, t->c, t->h, t->w, t->m, oh, ow, x, z, b, &x16, &z16, &bp);
    float *u = new_nan(pz_winograd_weights_size(&d));
    pz_winograd_pack_weights(&d, w, u);
    const int64_t ns1 = pz_winograd_scratch_size(&d, 1), ns3 = pz_winograd_scratch_size(&d, 3);
    float *s = new_nan(ns3 > ns1 ? ns3 : ns1), *yd1 = new_nan(ny), *y1 = new_nan(ny);
    float *y3 = new_nan(ny), *ytwin = new_nan(ny), *ys16 = new_nan(ny), *yplain = new_nan(nplain);
    pz_f32_nchw_to_nchwxc(N, t->m, oh, ow, 16, yscale, ys16, 0, 1);
    static const pz_isa ISAS[2] = {PZ_ISA_SCALAR, PZ_ISA_AVX512};
    for (int i = 0; i < 2; i++) {
#ifdef PZ_SCALAR
        if (i == 1) continue;
#endif
        if (i == 1 && !have_avx512) continue;
        const char *isa = i ? "avx512" : "scalar";
        pz_spwino_plan sp;
        snprintf(what + wl, sizeof what - wl, " %s: plan", isa);
        check(pz_spwino_plan_make(&sp, &d, w, ISAS[i]) == 0 && sp.nnz == nnz &&
                  sp.nblocks == (t->m + 15) / 16 * ((t->c + 15) / 16) &&
                  sp.uoff[sp.ngrp] == nnz * 36 * 256,
              what);
        /* the dense Winograd of the same ISA on the same weights */
        const pz_wino_isa *wi = sp.isa;
        fill_nan(yd1, ny);
        fill_nan(s, ns1);
        pz_winograd_drive(&d, wi, x16, u, bp, z16, yd1, s, 0, 1);
        fill_nan(y1, ny);
        fill_nan(s, ns1);
        pz_spwino_run(&sp, sp.d.n, x16, bp, z16, y1, s, 0, 1);
        snprintf(what + wl, sizeof what - wl, " %s: sparse bitwise dense", isa);
        check(memcmp(y1, yd1, (size_t)ny * sizeof *y1) == 0, what);
        fill_nan(y3, ny);
        fill_nan(s, ns3);
        for (int ith = 0; ith < 3; ith++) pz_spwino_run(&sp, sp.d.n, x16, bp, z16, y3, s, ith, 3);
        snprintf(what + wl, sizeof what - wl, " %s: nth=3 bitwise 1", isa);
        check(memcmp(y1, y3, (size_t)ny * sizeof *y1) == 0, what);
        if (N > 1) {   /* a dynamic region's run: the first N - 1 images, the last untouched */
            fill_nan(y3, ny);
            fill_nan(s, ns3);
            for (int ith = 0; ith < 3; ith++)
                pz_spwino_run(&sp, N - 1, x16, bp, z16, y3, s, ith, 3);
            snprintf(what + wl, sizeof what - wl, " %s: n = N - 1 bitwise, the rest untouched",
                     isa);
            check(first_images_only(y1, y3, ny, N), what);
        }
        pz_f32_nchwxc_to_nchw(N, t->m, oh, ow, 16, y1, yplain, 0, 1);
        double e = nerr(yplain, yref, yscale, nplain);
        snprintf(what + wl, sizeof what - wl, " %s: vs reference (%.2g)", isa, e);
        check(e <= 1e-4, what);
        if (i == 0) {
            memcpy(ytwin, y1, (size_t)ny * sizeof *y1);
        } else {
            snprintf(what + wl, sizeof what - wl, " avx512 vs the scalar twin");
            check(nerr(y1, ytwin, ys16, ny) <= 1e-5, what);
        }
        pz_spwino_plan_free(&sp);
    }
    free(x), free(w), free(b), free(z), free(yref), free(yscale), free(x16), free(z16), free(bp);
    free(u), free(s), free(yd1), free(y1), free(y3), free(ytwin), free(ys16), free(yplain);
}

/* The rule: at a quarter of the blocks ResNet-50's 56x56 and 28x28 convs
 * take Winograd, its 7x7 ones direct; one-tap sparsity that leaves every
 * 9-tap block goes direct; the transforms' share grows as the density
 * falls. */
static void check_rule(void)
{
    check(pz_spwino_pays(64, 64, 56, 56, 0.25, 0.25), "rule: 64->64 @56 at 1/4: Winograd");
    check(pz_spwino_pays(128, 128, 28, 28, 0.25, 0.25), "rule: 128->128 @28 at 1/4: Winograd");
    check(!pz_spwino_pays(512, 512, 7, 7, 0.25, 0.25), "rule: 512->512 @7 at 1/4: direct");
    check(!pz_spwino_pays(64, 64, 56, 56, 0.25, 1.0),
          "rule: 64->64 @56, a quarter of the taps but every 9-tap block: direct");
    check(!pz_spwino_pays(64, 64, 56, 56, 0, 0), "rule: no weight at all: direct (nothing to run)");
    double a = pz_spwino_transform_share(64, 64, 56, 56, 1.0);
    double q = pz_spwino_transform_share(64, 64, 56, 56, 0.25);
    check(a > 0 && a < q && q < 1, "rule: the transforms' share grows as the density falls");
    printf("rt_spwinograd: modelled transform share 64->64 @56: %.2f dense, %.2f at 1/4\n", a, q);
}

int main(void)
{
    have_avx512 = cpu_has_avx512();
    if (!have_avx512) printf("rt_spwinograd: no AVX-512 here: the scalar twin only\n");
    check_rule();
    static const int64_t CH[][2] = {{16, 16}, {17, 20}, {33, 48}, {64, 64}, {48, 16}};
    static const int64_t HW[][2] = {{1, 1}, {5, 7}, {13, 14}, {17, 30}};
    int k = 0;
    for (size_t ci = 0; ci < sizeof CH / sizeof CH[0]; ci++)
        for (size_t hi = 0; hi < sizeof HW / sizeof HW[0]; hi++)
            for (int zp = Z_NONE; zp <= Z_ODD; zp++, k++)
                run_case(&(scase){.n = 1 + (k % 5 == 0), .c = CH[ci][0], .m = CH[ci][1],
                                  .h = HW[hi][0], .w = HW[hi][1], .pad = hi == 0 || k % 2,
                                  .bias = k % 2 == 0, .residual = k % 3 == 1,
                                  .act = (pz_act_kind)(k % 3), .z = (zpat)zp});
    /* ResNet-50's layer1 and layer2 shapes at 3/4; one panel of 49 tiles
     * the workers split; the whole-image order */
    run_case(&(scase){.n = 1, .c = 64, .m = 64, .h = 56, .w = 56, .pad = 1, .bias = true,
                      .act = PZ_ACT_RELU, .z = Z_THREE_QUARTERS});
    run_case(&(scase){.n = 1, .c = 128, .m = 128, .h = 28, .w = 28, .pad = 1, .bias = true,
                      .residual = true, .act = PZ_ACT_RELU, .z = Z_THREE_QUARTERS});
    run_case(&(scase){.n = 1, .c = 512, .m = 64, .h = 28, .w = 28, .pad = 1, .bias = true,
                      .act = PZ_ACT_RELU, .z = Z_THREE_QUARTERS});
    run_case(&(scase){.n = 2, .c = 500, .m = 40, .h = 27, .w = 26, .pad = 1, .residual = true,
                      .act = PZ_ACT_CLIP, .z = Z_ODD});
    return test_summary("rt_spwinograd");
}
