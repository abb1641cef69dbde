/* rt_deconv_phases.c - ConvTranspose1d as s stride-1 convs on the 2-D fast
 * conv, one per output phase (rt/kernels/conv/deconv_phases.h), against
 * the reference transposed conv (pz_f32_conv_transpose__ref), over:
 *   HiFi-GAN-like k16 s8 p4, k4 s2 p1, k5 s3 with output_padding 2 (a
 *   longer Y), k3 s1 p2, k = s (no overlap), few channels (3 in, 3 out),
 *   odd ones (17, 20), batch 2, with and without bias, ReLU;
 * on every kernel set this CPU has (scalar twin, AVX2, AVX-512), on 1
 * worker and on 3 threads, on NaN-filled outputs; error normalised by max
 * |ref before the ReLU|, bound 1e-5. Also which convs it takes, and that
 * the reference and its k = s fast twins apply the params' ReLU and Clip
 * (the layer accepts them): each equal to the act-less reference clamped.
 * 2-D (ConvTranspose2d as sh * sw phases): k4 s2 p1, k3 s2 p1 op1, k2 s2,
 * k5x3 s3x2, 3 in or 3 out channels, batch 2, with Clip and bias; groups
 * of whole 16-channel blocks (1-D and 2-D); 2-D dilation 2 and 3.
 * 3-D (ConvTranspose3d as a 2-D one per output frame, deconv_frames.h):
 * k3 s2 p1 op1, k2 s2, temporal-only k4 s2, T stride 1, batch 2.
 *
 * Prints `rt_deconv_phases: P passed, F failed`; exits 1 on a failure.
 */
#include <stdio.h>
#include <string.h>

#include "rt/kernels/conv/deconv_frames.h"
#include "rt/kernels/conv/deconv_phases.h"
#include "rt/kernels/twins_fast.h"
#include "rt_test.h"

typedef struct {
    int64_t n, c, m, l, k, s, pb, pe, opad;
    bool bias, relu;
    int g;   /* groups (0: 1) */
} dcase;

typedef struct {
    const pz_deconv_phases *f;    /* 1-D and 2-D */
    const pz_deconv_frames *f3;   /* 3-D */
    const float *x;
    float *y;
    void *scratch;
    int64_t n;                    /* 3-D: the run's images */
} job;

static void work(void *ctx, int ith, int nth)
{
    job *j = ctx;
    if (j->f3)
        pz_deconv_frames_run(j->f3, j->n, j->x, j->y, j->scratch, ith, nth);
    else
        pz_deconv_phases_run(j->f, j->x, j->y, j->scratch, ith, nth);
}

/* the phases of params p (3-D: deconv_frames) on every kernel set this CPU has, at 1 and 3
 * threads, each within 1e-5 of yref (normalised by max |yscale|) */
static void phases_on_every_isa(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                                const float *x, const float *w, const float *b, const float *yref,
                                const float *yscale, int64_t ny, const char *what)
{
    const pz_isa isas[3] = {PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX512};
    const bool have[3] = {true, cpu_has_avx2(), cpu_has_avx512()};
    for (int i = 0; i < 3; i++) {
        if (!have[i]) continue;
        pz_deconv_phases *f = NULL;
        pz_deconv_frames *f3 = NULL;
        if (p->nsp == 3 ? pz_deconv_frames_make(&f3, p, xd, yd, w, b, isas[i])
                        : pz_deconv_phases_make(&f, p, xd, yd, w, b, isas[i])) {
            check(false, what);
            continue;
        }
        void *scratch = malloc(f3 ? pz_deconv_frames_scratch_bytes(f3)
                                  : pz_deconv_phases_scratch_bytes(f));
        for (int nth = 1; nth <= 3; nth += 2) {
            float *y = new_nan(ny);
            job j = {f, f3, x, y, scratch, xd[0]};
            rt_run_threads(work, &j, nth);
            char wi[280];
            double e = nerr(y, yref, yscale, ny);
            snprintf(wi, sizeof wi, "%s isa %d threads %d: error %.3g", what, (int)isas[i], nth, e);
            check(e <= 1e-5, wi);
            if (f3 && xd[0] > 1) {   /* a dynamic region's run: N - 1 images, the last untouched */
                float *yp = new_nan(ny);
                job jp = {f, f3, x, yp, scratch, xd[0] - 1};
                rt_run_threads(work, &jp, nth);
                snprintf(wi, sizeof wi, "%s isa %d threads %d: n = N - 1 bitwise, the rest "
                         "untouched", what, (int)isas[i], nth);
                check(first_images_only(y, yp, ny, xd[0]), wi);
                free(yp);
            }
            free(y);
        }
        free(scratch);
        pz_deconv_phases_free(f);
        pz_deconv_frames_free(f3);
    }
}

