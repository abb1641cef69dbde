/* rt_dwfc.c - the memory-bound fast kernels: depthwise 3x3 on NCHW16c
 * (k->dwconv3x3) and the FC path of the packed GEMM (k->gemv, and k->gemm at
 * m == 1), and the depthwise conv of any kernel (dwconvk16c.h), against
 * the plain-layout reference kernels (pz_f32_conv__ref,
 * pz_f32_gemm__ref), for every ISA this CPU has (scalar, AVX2, AVX-512).
 *
 * Depthwise: every output width 1..33 with strides (1,1), (2,2), (1,2),
 * (2,1) and (3,3), odd and even channel counts (1 to 48: partial blocks),
 * heights 1..9, pads 0..2 on each side independently, with and without bias
 * and residual, no activation, ReLU and a Clip whose lower bound is above
 * zero (padded lanes must stay zero); plus the MobileNetV2 shapes at a
 * reduced channel count. Each case checks:
 *   - the kernel against the reference: max |a - b| / max |pre-activation|
 *     <= 1e-5 (the kernels use FMA, the reference does not);
 *   - 1 worker and 3 workers give the same bits; padded lanes are zero and
 *     nothing is left unwritten (the output starts as NaN);
 *   - row windows through the runtime itself: the layer a one-layer net
 *     prepares on that ISA, its op's run_rows (what a fused F-Block calls;
 *     rt/ops/conv.c), cut at every row its granularity allows, give the
 *     rows of the whole-layer call, bitwise.
 * Depthwise of other kernels (dwconvk16c.h: 5x5, 7x7, 1x5, 5x3, dilated
 * 3x3): input widths 1..33, strides 1 and 2, pads 0..3 on each side, partial
 * channel blocks, bias, residual and activation; the scalar twin against
 * the reference (1e-5, normalized), the AVX-512 kernel against the twin
 * bitwise, 1 and 3 workers bitwise, padded lanes zero.
 * FC: N (outputs) across the 32-column panels and 16-lane halves, K from 1
 * to 1280 (remainders of every unroll), bias (row), scalar and no C, alpha,
 * ReLU/Clip; gemv and gemm(m == 1) are bitwise equal, 1 and 3 workers are
 * bitwise equal, and both match the reference within 1e-5 (normalized).
 *
 * Prints `rt_dwfc: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/dwconv/dwconvk16c.h"
#include "rt/kernels/fast.h"
#include "rt/net.h"
#include "rt_test.h"

static const pz_fast_kernels *ISAS[3];   /* scalar, then the SIMD ones this CPU has */
static int n_isas;

/* ---- depthwise ------------------------------------------------------------- */

typedef struct {
    int64_t c, h, w;         /* input */
    int s[2], pb[2], pe[2];  /* strides, pads begin (top, left) and end (bottom, right) */
    bool bias, residual;
    pz_act_kind act;
} dw_case;

static void dw_str(const dw_case *t, const char *what, char *buf, size_t n)
{
    snprintf(buf, n, "dw %s C%lld %lldx%lld s%d,%d pads t%d l%d b%d r%d%s%s act%d", what,
             (long long)t->c, (long long)t->h, (long long)t->w, t->s[0], t->s[1], t->pb[0],
             t->pb[1], t->pe[0], t->pe[1], t->bias ? " bias" : "", t->residual ? " res" : "",
             (int)t->act);
}

/* The DW layer as the runtime prepares it: a one-layer net of p on the
 * kernels of `isa` (the run options' cap, as PZ_ISA), compiled for 2
 * workers; NULL (and a FAIL) when it does not compile. */
static pz_net *dw_net(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                      const float *w, const float *b, bool residual, const char *isa)
{
    pz_net *net = pz_net_new("dw");
    const int64_t wd[4] = {xd[1], 1, p->kernel[0], p->kernel[1]};
    int x = pz_net_input(net, "x", PZ_F32, 4, xd);
    int wi = pz_net_const(net, "w", PZ_F32, 4, wd, w);
    int bi = b ? pz_net_const(net, "b", PZ_F32, 1, &xd[1], b) : -1;
    int zi = residual ? pz_net_input(net, "z", PZ_F32, 4, yd) : -1;
    int y = pz_net_tensor(net, "y", PZ_F32, 4, yd);
    pz_net_layer(net, "dw", PZ_OP_CONV, p, sizeof *p, (const int[]){x, wi, bi, zi}, 4, &y, 1);
    pz_net_output(net, y);
    char err[256] = "";
    pz_run_options ro = rt_options_isa(isa);
    int rc = pz_net_compile(net, 2, &ro, err, sizeof err);
    checkf(rc == 0, "dw net on %s compiles: %s", isa, err);
    if (rc) {
        pz_net_free(net);
        return NULL;
    }
    return net;
}

