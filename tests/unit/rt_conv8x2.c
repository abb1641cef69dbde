/* rt_conv8x2.c - the 1x1 conv in lanes of 8 output x 2 input channels
 * (rt/kernels/conv/conv8x2.h) against the plain reference convolution
 * (pz_f32_conv__ref), over edge sizes:
 *   output channels 8, 16, 24, 40, 56 (calls of 1, 2, 3, 2+3, 2+2+3 groups);
 *   input channels 2, 6, 16, 18, 24, 32, 96, 144 (last block of 1..8
 *     pairs; one block and several);
 *   pixels 1..15, 17, 18, 19, 27, 28, 29, 126, 127, 253 (tiles of 9 and 14
 *     below, at and above their width; chunks of 126 split);
 *   with and without bias, residual, ReLU, Clip with lo > 0 (which moves
 *     zero: the padded lanes must still be zero); batch 1 and 2;
 *   a row window [r0, r1) (a fused F-Block): only those rows written.
 * Each case runs the scalar twin and (when the CPU has it) the AVX-512
 * kernel, on 1 worker and split over 3 (bitwise equal), on NaN-filled
 * outputs. The AVX-512 kernel gives the scalar twin's bits (the same fused
 * multiply-adds in the same order). Errors against the reference are
 * normalised by max |ref before the activation|, bound 1e-5. Also: which
 * shapes pz_conv8x2_ok takes, and that pz_conv8x2_kernel_for gives a
 * kernel only for AVX-512.
 *
 * Prints `rt_conv8x2: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/conv8x2.h"
#include "rt/rows.h"
#include "rt_test.h"

static bool have_avx512;
static double worst;

typedef struct {
    int64_t n, c, m, h, w;
    bool bias, residual;
    pz_act_kind act;
    int64_t r0, r1;          /* a row window (r1 == 0: all rows) */
} ccase;

static void case_str(const ccase *t, const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "%s N%lld C%lld M%lld %lldx%lld%s%s act%d rows [%lld, %lld)", what,
             (long long)t->n, (long long)t->c, (long long)t->m, (long long)t->h,
             (long long)t->w, t->bias ? " bias" : "", t->residual ? " residual" : "",
             (int)t->act, (long long)t->r0, (long long)t->r1);
}

