/* rt_subsample.c - a 1x1 conv with a stride as a subsample plus a flat 1x1
 * conv (rt/kernels/conv/subsample16c.c):
 *   - which shapes pz_conv16c_subsample_plan takes (1x1, a stride, no
 *     padding, input block 16, all rows, at least 256 output channels, a
 *     subsampled input of at most 512 KB) and refuses, PZ_SUBSAMPLE=0
 *     included, and the flat conv it gives;
 *   - pz_subsample16c against the index formula;
 *   - on every ISA here, the flat conv over the subsample bitwise equal to
 *     the strided conv (the same products in the same order), on 1 and 3
 *     workers, over odd sizes (13x13 and 14x14 from stride 2, 9x10 with
 *     strides 3 and 2), channels 16, 33 and 64 in, 256 and 264 out (a last
 *     block of 8 lanes), batch 1 and 2, with and without residual and Clip.
 * Prints `rt_subsample: P passed, F failed`; exits 1 on a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rows.h"
#include "rt_test.h"

static int init_desc(pz_conv16c_desc *d, int64_t n, int64_t c, int64_t m, int64_t h, int64_t w,
                     int k, int sh, int sw, int pad, pz_act_kind act)
{
    pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {k, k}, .stride = {sh, sw},
                        .dilation = {1, 1}, .pad_begin = {pad, pad}, .pad_end = {pad, pad},
                        .act = {.kind = act, .lo = 0.25f, .hi = 6.0f}};
    int64_t oh = (h + 2 * pad - k) / sh + 1, ow = (w + 2 * pad - k) / sw + 1;
    int64_t xd[4] = {n, c, h, w}, yd[4] = {n, m, oh, ow};
    return pz_conv16c_init(d, &p, xd, yd);
}

static void test_plan(void)
{
    struct {
        int64_t c, m, h;
        int k, s, pad, want;
        const char *what;
    } r[] = {
        {256, 512, 14, 1, 2, 0, 1, "1x1/2 256->512 from 14"},
        {512, 1024, 28, 1, 2, 0, 1, "1x1/2 512->1024 from 28 (392 KB)"},
        {256, 512, 56, 1, 2, 0, 0, "1x1/2 256->512 from 56 (784 KB)"},
        {64, 128, 56, 1, 2, 0, 0, "M = 128"},
        {256, 512, 14, 1, 1, 0, 0, "stride 1"},
        {256, 512, 14, 3, 2, 1, 0, "3x3/2"},
        {256, 512, 14, 1, 2, 1, 0, "padding 1"},
        {3, 256, 14, 1, 2, 0, 0, "input block 3"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        pz_conv16c_desc d, f;
        char what[96];
        snprintf(what, sizeof what, "subsample_plan %s %s", r[i].want ? "takes" : "refuses",
                 r[i].what);
        check(init_desc(&d, 1, r[i].c, r[i].m, r[i].h, r[i].h, r[i].k, r[i].s, r[i].s, r[i].pad,
                        PZ_ACT_NONE) == 0 &&
                  pz_conv16c_subsample_plan(&d, &f) == r[i].want,
              what);
        if (r[i].want)
            check(f.h == d.oh && f.w == d.ow && f.sh == 1 && f.sw == 1 && f.oh == d.oh &&
                      f.c == d.c && f.m == d.m && f.kh == 1 && f.cblk == 16,
                  "subsample_plan: the flat conv is stride 1 over the output's size");
    }
    pz_conv16c_desc d, f;
    /* padding at the end only, along H or along W: the last output row
     * (column) of 8 reads row (column) 14, outside the 14x14 input */
    for (int a = 0; a < 2; a++) {
        pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {1, 1}, .stride = {2, 2},
                            .dilation = {1, 1}, .pad_end = {a == 0 ? 2 : 0, a == 1 ? 2 : 0}};
        int64_t xd[4] = {1, 256, 14, 14}, yd[4] = {1, 512, a == 0 ? 8 : 7, a == 1 ? 8 : 7};
        check(pz_conv16c_init(&d, &p, xd, yd) == 0 && !pz_conv16c_subsample_plan(&d, &f),
              a == 0 ? "subsample_plan refuses 1x1/2 with padding at the bottom"
                     : "subsample_plan refuses 1x1/2 with padding on the right");
    }
    init_desc(&d, 1, 256, 512, 14, 14, 1, 2, 2, 0, PZ_ACT_NONE);
    d.r1 = 3;
    check(!pz_conv16c_subsample_plan(&d, &f), "subsample_plan refuses a row window");
    d.r1 = 0;
    /* the run options' switch off (PZ_SUBSAMPLE=0): the conv op keeps the
     * strided conv */
    {
        pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {1, 1}, .stride = {2, 2},
                            .dilation = {1, 1}};
        int64_t xd[4] = {1, 256, 14, 14}, yd[4] = {1, 512, 7, 7};
        pz_run_options on = PZ_RUN_OPTIONS_DEFAULT, off = on;
        off.subsample = 0;
        pz_conv_query q;
        pz_conv_query_opts(&p, 4, xd, yd, 1, 1, PZ_ISA_SCALAR, &on, &q);
        check(q.path == PZ_CONV_PATH_DIRECT_SUB, "a 1x1/2 conv subsamples by default");
        pz_conv_query_opts(&p, 4, xd, yd, 1, 1, PZ_ISA_SCALAR, &off, &q);
        check(q.path == PZ_CONV_PATH_DIRECT, "subsample = 0 keeps the strided conv");
    }
}

