/* rt_conv_frames.c - 1-D and 3-D convs on the 2-D fast conv, a conv2d per
 * output frame (rt/kernels/conv/conv_frames.h), against the plain
 * reference convolution (pz_f32_conv__ref), over:
 *   1-D: Whisper/wav2vec-like shapes (80 -> 256 k3, 1 -> 16 k10 s5), a
 *     dilation, stride 2, pads unequal, batch 2;
 *   3-D: a video stem (3 channels, 3x7x7, stride 1,2,2: stacked taps), 5
 *     channels x 3 taps (15: stacked), 16 and 20 channels (whole blocks,
 *     20 padded to 32 between taps), a temporal stride 2, kT 1, pads in T;
 *   depthwise (group == C == M): a conformer's k31 (256 channels), odd
 *     channels (20, 33) with stride 2 and dilation 2, 3-D 3x3x3 (dwconv3x3
 *     per tap) and 5x5 (dwconvk), kT 1, a temporal stride, dilation and
 *     pads (taps in the zero frames), batch 2;
 *   grouped (1 < group < C, by super-groups of whole blocks): 16 channels
 *     a group, 8 (two groups a super-group), a last super-group of one
 *     group, 16 -> 24 a group, 1-D and 3-D, PReLU's slopes per super-group;
 *   with and without bias, residual, and the acts RELU, PRELU, SIGMOID;
 * on every kernel set this CPU has (scalar twin, AVX2, AVX-512), on 1
 * worker and on 3 threads (the barriers between blocking, the convs and
 * unblocking), on NaN-filled outputs. Errors against the reference are
 * normalised by max |ref before the activation|, bound 1e-5. Also which
 * convs pz_conv_frames_takes.
 *
 * Prints `rt_conv_frames: P passed, F failed`; exits 1 on a failure.
 */
#include <stdio.h>

#include "rt/kernels/conv/conv_frames.h"
#include "rt_test.h"

typedef struct {
    int rank;
    int64_t n, c, m, sp[3];          /* spatial input sizes (1-D: sp[0]) */
    int64_t k[3], s[3], d[3], pb[3], pe[3];
    bool bias, residual;
    pz_act_kind act;
    bool dw;                         /* depthwise: group = C = M */
    int64_t g;                       /* else groups (0: 1) */
} fcase;

typedef struct {
    const pz_conv_frames *f;
    const float *x, *z;
    float *y;
    void *scratch;
    int64_t n;                       /* the run's images */
} job;

static void work(void *ctx, int ith, int nth)
{
    job *j = ctx;
    pz_conv_frames_run(j->f, j->n, j->x, j->z, j->y, j->scratch, ith, nth);
}