static void run_case(const ccase *t)
{
    const int64_t N = t->n, H = t->h, W = t->w, M = t->m, C = t->c;
    pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {1, 1}, .stride = {1, 1},
                        .dilation = {1, 1}};
    p.act.kind = t->act;
    p.act.lo = 0.25f;   /* CLIP: lo > 0 moves zero; padded lanes must stay zero */
    p.act.hi = 1.5f;
    const int64_t xd[4] = {N, C, H, W}, yd[4] = {N, M, H, W}, nplain = N * M * H * W;
    float *x = new_rand(N * C * H * W), *w = new_rand(M * C);
    float *b = t->bias ? new_rand(M) : NULL, *z = t->residual ? new_rand(nplain) : NULL;
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, nplain, &yref, &yscale);

    char what[256];
    pz_conv16c_desc d;
    int rc = pz_conv16c_init(&d, &p, xd, yd);
    d.cblk = 16;   /* a blocked input, as the runtime gives it whatever C */
    case_str(t, "init+ok", what, sizeof what);
    check(rc == 0 && pz_conv8x2_ok(&d), what);
    if (rc || !pz_conv8x2_ok(&d)) {
        free(x), free(w), free(b), free(z), free(yref), free(yscale);
        return;
    }
    d.r0 = t->r0;
    d.r1 = t->r1;

    const int64_t nx = pz_nchwxc_size(N, C, H, W, 16), ny = pz_nchwxc_size(N, M, H, W, 16);
    float *x16 = new_nan(nx), *z16 = z ? new_nan(ny) : NULL, *bp = NULL;
    pz_f32_nchw_to_nchwxc(N, C, H, W, 16, x, x16, 0, 1);
    if (z) pz_f32_nchw_to_nchwxc(N, M, H, W, 16, z, z16, 0, 1);
    if (b) {
        bp = new_nan(pz_pack_bias16_size(M));
        pz_pack_bias16(M, b, bp);
    }
    float *wp = new_nan(pz_conv8x2_weights_size(&d));
    pz_conv8x2_pack_weights(&d, w, wp);

    float *yscale16 = new_nan(ny), *yref16 = new_nan(ny), *y1 = new_nan(ny), *y3 = new_nan(ny);
    float *ytwin = new_nan(ny);
    pz_f32_nchw_to_nchwxc(N, M, H, W, 16, yscale, yscale16, 0, 1);
    pz_f32_nchw_to_nchwxc(N, M, H, W, 16, yref, yref16, 0, 1);
    const struct {
        const char *name;
        pz_conv16c_fn fn;
        bool on;
    } isas[2] = {
        {"scalar", pz_f32_conv1x1_8x2_nchw16c__scalar, true},
#ifndef PZ_SCALAR
        {"avx512", pz_f32_conv1x1_8x2_nchw16c__avx512, have_avx512},
#else
        {"avx512", NULL, false},
#endif
    };
    const int64_t r0 = t->r1 ? t->r0 : 0, r1 = t->r1 ? t->r1 : H, mb = (M + 15) / 16;
    for (int i = 0; i < 2; i++) {
        if (!isas[i].on) continue;
        fill_nan(y1, ny);
        fill_nan(y3, ny);
        isas[i].fn(&d, x16, wp, bp, z16, y1, 0, 1);
        for (int ith = 0; ith < 3; ith++) isas[i].fn(&d, x16, wp, bp, z16, y3, ith, 3);

        /* inside the window: the reference's values, zeros past M;
         * outside: untouched (NaN) */
        double e = 0;
        bool lanes = true, outside = true;
        for (int64_t k = 0; k < ny; k++) {
            int64_t lane = k % 16, px = k / 16 % (H * W), row = px / W;
            int64_t ch = k / (H * W * 16) % mb * 16 + lane;
            if (row < r0 || row >= r1) {
                if (!isnan(y1[k])) outside = false;
                continue;
            }
            if (ch >= M) {
                if (y1[k] != 0.0f) lanes = false;
                continue;
            }
            double err = isnan(y1[k]) ? INFINITY : fabs((double)y1[k] - yref16[k]);
            if (err > e) e = err;
        }
        double s = 0;
        for (int64_t k = 0; k < nplain; k++)
            if (fabs(yscale[k]) > s) s = fabs(yscale[k]);
        e /= s > 0 ? s : 1;
        if (e > worst) worst = e;
        char tag[64];
        snprintf(tag, sizeof tag, "%s vs ref", isas[i].name);
        case_str(t, tag, what, sizeof what);
        check(e <= 1e-5, what);
        if (e > 1e-5) printf("  error %.3g\n", e);
        snprintf(tag, sizeof tag, "%s padded lanes zero", isas[i].name);
        case_str(t, tag, what, sizeof what);
        check(lanes, what);
        snprintf(tag, sizeof tag, "%s rows outside the window untouched", isas[i].name);
        case_str(t, tag, what, sizeof what);
        check(outside, what);
        snprintf(tag, sizeof tag, "%s nth=3 bitwise", isas[i].name);
        case_str(t, tag, what, sizeof what);
        check(memcmp(y1, y3, (size_t)ny * sizeof *y1) == 0, what);
        if (i == 0) {
            memcpy(ytwin, y1, (size_t)ny * sizeof *y1);
        } else {
            case_str(t, "avx512 bitwise the scalar twin", what, sizeof what);
            bool same = true;
            for (int64_t k = 0; k < ny; k++)
                if (memcmp(&y1[k], &ytwin[k], sizeof *y1) && !(isnan(y1[k]) && isnan(ytwin[k])))
                    same = false;
            check(same, what);
        }
    }
    free(x), free(w), free(b), free(z), free(yref), free(yscale);
    free(x16), free(z16), free(bp), free(wp), free(yscale16), free(yref16), free(y1), free(y3);
    free(ytwin);
}