/* A new copy of the NCHW tensor x (dims xd) in layout cblk (0 or 1:
 * plain, else NCHW<cblk>c). */
static float *in_layout(const float *x, const int64_t *xd, int cblk)
{
    int cb = cblk > 1 ? cblk : 1;
    int64_t n = pz_nchwxc_size(xd[0], xd[1], xd[2], xd[3], cb);
    float *y = new_nan(n);
    pz_f32_nchw_to_nchwxc(xd[0], xd[1], xd[2], xd[3], cb, x, y, 0, 1);
    return y;
}

/* Rows [r0, r1) of layer l through the runtime's own row-window entry
 * (l->op->run_rows, what a fused F-Block calls), on nth workers. */
static void dw_rows_window(const pz_layer *l, const float *x, const float *z, float *y,
                           int64_t r0, int64_t r1, int nth)
{
    const void *in[4] = {x, NULL, NULL, z};
    for (int ith = 0; ith < nth; ith++) l->op->run_rows(l, in, y, r0, r1, ith, nth);
}

/* The lanes past channel C of an NCHW16c output of ny floats (hw pixels a
 * plane) are all zero. */
static bool pad_lanes_zero(const float *y, int64_t ny, int64_t C, int64_t hw)
{
    for (int64_t e = 0; e < ny; e++) {
        int64_t ch = e / (hw * 16) % ((C + 15) / 16) * 16 + e % 16;
        if (ch >= C && y[e] != 0.0f) return false;
    }
    return true;
}

/* A depthwise layer's params: group C, the act's clamp [0.25, 1.5] (a lower
 * bound above zero, so padded lanes must be zeroed after it). */
static pz_conv_params dw_params(int64_t C, const int k[2], const int s[2], const int dl[2],
                                const int pb[2], const int pe[2], pz_act_kind act)
{
    pz_conv_params p = {.nsp = 2, .group = C};
    for (int j = 0; j < 2; j++) {
        p.kernel[j] = k[j];
        p.stride[j] = s[j];
        p.dilation[j] = dl[j];
        p.pad_begin[j] = pb[j];
        p.pad_end[j] = pe[j];
    }
    p.act.kind = act;
    p.act.lo = 0.25f;
    p.act.hi = 1.5f;
    return p;
}