static void run_case(const fcase *t)
{
    const int nsp = t->rank - 2;
    const int64_t group = t->dw ? t->c : t->g ? t->g : 1;
    pz_conv_params p = {.nsp = nsp, .group = group};
    int64_t xd[5] = {t->n, t->c}, yd[5] = {t->n, t->m}, nx = t->n * t->c, ny = t->n * t->m;
    int64_t nw = t->m * (t->c / group);
    for (int j = 0; j < nsp; j++) {
        p.kernel[j] = t->k[j], p.stride[j] = t->s[j], p.dilation[j] = t->d[j];
        p.pad_begin[j] = t->pb[j], p.pad_end[j] = t->pe[j];
        xd[2 + j] = t->sp[j];
        yd[2 + j] = (t->sp[j] + t->pb[j] + t->pe[j] - t->d[j] * (t->k[j] - 1) - 1) / t->s[j] + 1;
        nx *= xd[2 + j], ny *= yd[2 + j], nw *= t->k[j];
    }
    float *slope = new_rand(t->m);
    p.act.kind = t->act;
    p.act.slope = slope;
    float *x = new_rand(nx), *w = new_rand(nw), *b = t->bias ? new_rand(t->m) : NULL;
    float *z = t->residual ? new_rand(ny) : NULL, *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, ny, &yref, &yscale);
    char what[200];
    snprintf(what, sizeof what, "rank %d%s G%lld N%lld C%lld M%lld k%lld s%lld%s%s act%d",
             t->rank, t->dw ? " depthwise" : "", (long long)group, (long long)t->n, (long long)t->c, (long long)t->m,
             (long long)t->k[0], (long long)t->s[0], t->bias ? " bias" : "",
             t->residual ? " residual" : "", (int)t->act);
    check(pz_conv_frames_takes(&p, t->rank, xd, yd), what);
    const pz_isa isas[3] = {PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX512};
    const bool have[3] = {true, cpu_has_avx2(), cpu_has_avx512()};
    for (int i = 0; i < 3; i++) {
        if (!have[i]) continue;
        pz_conv_frames *f;
        if (pz_conv_frames_make(&f, &p, t->rank, xd, yd, w, b, isas[i], i & 1)) {
            check(false, what);
            continue;
        }
        f->d.act.slope = slope;   /* as the conv layer sets it */
        void *scratch = malloc(pz_conv_frames_scratch_bytes(f, z != NULL));
        for (int nth = 1; nth <= 3; nth += 2) {
            float *y = new_nan(ny);
            job j = {f, x, z, y, scratch, t->n};
            rt_run_threads(work, &j, nth);
            char wi[260];
            double e = nerr(y, yref, yscale, ny);
            snprintf(wi, sizeof wi, "%s isa %d threads %d: error %.3g", what, (int)isas[i], nth, e);
            check(e <= 1e-5, wi);
            if (t->n > 1) {   /* a dynamic region's run: N - 1 images, the last untouched */
                float *yp = new_nan(ny);
                job jp = {f, x, z, yp, scratch, t->n - 1};
                rt_run_threads(work, &jp, nth);
                snprintf(wi, sizeof wi, "%s isa %d threads %d: n = N - 1 bitwise, the rest "
                         "untouched", what, (int)isas[i], nth);
                check(first_images_only(y, yp, ny, t->n), wi);
                free(yp);
            }
            free(y);
        }
        free(scratch);
        pz_conv_frames_free(f);
    }
    free(x), free(w), free(b), free(z), free(yref), free(yscale), free(slope);
}