typedef struct {
    int64_t n, c, m, h, w;
    int sh, sw;
    bool residual;
    pz_act_kind act;
} sub_case;

static void run_case(const sub_case *t)
{
    pz_conv16c_desc d, f;
    char what[160];
    snprintf(what, sizeof what, "n%lld %lld->%lld %lldx%lld s%d,%d%s act %d",
             (long long)t->n, (long long)t->c, (long long)t->m, (long long)t->h,
             (long long)t->w, t->sh, t->sw, t->residual ? " +res" : "", (int)t->act);
    if (init_desc(&d, t->n, t->c, t->m, t->h, t->w, 1, t->sh, t->sw, 0, t->act) ||
        !pz_conv16c_subsample_plan(&d, &f)) {
        check(false, what);
        return;
    }
    const int64_t cb = pz_ceil_div(t->c, 16), nx = pz_nchwxc_size(t->n, t->c, t->h, t->w, 16);
    const int64_t ny = pz_nchwxc_size(t->n, t->m, d.oh, d.ow, 16), ns = pz_subsample16c_size(&d);
    float *x = new_rand(nx), *w = new_rand(t->m * t->c), *b = new_rand(t->m);
    float *z = t->residual ? new_rand(ny) : NULL, *xs = new_nan(ns);
    /* lanes past C are zero in NCHW16c */
    for (int64_t i = 0; i < nx; i++)
        if ((i / (t->h * t->w * 16)) % cb * 16 + i % 16 >= t->c) x[i] = 0.0f;
    pz_subsample16c(&d, x, xs);
    int64_t bad = 0;
    for (int64_t pl = 0; pl < t->n * cb; pl++)
        for (int64_t r = 0; r < d.oh; r++)
            for (int64_t c = 0; c < d.ow; c++)
                for (int l = 0; l < 16; l++)
                    bad += xs[((pl * d.oh + r) * d.ow + c) * 16 + l] !=
                           x[((pl * t->h + r * t->sh) * t->w + c * t->sw) * 16 + l];
    char wc[320];
    snprintf(wc, sizeof wc, "subsample16c copy: %s", what);
    check(bad == 0, wc);

    float *wp = malloc((size_t)pz_conv16c_weights_size(&d) * sizeof(float));
    float *bp = malloc((size_t)pz_pack_bias16_size(t->m) * sizeof(float));
    pz_conv16c_pack_weights(&d, w, wp);
    pz_pack_bias16(t->m, b, bp);
    float *ys = new_nan(ny), *yf = new_nan(ny);
    const pz_fast_kernels *ks[3];
    int n_ks = fast_kernels_here(ks);
    for (int i = 0; i < n_ks; i++)
        for (int nth = 1; nth <= 3; nth += 2) {
            fill_nan(ys, ny);
            fill_nan(yf, ny);
            for (int ith = 0; ith < nth; ith++) {
                ks[i]->conv2d(&d, x, wp, bp, z, ys, ith, nth);
                ks[i]->conv2d(&f, xs, wp, bp, z, yf, ith, nth);
            }
            snprintf(wc, sizeof wc, "%s %d worker%s: flat over the subsample == strided: %s",
                     ks[i]->name, nth, nth > 1 ? "s" : "", what);
            check(memcmp(ys, yf, (size_t)ny * sizeof(float)) == 0 && nerr(ys, yf, ys, ny) == 0,
                  wc);
        }
    free(x); free(w); free(b); free(z); free(xs); free(wp); free(bp); free(ys); free(yf);
}

int main(void)
{
    test_plan();
    const sub_case cases[] = {
        {1, 16, 256, 13, 13, 2, 2, false, PZ_ACT_NONE},
        {1, 33, 264, 14, 14, 2, 2, true, PZ_ACT_CLIP},
        {2, 64, 256, 9, 10, 3, 2, false, PZ_ACT_RELU},
        {1, 64, 264, 28, 28, 2, 2, true, PZ_ACT_RELU},
        {2, 16, 256, 7, 7, 2, 2, true, PZ_ACT_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    return test_summary("rt_subsample");
}