static void run_dw_case(const dw_case *t)
{
    const int64_t N = 1, C = t->c;
    int64_t oh = (t->h + t->pb[0] + t->pe[0] - 3) / t->s[0] + 1;
    int64_t ow = (t->w + t->pb[1] + t->pe[1] - 3) / t->s[1] + 1;
    if (t->h + t->pb[0] + t->pe[0] < 3 || t->w + t->pb[1] + t->pe[1] < 3) return;
    static const int K3[2] = {3, 3}, D1[2] = {1, 1};
    pz_conv_params p = dw_params(C, K3, t->s, D1, t->pb, t->pe, t->act);
    const int64_t xd[4] = {N, C, t->h, t->w}, yd[4] = {N, C, oh, ow};
    char what[256];

    float *x = new_rand(N * C * t->h * t->w), *w = new_rand(C * 9);
    float *b = t->bias ? new_rand(C) : NULL, *z = t->residual ? new_rand(N * C * oh * ow) : NULL;
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, N * C * oh * ow, &yref, &yscale);

    pz_conv16c_desc d;
    int rc = pz_dwconv16c_init(&d, &p, xd, yd);
    dw_str(t, "init", what, sizeof what);
    check(rc == 0 && d.cblk == 16, what);
    if (rc) goto out;
    int64_t nx = pz_nchwxc_size(N, C, t->h, t->w, 16), ny = pz_nchwxc_size(N, C, oh, ow, 16);
    float *x16 = new_nan(nx), *z16 = z ? new_nan(ny) : NULL, *wp = new_nan(pz_dw16c_weights_size(C));
    float *bp = b ? new_nan(pz_pack_bias16_size(C)) : NULL;
    pz_f32_nchw_to_nchwxc(N, C, t->h, t->w, 16, x, x16, 0, 1);
    if (z) pz_f32_nchw_to_nchwxc(N, C, oh, ow, 16, z, z16, 0, 1);
    pz_dw16c_pack_weights(C, w, wp);
    if (b) pz_pack_bias16(C, b, bp);
    float *y = new_nan(ny), *y3 = new_nan(ny), *yw = new_nan(ny), *yplain = new_nan(N * C * oh * ow);

    for (int i = 0; i < n_isas; i++) {
        pz_conv16c_fn fn = ISAS[i]->dwconv3x3;
        for (int64_t e = 0; e < ny; e++) y[e] = y3[e] = NAN;
        fn(&d, x16, wp, bp, z16, y, 0, 1);
        for (int ith = 0; ith < 3; ith++) fn(&d, x16, wp, bp, z16, y3, ith, 3);
        pz_f32_nchwxc_to_nchw(N, C, oh, ow, 16, y, yplain, 0, 1);
        dw_str(t, ISAS[i]->name, what, sizeof what);
        check(nerr(yplain, yref, yscale, N * C * oh * ow) <= 1e-5, what);
        const bool lanes = pad_lanes_zero(y, ny, C, oh * ow);
        snprintf(what + strlen(what), sizeof what - strlen(what), " lanes, nth 3");
        check(lanes && memcmp(y, y3, (size_t)ny * sizeof *y) == 0, what);
        /* 2 workers: the rows shared (pz_dw_share) or, for the whole-plane
         * shapes, the blocks */
        fill_nan(y3, ny);
        for (int ith = 0; ith < 2; ith++) fn(&d, x16, wp, bp, z16, y3, ith, 2);
        dw_str(t, ISAS[i]->name, what, sizeof what);
        snprintf(what + strlen(what), sizeof what - strlen(what), " nth 2");
        check(memcmp(y, y3, (size_t)ny * sizeof *y) == 0, what);
        /* row windows through the runtime's layer (rt/ops/conv.c): [0, cut)
         * and [cut, OH) for every cut the layer's granularity allows, on 1
         * and 2 workers, the layer's own NCHW16c buffers */
        pz_net *net = dw_net(&p, xd, yd, w, b, z != NULL, ISAS[i]->name);
        const pz_layer *l = net ? pz_net_layer_at(net, 0) : NULL;
        dw_str(t, ISAS[i]->name, what, sizeof what);
        snprintf(what + strlen(what), sizeof what - strlen(what), " layer: NCHW16c, row windows");
        int g = l && l->op->rows ? l->op->rows(l) : 0;
        bool same = l && g > 0 && l->out_cblk[0] == 16;
        /* the inputs in the layouts the layer reads (C == 1 is a plain conv:
         * its input is not blocked) */
        float *xl = same ? in_layout(x, xd, l->in_cblk[0]) : NULL;
        float *zl = same && z ? in_layout(z, yd, l->in_cblk[3]) : NULL;
        /* the whole layer in one window: the DW kernel's bits (C == 1 takes
         * the direct conv kernel, whose bits are its own) */
        float *yl = new_nan(ny);
        if (same) dw_rows_window(l, xl, zl, yl, 0, oh, 1);
        if (same && C > 1) same = memcmp(y, yl, (size_t)ny * sizeof *y) == 0;
        for (int64_t cut = g; same && cut < oh; cut += g) {
            fill_nan(yw, ny);
            dw_rows_window(l, xl, zl, yw, 0, cut, 1 + (int)(cut % 2));
            dw_rows_window(l, xl, zl, yw, cut, oh, 2 - (int)(cut % 2));
            same &= memcmp(yl, yw, (size_t)ny * sizeof *y) == 0;
        }
        free(yl);
        check(same, what);
        free(xl);
        free(zl);
        pz_net_free(net);
    }
    free(x16); free(z16); free(wp); free(bp); free(y); free(y3); free(yw); free(yplain);
out:
    free(x); free(w); free(b); free(z); free(yref); free(yscale);
}