int main(void)
{
    const fcase cases[] = {
        /* 1-D */
        {3, 1, 80, 256, {300}, {3}, {1}, {1}, {1}, {1}, true, false, PZ_ACT_RELU, false, 0},
        {3, 1, 1, 16, {64}, {10}, {5}, {1}, {0}, {0}, false, false, PZ_ACT_NONE, false, 0},
        {3, 2, 3, 20, {50}, {5}, {2}, {1}, {2}, {1}, true, true, PZ_ACT_PRELU, false, 0},
        {3, 1, 17, 33, {33}, {3}, {1}, {2}, {2}, {2}, true, false, PZ_ACT_SIGMOID, false, 0},
        {3, 1, 40, 8, {7}, {7}, {1}, {1}, {3}, {3}, false, true, PZ_ACT_RELU, false, 0},
        /* 3-D */
        {5, 1, 3, 16, {8, 20, 20}, {3, 7, 7}, {1, 2, 2}, {1, 1, 1}, {1, 3, 3}, {1, 3, 3}, true,
         false, PZ_ACT_RELU, false, 0},
        {5, 1, 5, 16, {6, 8, 8}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false,
         true, PZ_ACT_NONE, false, 0},
        {5, 1, 16, 24, {4, 9, 9}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, true,
         true, PZ_ACT_RELU, false, 0},
        {5, 2, 20, 17, {5, 6, 7}, {3, 1, 1}, {2, 1, 1}, {1, 1, 1}, {1, 0, 0}, {2, 0, 0}, true,
         false, PZ_ACT_PRELU, false, 0},
        {5, 1, 32, 32, {3, 5, 5}, {1, 3, 3}, {1, 1, 1}, {1, 2, 1}, {0, 2, 1}, {0, 2, 1}, false,
         false, PZ_ACT_SIGMOID, false, 0},
        {5, 1, 18, 16, {7, 4, 4}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {0, 1, 1}, {0, 0, 1}, true,
         true, PZ_ACT_RELU, false, 0},
        /* depthwise 1-D */
        {3, 1, 256, 256, {200}, {31}, {1}, {1}, {15}, {15}, true, false, PZ_ACT_NONE, true, 0},
        {3, 2, 20, 20, {41}, {5}, {2}, {2}, {3}, {1}, true, true, PZ_ACT_PRELU, true, 0},
        {3, 1, 33, 33, {17}, {3}, {1}, {1}, {1}, {1}, false, false, PZ_ACT_SIGMOID, true, 0},
        /* depthwise 3-D: 3x3 taps (dwconv3x3), 5x5 (dwconvk), kT 1 */
        {5, 1, 24, 24, {5, 9, 9}, {3, 3, 3}, {1, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, true,
         true, PZ_ACT_RELU, true, 0},
        {5, 2, 17, 17, {6, 7, 6}, {3, 5, 5}, {2, 1, 1}, {2, 1, 1}, {3, 2, 2}, {2, 2, 2}, true,
         false, PZ_ACT_PRELU, true, 0},
        {5, 1, 16, 16, {3, 6, 6}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 1, 1}, {0, 1, 1}, false,
         true, PZ_ACT_NONE, true, 0},
        {5, 1, 32, 32, {2, 5, 5}, {4, 3, 3}, {1, 1, 1}, {1, 1, 1}, {2, 1, 1}, {2, 1, 1}, true,
         false, PZ_ACT_SIGMOID, true, 0},
        /* grouped: 16 channels a group (super-groups of 1), 8 (of 2), 24 out of 16 in
         * (2 groups: one super-group), a last super-group of 1 group of 2 */
        {3, 1, 64, 64, {40}, {3}, {1}, {1}, {1}, {1}, true, false, PZ_ACT_RELU, false, 4},
        {3, 2, 48, 48, {33}, {5}, {2}, {1}, {2}, {2}, true, true, PZ_ACT_PRELU, false, 6},
        {3, 1, 32, 48, {20}, {3}, {1}, {2}, {2}, {2}, false, false, PZ_ACT_NONE, false, 2},
        {5, 2, 40, 40, {4, 6, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, true,
         true, PZ_ACT_PRELU, false, 5},
        {5, 1, 48, 48, {7, 5, 5}, {3, 1, 1}, {2, 1, 1}, {2, 1, 1}, {2, 0, 0}, {1, 0, 0}, true,
         false, PZ_ACT_SIGMOID, false, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    /* what the path does not take: groups the super-group rule does not
     * (2 channels a group: 8 groups a super-group), a temporal dilation of
     * a dense conv, 2-D, depthwise taps over 64 in a frame */
    pz_conv_params p = {.nsp = 3, .group = 2, .kernel = {3, 3, 3}, .stride = {1, 1, 1},
                        .dilation = {1, 1, 1}};
    int64_t xd[5] = {1, 16, 4, 8, 8}, yd[5] = {1, 16, 2, 6, 6};
    check(pz_conv_frames_takes(&p, 5, xd, yd), "group 2 of 8 channels taken");
    xd[1] = yd[1] = 6, p.group = 3;
    check(!pz_conv_frames_takes(&p, 5, xd, yd), "group 3 of 2 channels not taken");
    xd[1] = yd[1] = 16;
    p.group = 16;
    check(pz_conv_frames_takes(&p, 5, xd, yd), "depthwise taken");
    yd[1] = 32;
    check(!pz_conv_frames_takes(&p, 5, xd, yd), "depthwise x2 multiplier not taken");
    yd[1] = 16;
    p.kernel[1] = p.kernel[2] = 9;
    check(!pz_conv_frames_takes(&p, 5, xd, yd), "depthwise 9x9 frames not taken");
    p.kernel[1] = p.kernel[2] = 3;
    p.group = 1;
    p.dilation[0] = 2;
    check(!pz_conv_frames_takes(&p, 5, xd, yd), "temporal dilation 2 not taken");
    p.dilation[0] = 1;
    check(pz_conv_frames_takes(&p, 5, xd, yd), "3-D group 1 taken");
    p.nsp = 2;
    check(!pz_conv_frames_takes(&p, 4, xd, yd), "2-D not taken");
    pz_conv_params q = {.nsp = 1, .group = 1, .kernel = {65}, .stride = {1}, .dilation = {1}};
    int64_t xq[3] = {1, 8, 100}, yq[3] = {1, 8, 36};
    check(pz_conv_frames_takes(&q, 3, xq, yq), "1-D k65 taken (im2col: rt_conv_im2col.c)");
    q.kernel[0] = 64, yq[2] = 37;
    check(pz_conv_frames_takes(&q, 3, xq, yq), "1-D k64 taken");
    return test_summary("rt_conv_frames");
}