static void run_case(const dcase *t)
{
    const int g = t->g ? t->g : 1;
    pz_conv_params p = {.nsp = 1, .group = g, .kernel = {t->k}, .stride = {t->s},
                        .dilation = {1}, .pad_begin = {t->pb}, .pad_end = {t->pe}};
    const int64_t ol = (t->l - 1) * t->s - t->pb - t->pe + t->k + t->opad;
    int64_t xd[3] = {t->n, t->c, t->l}, yd[3] = {t->n, t->m, ol};
    const int64_t nx = t->n * t->c * t->l, ny = t->n * t->m * ol;
    float *x = new_rand(nx), *w = new_rand(t->c * t->m / g * t->k);
    float *b = t->bias ? new_rand(t->m) : NULL;
    float *yscale = new_nan(ny), *yref = new_nan(ny);
    pz_f32_conv_transpose__ref(&p, xd, yd, x, w, b, yscale, 0, 1);
    p.act.kind = t->relu ? PZ_ACT_RELU : PZ_ACT_NONE;   /* the reference has no act */
    for (int64_t i = 0; i < ny; i++) yref[i] = t->relu && yscale[i] < 0 ? 0.0f : yscale[i];
    char what[160];
    snprintf(what, sizeof what, "N%lld C%lld M%lld L%lld k%lld s%lld p%lld/%lld op%lld g%d%s%s",
             (long long)t->n, (long long)t->c, (long long)t->m, (long long)t->l, (long long)t->k,
             (long long)t->s, (long long)t->pb, (long long)t->pe, (long long)t->opad, g,
             t->bias ? " bias" : "", t->relu ? " relu" : "");
    check(pz_deconv_phases_takes(&p, 3, xd, yd), what);
    phases_on_every_isa(&p, xd, yd, x, w, b, yref, yscale, ny, what);
    free(x), free(w), free(b), free(yscale), free(yref);
}

/* the cases' Clip(-0.5, 0.75), or v when clip is false */
static float clip_ref(bool clip, float v)
{
    return !clip ? v : v < -0.5f ? -0.5f : v > 0.75f ? 0.75f : v;
}

typedef struct {
    int64_t n, c, m, h, w, kh, kw, sh, sw, pt, pl, pb, pr, oph, opw;
    bool bias, clip;
    int g;   /* groups (0: 1) */
    int d;   /* dilation on both axes (0: 1) */
} dcase2;