static void test_dw(void)
{
    static const int64_t CH[] = {1, 3, 15, 16, 17, 33, 48};
    static const int S[][2] = {{1, 1}, {2, 2}, {1, 2}, {2, 1}, {3, 3}};
    int pat = 0;
    for (int64_t ow = 1; ow <= 33; ow++)
        for (size_t si = 0; si < sizeof S / sizeof S[0]; si++) {
            dw_case t = {.c = CH[(ow + (int64_t)si) % 7], .h = 1 + (ow * 3 + (int64_t)si) % 9,
                         .s = {S[si][0], S[si][1]},
                         .pb = {pat % 3, (pat / 3) % 3}, .pe = {(pat / 9) % 3, (pat / 2 + 1) % 3},
                         .bias = pat % 3 != 1, .residual = pat % 4 == 2,
                         .act = (pz_act_kind)(pat % 3)};
            /* the input width that gives ow outputs with these pads and stride */
            t.w = (ow - 1) * t.s[1] + 3 - t.pb[1] - t.pe[1];
            if (t.w < 1) {
                t.pb[1] = t.pe[1] = 0;
                t.w = (ow - 1) * t.s[1] + 3;
            }
            pat++;
            run_dw_case(&t);
        }
    /* the MobileNetV2 depthwise shapes (channels cut, not the geometry) */
    static const struct { int64_t c, h; int s; } NET[] = {
        {32, 112, 1}, {40, 112, 2}, {24, 56, 1}, {24, 56, 2}, {48, 28, 1}, {48, 28, 2},
        {64, 14, 1}, {48, 14, 2}, {80, 7, 1},
    };
    for (size_t i = 0; i < sizeof NET / sizeof NET[0]; i++) {
        dw_case t = {.c = NET[i].c, .h = NET[i].h, .w = NET[i].h, .s = {NET[i].s, NET[i].s},
                     .pb = {1, 1}, .pe = {1, 1}, .bias = true, .residual = i % 3 == 1,
                     .act = i % 2 ? PZ_ACT_RELU : PZ_ACT_CLIP};
        run_dw_case(&t);
    }
    /* the shapes with a whole-plane path (dwconv16c_avx512.c: 7x7 and 14x14
     * stride 1, 14x14 -> 7x7 stride 2, pads 1 at the top and left) or band
     * functions for row pairs (28x28 stride 1, 28x28 -> 14x14 stride 2):
     * partial channel blocks, with and without bias, residual and
     * activation; the 3-worker and row-window runs above mix them with the
     * row tiles, and the row windows start pairs at every row */
    static const struct { int64_t h; int s, pe; } PLANE[] = {
        {7, 1, 1}, {14, 1, 1}, {14, 2, 1}, {14, 2, 0}, {28, 1, 1}, {28, 2, 1}, {28, 2, 0},
    };
    static const int64_t PCH[] = {1, 16, 20, 47, 64};
    for (size_t i = 0; i < sizeof PLANE / sizeof PLANE[0]; i++)
        for (size_t c = 0; c < sizeof PCH / sizeof PCH[0]; c++) {
            int v = (int)(i * 5 + c);
            dw_case t = {.c = PCH[c], .h = PLANE[i].h, .w = PLANE[i].h,
                         .s = {PLANE[i].s, PLANE[i].s}, .pb = {1, 1},
                         .pe = {PLANE[i].pe, PLANE[i].pe}, .bias = v % 3 != 2,
                         .residual = v % 2 == 1, .act = (pz_act_kind)(v % 3)};
            run_dw_case(&t);
        }
}

/* ---- depthwise of any kernel (dwconvk16c.h) ------------------------------ */

typedef struct {
    int64_t c, h, w;
    int k[2], s[2], dl[2], pb[2], pe[2];   /* kernel, strides, dilations, pads */
    bool bias, residual;
    pz_act_kind act;
} dwk_case;

/* The scalar twin against the reference (1e-5 of the pre-activation scale);
 * the AVX-512 kernel against the twin bitwise (the header's promise); 1 and 3
 * workers bitwise; the lanes past C zero; nothing left unwritten. */
