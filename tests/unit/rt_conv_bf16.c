/* rt_conv_bf16.c - the bf16 convolutions (rt/kernels/conv/conv16c_bf16.h):
 *   direct: 3x3 at strides 1 and 2, 1x1 (flat and not), 5x5, a dilated 3x3,
 *     outputs 7 wide (two-row tiles) and wider, channels 16..64 and 24 (a
 *     last input block of 8), output channels off 16 (tail lanes), batch 2,
 *     bias, residual, ReLU and Clip. Each against the reference conv
 *     (pz_f32_conv__ref) on the bf16-rounded input and weights (within 1e-5
 *     of the largest pre-activation output: only the order of the fp32 sums
 *     differs) and on the plain ones (within 2e-2: bf16's rounding);
 *   Winograd F(4x4, 3x3): against the plain reference within 0.15 (the
 *     transformed values rounded to bf16: the output transform's weights up
 *     to 8 magnify their rounding; an input, weight or layout mix-up is
 *     off by about 1);
 *   both: the AVX512-BF16 kernel (where the CPU has it) bitwise equal to
 *   its scalar twin, at 1 worker and split over 3, on NaN-filled outputs and
 *   scratch; the refusals of pz_conv16c_bf16_ok.
 * Prints `rt_conv_bf16: P passed, F failed`; exits 1 on a failure. */
#include <stdio.h>

#include "rt/kernels/conv/conv16c_bf16.h"
#include "rt/kernels/gemm/gemm_bf16.h"
#include "rt_test.h"

typedef struct {
    int64_t n, c, m, h, w;
    int k, s, pad, dil;
    bool bias, residual;
    pz_act_kind act;
    bool wino;
} ccase;

static float *rounded(const float *a, int64_t n)
{
    float *r = new_nan(n);
    for (int64_t i = 0; i < n; i++) r[i] = pz_bf16_float(pz_bf16_round(a[i]));
    return r;
}

static void run_case(const ccase *t)
{
    pz_conv_params p = {.nsp = 2, .group = 1};
    for (int j = 0; j < 2; j++) {
        p.kernel[j] = t->k;
        p.stride[j] = t->s;
        p.dilation[j] = t->dil;
        p.pad_begin[j] = p.pad_end[j] = t->pad;
    }
    p.act.kind = t->act;
    p.act.lo = 0.25f;
    p.act.hi = 1.5f;
    const int64_t ext = (int64_t)t->dil * (t->k - 1) + 1;
    const int64_t oh = (t->h + 2 * t->pad - ext) / t->s + 1, ow = (t->w + 2 * t->pad - ext) / t->s + 1;
    const int64_t N = t->n, xd[4] = {N, t->c, t->h, t->w}, yd[4] = {N, t->m, oh, ow};
    const int64_t nplain = N * t->m * oh * ow, nw = t->m * t->c * t->k * t->k;
    char what[200];
    snprintf(what, sizeof what, "%s N%lld C%lld M%lld %lldx%lld k%d s%d pad%d dil%d%s%s act%d",
             t->wino ? "winograd" : "direct", (long long)N, (long long)t->c, (long long)t->m,
             (long long)t->h, (long long)t->w, t->k, t->s, t->pad, t->dil, t->bias ? " bias" : "",
             t->residual ? " residual" : "", (int)t->act);

    float *x = new_rand(N * t->c * t->h * t->w), *w = new_rand(nw);
    float *b = t->bias ? new_rand(t->m) : NULL, *z = t->residual ? new_rand(nplain) : NULL;
    float *xr = rounded(x, N * t->c * t->h * t->w), *wr = rounded(w, nw);
    float *yref, *yscale, *yrr, *yrscale;
    conv_reference(&p, xd, yd, x, w, b, z, nplain, &yref, &yscale);
    conv_reference(&p, xd, yd, xr, wr, b, z, nplain, &yrr, &yrscale);

    pz_conv16c_desc d;
    const int ok = pz_conv16c_init(&d, &p, xd, yd) == 0 &&
                   (t->wino ? pz_winograd_ok(&d) : pz_conv16c_bf16_ok(&d));
    checkf(ok, "%s: taken", what);
    const int64_t ny = pz_nchwxc_size(N, t->m, oh, ow, 16);
    float *x16, *z16, *bp;
    conv_pack16(N, t->c, t->h, t->w, t->m, oh, ow, x, z, b, &x16, &z16, &bp);
    const int64_t nwp = t->wino ? pz_winograd_weights_size(&d) : pz_conv16c_weights_size(&d);
    const int64_t ns1 = t->wino ? pz_winograd_scratch_size(&d, 1) : 1;
    const int64_t ns3 = t->wino ? pz_winograd_scratch_size(&d, 3) : 1;
    float *wp = new_nan(nwp), *s1 = new_nan(ns1), *s3 = new_nan(ns3);
    if (t->wino) {
        pz_winograd_pack_weights(&d, w, wp);
        pz_winograd_bf16_convert(&d, wp);
    } else {
        pz_conv16c_pack_weights(&d, w, wp);
        pz_conv16c_bf16_convert(&d, wp);
    }
    float *y[2][2], *yplain = new_nan(nplain);
    const pz_conv16c_fn dfn[2] = {pz_f32_conv2d_nchw16c_bf16__scalar, pz_conv16c_bf16_for(PZ_ISA_AVX512)};
    const pz_winograd_fn wfn[2] = {pz_f32_conv3x3_winograd_bf16__scalar,
                                   pz_winograd_bf16_for(PZ_ISA_AVX512)};
    const int nisa = (t->wino ? (void *)wfn[1] != (void *)wfn[0] : dfn[1] != dfn[0]) ? 2 : 1;
    for (int i = 0; i < nisa && ok; i++) {
        const char *isa = i ? "avx512bf16" : "scalar";
        for (int v = 0; v < 2; v++) {
            const int nth = v ? 3 : 1;
            y[i][v] = new_nan(ny);
            fill_nan(s1, ns1);
            fill_nan(s3, ns3);
            for (int ith = 0; ith < nth; ith++) {
                if (t->wino) wfn[i](&d, x16, wp, bp, z16, y[i][v], nth == 1 ? s1 : s3, ith, nth);
                else dfn[i](&d, x16, wp, bp, z16, y[i][v], ith, nth);
            }
        }
        checkf(!memcmp(y[i][0], y[i][1], (size_t)ny * sizeof(float)),
               "%s %s: 3 workers give the bits of 1", what, isa);
        pz_f32_nchwxc_to_nchw(N, t->m, oh, ow, 16, y[i][0], yplain, 0, 1);
        const double e = nerr(yplain, yref, yscale, nplain), er = nerr(yplain, yrr, yrscale, nplain);
        if (t->wino)
            checkf(e <= 0.15, "%s %s: err %.3g vs the fp32 reference", what, isa, e);
        else
            checkf(er <= 1e-5 && e <= 2e-2, "%s %s: err %.3g vs bf16 operands, %.3g vs fp32",
                   what, isa, er, e);
        /* padded output lanes zero (the tail) */
        int lanes_ok = 1;
        for (int64_t q = t->m; q < (t->m + 15) / 16 * 16 && lanes_ok; q++)
            for (int64_t px = 0; px < oh * ow; px++)
                if (y[i][0][((t->m / 16) * oh * ow + px) * 16 + q % 16] != 0.0f) lanes_ok = 0;
        checkf(lanes_ok, "%s %s: lanes past M are zero", what, isa);
    }
    if (nisa == 2 && ok)
        checkf(!memcmp(y[0][0], y[1][0], (size_t)ny * sizeof(float)),
               "%s: AVX512-BF16 bitwise equal to the scalar twin", what);
    for (int i = 0; i < nisa && ok; i++) free(y[i][0]), free(y[i][1]);
    free(x), free(w), free(b), free(z), free(xr), free(wr), free(yref), free(yscale), free(yrr);
    free(yrscale), free(x16), free(z16), free(bp), free(wp), free(s1), free(s3), free(yplain);
}