/* ConvTranspose2d as sh * sw phases against the reference, as run_case */
static void run_case2(const dcase2 *t)
{
    const int g = t->g ? t->g : 1, dl = t->d ? t->d : 1;
    pz_conv_params p = {.nsp = 2, .group = g, .kernel = {(int)t->kh, (int)t->kw},
                        .stride = {(int)t->sh, (int)t->sw}, .dilation = {dl, dl},
                        .pad_begin = {(int)t->pt, (int)t->pl}, .pad_end = {(int)t->pb, (int)t->pr}};
    const int64_t oh = (t->h - 1) * t->sh - t->pt - t->pb + (t->kh - 1) * dl + 1 + t->oph;
    const int64_t ow = (t->w - 1) * t->sw - t->pl - t->pr + (t->kw - 1) * dl + 1 + t->opw;
    int64_t xd[4] = {t->n, t->c, t->h, t->w}, yd[4] = {t->n, t->m, oh, ow};
    const int64_t nx = t->n * t->c * t->h * t->w, ny = t->n * t->m * oh * ow;
    float *x = new_rand(nx), *w = new_rand(t->c * t->m / g * t->kh * t->kw);
    float *b = t->bias ? new_rand(t->m) : NULL, *yscale = new_nan(ny), *yref = new_nan(ny);
    pz_f32_conv_transpose__ref(&p, xd, yd, x, w, b, yscale, 0, 1);
    if (t->clip) p.act.kind = PZ_ACT_CLIP, p.act.lo = -0.5f, p.act.hi = 0.75f;
    for (int64_t i = 0; i < ny; i++)
        yref[i] = clip_ref(t->clip, yscale[i]);
    char what[200];
    snprintf(what, sizeof what,
             "2-D N%lld C%lld M%lld %lldx%lld k%lldx%lld s%lldx%lld p%lld,%lld/%lld,%lld "
             "op%lld,%lld g%d d%d%s%s",
             (long long)t->n, (long long)t->c, (long long)t->m, (long long)t->h,
             (long long)t->w, (long long)t->kh, (long long)t->kw, (long long)t->sh,
             (long long)t->sw,
             (long long)t->pt, (long long)t->pl, (long long)t->pb, (long long)t->pr,
             (long long)t->oph, (long long)t->opw, g, dl, t->bias ? " bias" : "", t->clip ? " clip" : "");
    check(pz_deconv_phases_takes(&p, 4, xd, yd), what);
    phases_on_every_isa(&p, xd, yd, x, w, b, yref, yscale, ny, what);
    free(x), free(w), free(b), free(yscale), free(yref);
}

typedef struct {
    int64_t n, c, m, t, h, w, kt, kh, kw, st, sh, sw, pt, ph, pw, opt, oph, opw;
    bool bias, clip;
} dcase3;

/* ConvTranspose3d as a 2-D one per output frame (deconv_frames.c) against
 * the reference, symmetric pads, on every ISA at 1 and 3 threads */
static void run_case3(const dcase3 *t)
{
    pz_conv_params p = {.nsp = 3, .group = 1, .kernel = {(int)t->kt, (int)t->kh, (int)t->kw},
                        .stride = {(int)t->st, (int)t->sh, (int)t->sw}, .dilation = {1, 1, 1},
                        .pad_begin = {(int)t->pt, (int)t->ph, (int)t->pw},
                        .pad_end = {(int)t->pt, (int)t->ph, (int)t->pw}};
    const int64_t ot = (t->t - 1) * t->st - 2 * t->pt + t->kt + t->opt;
    const int64_t oh = (t->h - 1) * t->sh - 2 * t->ph + t->kh + t->oph;
    const int64_t ow = (t->w - 1) * t->sw - 2 * t->pw + t->kw + t->opw;
    int64_t xd[5] = {t->n, t->c, t->t, t->h, t->w}, yd[5] = {t->n, t->m, ot, oh, ow};
    const int64_t nx = t->n * t->c * t->t * t->h * t->w, ny = t->n * t->m * ot * oh * ow;
    float *x = new_rand(nx), *w = new_rand(t->c * t->m * t->kt * t->kh * t->kw);
    float *b = t->bias ? new_rand(t->m) : NULL, *yscale = new_nan(ny), *yref = new_nan(ny);
    pz_f32_conv_transpose__ref(&p, xd, yd, x, w, b, yscale, 0, 1);
    if (t->clip) p.act.kind = PZ_ACT_CLIP, p.act.lo = -0.5f, p.act.hi = 0.75f;
    for (int64_t i = 0; i < ny; i++)
        yref[i] = clip_ref(t->clip, yscale[i]);
    char what[200];
    snprintf(what, sizeof what,
             "3-D N%lld C%lld M%lld %lldx%lldx%lld k%lldx%lldx%lld s%lldx%lldx%lld "
             "p%lld,%lld,%lld op%lld,%lld,%lld%s%s", (long long)t->n, (long long)t->c,
             (long long)t->m, (long long)t->t, (long long)t->h, (long long)t->w, (long long)t->kt,
             (long long)t->kh, (long long)t->kw, (long long)t->st, (long long)t->sh,
             (long long)t->sw,
             (long long)t->pt, (long long)t->ph, (long long)t->pw, (long long)t->opt,
             (long long)t->oph, (long long)t->opw, t->bias ? " bias" : "", t->clip ? " clip" : "");
    check(pz_deconv_frames_takes(&p, 5, xd, yd), what);
    phases_on_every_isa(&p, xd, yd, x, w, b, yref, yscale, ny, what);
    free(x), free(w), free(b), free(yscale), free(yref);
}