static void run_dwk_case(const dwk_case *t)
{
    const int64_t N = 2, C = t->c;
    int64_t eh = (int64_t)(t->k[0] - 1) * t->dl[0] + 1, ew = (int64_t)(t->k[1] - 1) * t->dl[1] + 1;
    if (t->h + t->pb[0] + t->pe[0] < eh || t->w + t->pb[1] + t->pe[1] < ew) return;
    int64_t oh = (t->h + t->pb[0] + t->pe[0] - eh) / t->s[0] + 1;
    int64_t ow = (t->w + t->pb[1] + t->pe[1] - ew) / t->s[1] + 1;
    pz_conv_params p = dw_params(C, t->k, t->s, t->dl, t->pb, t->pe, t->act);
    const int64_t xd[4] = {N, C, t->h, t->w}, yd[4] = {N, C, oh, ow};
    char what[256];
    snprintf(what, sizeof what, "dwk C%lld %lldx%lld k%dx%d s%d,%d d%d,%d pads t%d l%d b%d r%d%s%s act%d",
             (long long)C, (long long)t->h, (long long)t->w, t->k[0], t->k[1], t->s[0], t->s[1],
             t->dl[0], t->dl[1], t->pb[0], t->pb[1], t->pe[0], t->pe[1], t->bias ? " bias" : "",
             t->residual ? " res" : "", (int)t->act);
    const int64_t kk = (int64_t)t->k[0] * t->k[1], ny_plain = N * C * oh * ow;
    float *x = new_rand(N * C * t->h * t->w), *w = new_rand(C * kk);
    float *b = t->bias ? new_rand(C) : NULL, *z = t->residual ? new_rand(ny_plain) : NULL;
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, ny_plain, &yref, &yscale);

    pz_conv16c_desc d;
    int rc = pz_dwconvk16c_init(&d, &p, xd, yd);
    check(rc == 0, what);
    if (rc) goto out;
    int64_t nx = pz_nchwxc_size(N, C, t->h, t->w, 16), ny = pz_nchwxc_size(N, C, oh, ow, 16);
    float *x16 = new_nan(nx), *z16 = z ? new_nan(ny) : NULL, *wp = new_nan(pz_dwk16c_weights_size(&d));
    float *bp = b ? new_nan(pz_pack_bias16_size(C)) : NULL;
    pz_f32_nchw_to_nchwxc(N, C, t->h, t->w, 16, x, x16, 0, 1);
    if (z) pz_f32_nchw_to_nchwxc(N, C, oh, ow, 16, z, z16, 0, 1);
    pz_dwk16c_pack_weights(&d, w, wp);
    if (b) pz_pack_bias16(C, b, bp);
    float *ytwin = new_nan(ny), *y = new_nan(ny), *y3 = new_nan(ny), *yplain = new_nan(ny_plain);

    pz_f32_dwconvk_nchw16c__scalar(&d, x16, wp, bp, z16, ytwin, 0, 1);
    pz_f32_nchwxc_to_nchw(N, C, oh, ow, 16, ytwin, yplain, 0, 1);
    check(nerr(yplain, yref, yscale, ny_plain) <= 1e-5, what);
    for (int i = 0; i < n_isas; i++) {
        pz_conv16c_fn fn = pz_dwconvk16c_kernel_for(ISAS[i]->isa);
        fill_nan(y, ny);
        fill_nan(y3, ny);
        fn(&d, x16, wp, bp, z16, y, 0, 1);
        for (int ith = 0; ith < 3; ith++) fn(&d, x16, wp, bp, z16, y3, ith, 3);
        const bool lanes = pad_lanes_zero(y, ny, C, oh * ow);
        char w2[300];
        snprintf(w2, sizeof w2, "%s %s: the twin's bits, lanes, nth 3", what, ISAS[i]->name);
        check(memcmp(y, ytwin, (size_t)ny * sizeof *y) == 0 && lanes &&
                  memcmp(y, y3, (size_t)ny * sizeof *y) == 0, w2);
    }
    free(x16); free(z16); free(wp); free(bp); free(ytwin); free(y); free(y3); free(yplain);
out:
    free(x); free(w); free(b); free(z); free(yref); free(yscale);
}

static void test_dwk(void)
{
    /* kernels (EfficientNet's and MobileNetV3's 5x5, ConvNeXt's 7x7, dilated
     * 3x3, non-square), output widths across the 8-pixel tile, strides 1
     * and 2, pads 0..3 on each side, partial channel blocks */
    static const int K[][4] = {{5, 5, 1, 1}, {7, 7, 1, 1}, {3, 3, 2, 2}, {1, 5, 1, 1},
                               {5, 3, 1, 2}, {3, 3, 1, 1}};
    static const int64_t CH[] = {1, 15, 16, 17, 40};
    int pat = 0;
    for (size_t ki = 0; ki < sizeof K / sizeof K[0]; ki++)
        for (int s = 1; s <= 2; s++)
            for (int64_t wd = 1; wd <= 33; wd += 2) {
                dwk_case t = {.c = CH[pat % 5], .h = 3 + pat % 9, .w = wd,
                              .k = {K[ki][0], K[ki][1]}, .s = {s, s}, .dl = {K[ki][2], K[ki][3]},
                              .pb = {pat % 4, (pat / 4) % 4}, .pe = {(pat / 2) % 4, (pat / 3) % 4},
                              .bias = pat % 3 != 1, .residual = pat % 4 == 2,
                              .act = (pz_act_kind)(pat % 3)};
                pat++;
                run_dwk_case(&t);
            }
}