int main(void)
{
    static const ccase cases[] = {
        {1, 16, 16, 5, 5, 3, 1, 1, 1, true, false, PZ_ACT_NONE, false},
        {1, 32, 48, 14, 14, 3, 1, 1, 1, true, true, PZ_ACT_RELU, false},
        {1, 64, 32, 7, 7, 3, 1, 1, 1, true, true, PZ_ACT_RELU, false},
        {2, 24, 20, 9, 9, 1, 1, 0, 1, true, false, PZ_ACT_CLIP, false},
        {1, 32, 32, 15, 16, 3, 2, 1, 1, false, false, PZ_ACT_RELU, false},
        {1, 48, 16, 6, 30, 1, 1, 0, 1, true, true, PZ_ACT_NONE, false},
        {1, 32, 64, 12, 12, 1, 2, 0, 1, true, false, PZ_ACT_NONE, false},
        {1, 16, 32, 11, 11, 5, 1, 2, 1, true, false, PZ_ACT_RELU, false},
        {1, 32, 16, 9, 9, 3, 1, 2, 2, true, false, PZ_ACT_NONE, false},
        {1, 16, 16, 8, 8, 3, 1, 1, 1, true, false, PZ_ACT_NONE, true},
        {1, 32, 48, 14, 14, 3, 1, 1, 1, true, true, PZ_ACT_RELU, true},
        {2, 24, 20, 9, 11, 3, 1, 1, 1, false, false, PZ_ACT_CLIP, true},
        {1, 64, 32, 13, 17, 3, 1, 1, 1, true, false, PZ_ACT_NONE, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);

    /* what the bf16 direct conv refuses: channel blocks under 16 (a stem of
     * 3 channels), an odd channel count, a span past its buffer */
    pz_conv16c_desc d = {.c = 32, .cblk = 16, .kw = 3, .sw = 1, .dw = 1};
    check(pz_conv16c_bf16_ok(&d), "bf16 direct takes 32 channels, 3x3");
    d.c = 3, d.cblk = 3;
    check(!pz_conv16c_bf16_ok(&d), "bf16 direct refuses 3-channel blocks");
    d.c = 33, d.cblk = 16;
    check(!pz_conv16c_bf16_ok(&d), "bf16 direct refuses an odd channel count");
    d.c = 32, d.sw = 4, d.kw = 13;
    check(!pz_conv16c_bf16_ok(&d), "bf16 direct refuses a span past its buffer");
    return test_summary("rt_conv_bf16");
}