/* the act of a 2-D k = s = 2 transposed conv on the reference and its
 * fast twins: bitwise the act-less reference, clamped */
static void act_case(pz_act_kind kind)
{
    pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {2, 2}, .stride = {2, 2},
                        .dilation = {1, 1}};
    int64_t xd[4] = {1, 5, 6, 7}, yd[4] = {1, 4, 12, 14};
    const int64_t ny = 4 * 12 * 14;
    float *x = new_rand(5 * 6 * 7), *w = new_rand(5 * 4 * 4), *b = new_rand(4);
    float *y0 = new_nan(ny), *want = new_nan(ny);
    pz_f32_conv_transpose__ref(&p, xd, yd, x, w, b, y0, 0, 1);
    p.act.kind = kind, p.act.lo = -0.25f, p.act.hi = 0.5f;
    for (int64_t i = 0; i < ny; i++)
        want[i] = kind == PZ_ACT_RELU ? (y0[i] < 0 ? 0.0f : y0[i])
                                      : (y0[i] < -0.25f ? -0.25f : y0[i] > 0.5f ? 0.5f : y0[i]);
    check(pz_conv_transpose_fast_takes(&p, xd, yd), "k = s = 2: the fast twin takes it");
    typedef void (*fn)(const pz_conv_params *, const int64_t *, const int64_t *, const float *,
                       const float *, const float *, float *, int, int);
    const fn fns[3] = {pz_f32_conv_transpose__ref, pz_f32_conv_transpose__fast,
#ifndef PZ_SCALAR
                       cpu_has_avx512() ? pz_f32_conv_transpose__fast_avx512 : NULL};
#else
                       NULL};
#endif
    const char *names[3] = {"ref", "fast", "fast_avx512"};
    for (int i = 0; i < 3; i++) {
        if (!fns[i]) continue;
        float *y = new_nan(ny);
        fns[i](&p, xd, yd, x, w, b, y, 0, 1);
        char what[96];
        snprintf(what, sizeof what, "conv_transpose %s with %s: the act-less reference clamped",
                 names[i], kind == PZ_ACT_RELU ? "ReLU" : "Clip");
        check(memcmp(y, want, sizeof(float) * (size_t)ny) == 0, what);
        free(y);
    }
    free(x), free(w), free(b), free(y0), free(want);
}