/* ---- FC (GEMV) --------------------------------------------------------------- */

static void run_fc_case(int64_t N, int64_t K, int cmode, float alpha, pz_act_kind act)
{
    /* cmode: 0 none, 1 bias (row vector), 2 scalar */
    float *a = new_rand(K), *b = new_rand(K * N), *c = new_rand(N);
    int64_t csn = cmode == 1 ? 1 : 0;
    pz_gemm_params gp = {.trans_b = 1, .alpha = alpha, .beta = 1.0f,
                         .act = {.kind = act, .lo = -0.25f, .hi = 0.5f}};
    float *yref = new_nan(N), *yscale = new_nan(N);
    pz_f32_gemm__ref(&gp, 1, N, K, a, b, cmode ? c : NULL, 0, csn, yref, 0, 1);
    pz_gemm_params gn = gp;
    gn.act.kind = PZ_ACT_NONE;
    pz_f32_gemm__ref(&gn, 1, N, K, a, b, cmode ? c : NULL, 0, csn, yscale, 0, 1);
    float *bp = new_nan(pz_gemm_packed_b_size(K, N));
    pz_gemm_pack_b(K, N, b, 1, alpha, bp);
    pz_gemm_desc g = {.m = 1, .n = N, .k = K, .lda = K, .ldy = N, .c = cmode ? c : NULL,
                      .csm = 0, .csn = csn, .beta = 1.0f, .act = gp.act};
    float *y = new_nan(N), *y3 = new_nan(N), *yg = new_nan(N);
    char what[160];
    for (int i = 0; i < n_isas; i++) {
        const pz_fast_kernels *k = ISAS[i];
        for (int64_t e = 0; e < N; e++) y[e] = y3[e] = yg[e] = NAN;
        k->gemv(&g, a, bp, y, 0, 1);
        for (int ith = 0; ith < 3; ith++) k->gemv(&g, a, bp, y3, ith, 3);
        for (int ith = 0; ith < 2; ith++) k->gemm(&g, a, bp, yg, ith, 2);
        snprintf(what, sizeof what, "fc %s N%lld K%lld c%d alpha%g act%d", ISAS[i]->name,
                 (long long)N, (long long)K, cmode, alpha, (int)act);
        check(nerr(y, yref, yscale, N) <= 1e-5, what);
        snprintf(what + strlen(what), sizeof what - strlen(what), " nth 3, gemm m=1");
        check(memcmp(y, y3, (size_t)N * sizeof *y) == 0 &&
              memcmp(y, yg, (size_t)N * sizeof *y) == 0, what);
    }
    free(a); free(b); free(c); free(yref); free(yscale); free(bp); free(y); free(y3); free(yg);
}

static void test_fc(void)
{
    static const int64_t NS[] = {1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 1000};
    static const int64_t KS[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 255, 513};
    int pat = 0;
    for (size_t ni = 0; ni < sizeof NS / sizeof NS[0]; ni++)
        for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++, pat++)
            run_fc_case(NS[ni], KS[ki], pat % 3, pat % 4 ? 1.0f : 0.5f, (pz_act_kind)(pat % 3));
    run_fc_case(1000, 512, 1, 1.0f, PZ_ACT_NONE);    /* ResNet-18 fc */
    run_fc_case(1000, 1280, 1, 1.0f, PZ_ACT_NONE);   /* MobileNetV2 classifier */
    run_fc_case(4096, 1024, 1, 1.0f, PZ_ACT_RELU);   /* AlexNet/VGG fc7, K cut */
}

int main(void)
{
    n_isas = fast_kernels_here(ISAS);
    test_dw();
    test_dwk();
    test_fc();
    return test_summary("rt_dwfc");
}