/* The shapes pz_conv8x2_ok must refuse, and the one it takes. */
static void check_ok(void)
{
    struct {
        int k, s, pad;
        int64_t c, m;
        int want;
        const char *what;
    } r[] = {
        {1, 1, 0, 96, 24, 1, "1x1 96->24"},    {1, 1, 0, 96, 32, 0, "M = 32"},
        {1, 1, 0, 96, 20, 0, "M = 20"},        {1, 1, 0, 95, 24, 0, "odd C"},
        {1, 1, 0, 32, 16, 1, "M = 16"},        {1, 1, 0, 32, 48, 0, "M = 48"},
        {3, 1, 1, 96, 24, 0, "3x3"},           {1, 2, 0, 96, 24, 0, "stride 2"},
        {1, 1, 1, 96, 24, 0, "padding 1"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        pz_conv_params p = {.nsp = 2, .group = 1};
        for (int j = 0; j < 2; j++) {
            p.kernel[j] = r[i].k;
            p.stride[j] = r[i].s;
            p.dilation[j] = 1;
            p.pad_begin[j] = p.pad_end[j] = r[i].pad;
        }
        int64_t o = (10 + 2 * r[i].pad - r[i].k) / r[i].s + 1;
        int64_t xd[4] = {1, r[i].c, 10, 10}, yd[4] = {1, r[i].m, o, o};
        pz_conv16c_desc d;
        char what[96];
        snprintf(what, sizeof what, "pz_conv8x2_ok %s %s", r[i].want ? "takes" : "refuses",
                 r[i].what);
        check(pz_conv16c_init(&d, &p, xd, yd) == 0 && pz_conv8x2_ok(&d) == r[i].want, what);
    }
    /* pz_conv8x2_pick: the kernel only where the shape and the ISA allow
     * it, and not under PZ_CONV8X2=0 */
    {
        pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {1, 1}, .stride = {1, 1},
                            .dilation = {1, 1}};
        int64_t xd[4] = {1, 96, 8, 8}, yd[4] = {1, 24, 8, 8}, yd32[4] = {1, 32, 8, 8};
        pz_conv16c_desc d, d32;
        pz_conv16c_init(&d, &p, xd, yd);
        pz_conv16c_init(&d32, &p, xd, yd32);
        check(pz_conv8x2_pick(&d, PZ_ISA_AVX512) == pz_conv8x2_kernel_for(PZ_ISA_AVX512),
              "pz_conv8x2_pick takes 96->24 on avx512 (where the build has it)");
        check(pz_conv8x2_pick(&d32, PZ_ISA_AVX512) == NULL, "pz_conv8x2_pick refuses M = 32");
        check(pz_conv8x2_pick(&d, PZ_ISA_AVX2) == NULL, "pz_conv8x2_pick refuses avx2");
        /* the run options' switch off (PZ_CONV8X2=0): the conv op keeps the
         * direct conv */
        pz_conv_params q = p;
        pz_run_options off = PZ_RUN_OPTIONS_DEFAULT;
        off.conv8x2 = 0;
        pz_conv_query cq;
        pz_conv_query_opts(&q, 4, xd, yd, 1, 1, PZ_ISA_AVX512, &off, &cq);
        check(cq.path != PZ_CONV_PATH_DIRECT8X2, "conv8x2 = 0 keeps the direct conv");
    }
    check(pz_conv8x2_kernel_for(PZ_ISA_AVX2) == NULL, "pz_conv8x2_kernel_for(avx2) is NULL");
    check(pz_conv8x2_kernel_for(PZ_ISA_SCALAR) == NULL, "pz_conv8x2_kernel_for(scalar) is NULL");
#ifndef PZ_SCALAR
    check(pz_conv8x2_kernel_for(PZ_ISA_AVX512) == pz_f32_conv1x1_8x2_nchw16c__avx512,
          "pz_conv8x2_kernel_for(avx512) is the AVX-512 kernel");
#endif
}

int main(void)
{
    have_avx512 = cpu_has_avx512();
    if (!have_avx512) printf("rt_conv8x2: no AVX-512 here: the scalar twin only\n");
    check_ok();

    static const int64_t CM[][2] = {{96, 24}, {2, 8}, {6, 24}, {16, 40}, {18, 24},
                                    {24, 56}, {32, 8}, {144, 24}, {32, 16}, {2, 16},
                                    {18, 16}};
    static const int64_t HW[][2] = {{1, 1}, {1, 2}, {2, 2}, {1, 5}, {2, 4}, {3, 3}, {1, 10},
                                    {2, 6}, {1, 13}, {3, 5}, {1, 17}, {2, 9}, {1, 19},
                                    {3, 9}, {4, 7}, {1, 29}, {7, 18}, {9, 14}, {11, 23}};
    int k = 0;
    for (size_t ci = 0; ci < sizeof CM / sizeof CM[0]; ci++)
        for (size_t hi = 0; hi < sizeof HW / sizeof HW[0]; hi++) {
            ccase t = {.n = 1 + (k % 5 == 0), .c = CM[ci][0], .m = CM[ci][1], .h = HW[hi][0],
                       .w = HW[hi][1]};
            /* rotate the epilogues through the cases */
            t.bias = k % 2 == 0;
            t.residual = k % 3 == 1;
            t.act = (pz_act_kind)(k % 3);   /* none, relu, clip */
            /* some with a window of rows */
            if (k % 4 == 3 && t.h >= 3) {
                t.r0 = 1;
                t.r1 = t.h - 1;
            }
            k++;
            run_case(&t);
        }
    /* the MobileNetV2 layers */
    run_case(&(ccase){.n = 1, .c = 96, .m = 24, .h = 56, .w = 56, .bias = true});
    run_case(&(ccase){.n = 1, .c = 144, .m = 24, .h = 56, .w = 56, .bias = true,
                      .residual = true});
    run_case(&(ccase){.n = 1, .c = 32, .m = 16, .h = 112, .w = 112, .bias = true});
    printf("rt_conv8x2: worst error against the reference %.2g (bound 1e-5)\n", worst);
    return test_summary("rt_conv8x2");
}