int main(void)
{
    act_case(PZ_ACT_RELU);
    act_case(PZ_ACT_CLIP);
    const dcase cases[] = {
        {1, 64, 32, 23, 16, 8, 4, 4, 0, true, true, 1},
        {2, 20, 17, 19, 4, 2, 1, 1, 0, true, false, 1},
        {1, 17, 20, 11, 5, 3, 0, 0, 2, false, true, 1},
        {1, 3, 3, 30, 3, 1, 2, 2, 0, true, false, 1},
        {2, 16, 16, 9, 2, 2, 0, 0, 0, false, false, 1},
        {1, 40, 24, 7, 11, 5, 3, 2, 1, true, true, 1},
        {2, 64, 32, 13, 4, 2, 1, 1, 0, true, true, 2},   /* 2 groups of 32 in, 16 out */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    /* DCGAN's k4 s2 p1, k3 s2 p1 op1 (autoencoders), k2 s2 (U-Net), an
     * uneven k5x3 s3x2, few and odd channels, batch 2 */
    const dcase2 cases2[] = {
        {1, 64, 32, 8, 8, 4, 4, 2, 2, 1, 1, 1, 1, 0, 0, true, true, 1, 1},
        {2, 20, 17, 7, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false, 1, 1},
        {1, 32, 16, 6, 5, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, false, false, 1, 1},
        {1, 17, 3, 5, 6, 5, 3, 3, 2, 2, 1, 1, 0, 1, 0, true, true, 1, 1},
        {1, 3, 24, 4, 4, 4, 4, 2, 2, 0, 0, 0, 0, 0, 0, true, false, 1, 1},
        {1, 16, 16, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, false, false, 1, 1},
        /* groups: 4 of 16 in and 16 out (k4 s2 p1), 2 of 32 in and 16 out, batch 2 */
        {1, 64, 64, 7, 6, 4, 4, 2, 2, 1, 1, 1, 1, 0, 0, true, true, 4, 1},
        {2, 64, 32, 5, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, false, 2, 1},
        /* dilated: k3 d2 s2 p2 op1 (a dilated decoder's), k3 d3 s2, odd channels */
        {1, 32, 32, 6, 7, 3, 3, 2, 2, 2, 2, 2, 2, 1, 1, true, true, 1, 2},
        {1, 20, 17, 5, 4, 3, 2, 2, 2, 3, 1, 1, 0, 0, 1, true, false, 1, 3},
    };
    for (size_t i = 0; i < sizeof cases2 / sizeof cases2[0]; i++) run_case2(&cases2[i]);
    /* 3-D U-Net's k3 s2 p1 op1 and k2 s2 (V-Net), a temporal-only k4 s2 p1,
     * T stride 1 with a pad, odd channels, batch 2 */
    const dcase3 cases3[] = {
        {1, 20, 16, 4, 5, 6, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, true, true},
        {2, 16, 8, 3, 4, 4, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, false, false},
        {1, 17, 19, 5, 3, 4, 4, 1, 1, 2, 1, 1, 1, 0, 0, 0, 0, 0, true, false},
        {1, 8, 12, 4, 4, 5, 3, 4, 4, 1, 2, 2, 1, 1, 1, 0, 0, 0, true, true},
    };
    for (size_t i = 0; i < sizeof cases3 / sizeof cases3[0]; i++) run_case3(&cases3[i]);
    int64_t xd[3] = {1, 8, 10}, yd[3] = {1, 8, 20};
    pz_conv_params p = {.nsp = 1, .group = 1, .kernel = {1}, .stride = {2}, .dilation = {1}};
    check(!pz_deconv_phases_takes(&p, 3, xd, yd), "k < s not taken");
    p.kernel[0] = 4, p.group = 2;
    check(!pz_deconv_phases_takes(&p, 3, xd, yd), "group 2 of 4 channels not taken");
    int64_t xg[3] = {1, 64, 10}, yg[3] = {1, 32, 20};
    check(pz_deconv_phases_takes(&p, 3, xg, yg), "group 2 of 32 in, 16 out taken");
    yg[1] = 48;
    check(!pz_deconv_phases_takes(&p, 3, xg, yg), "group 2 of 24 out not taken");
    p.group = 1, p.dilation[0] = 2;
    check(!pz_deconv_phases_takes(&p, 3, xd, yd), "dilation 2 not taken");
    p.dilation[0] = 1;
    check(pz_deconv_phases_takes(&p, 3, xd, yd), "k4 s2 taken");
    p.kernel[0] = 130;
    check(!pz_deconv_phases_takes(&p, 3, xd, yd), "k130 s2 not taken (65 taps a phase)");
    p.kernel[0] = 4;
    check(!pz_deconv_phases_takes(&p, 4, xd, yd), "2-D params of rank 3 not taken");
    pz_conv_params q = {.nsp = 2, .group = 1, .kernel = {4, 4}, .stride = {2, 2},
                        .dilation = {1, 1}, .pad_begin = {3, 1}};
    int64_t xe[4] = {1, 8, 5, 5}, ye[4] = {1, 8, 6, 8};
    check(!pz_deconv_phases_takes(&q, 4, xe, ye), "2-D pad 3 of k4 s2: a phase's pad before < 0");
    q.pad_begin[0] = 1, q.kernel[1] = 1;
    check(!pz_deconv_phases_takes(&q, 4, xe, ye), "2-D k1 < s2 on W not taken");
    return test_summary("rt_deconv_phases");
}
