/* rt_conv_im2col.c - 1-D convs with long kernels as im2col rows and one
 * packed GEMM (rt/kernels/conv/conv_im2col.h, reached through
 * conv_frames.h as the conv layer does), against the plain reference
 * convolution (pz_f32_conv__ref), over:
 *   a Silero VAD's STFT (1 -> 258, k256 s128 and k128 s64: X read in
 *     place), one channel with pads or a dilation (im2col rows), 3 channels;
 *   kernels 65 (just over conv2d's 64) .. 300, strides 1, 3, 64, 65, 128
 *     and k (no overlap), a stride over 64 with a short kernel;
 *   unequal pads, dilation 2 and 3, output channels 1, 17, 31, 32, 33, 258
 *     (the GEMM's 32-column panels), 1 .. 12 output frames, batch 1 and 2;
 *   with and without bias, residual, and the acts RELU, PRELU, SIGMOID;
 * on every GEMM this CPU has (scalar twin, AVX2, AVX-512), on 1 worker and
 * on 3 threads (the barriers between the rows, the GEMM and the
 * transpose), on NaN-filled outputs. Errors against the reference are
 * normalised by max |ref before the activation|, bound 1e-5. Also which
 * convs pz_conv_im2col_takes and the in-place rule.
 *
 * Prints `rt_conv_im2col: P passed, F failed`; exits 1 on a failure.
 */
#include <stdio.h>

#include "rt/kernels/conv/conv_frames.h"
#include "rt/kernels/conv/conv_im2col.h"
#include "rt_test.h"

typedef struct {
    int64_t n, c, m, l, k, s, d, pb, pe;
    bool bias, residual;
    pz_act_kind act;
    bool in_place;           /* expected: X read in place */
} icase;

/* One run of plan f on the workers (rt_run_threads). */
typedef struct {
    const pz_conv_im2col *f;
    const pz_act *act;
    const float *in, *res;
    float *out;
    void *scr;
} im2col_run;

static void run_on(void *ctx, int ith, int nth)
{
    const im2col_run *r = ctx;
    pz_conv_im2col_run(r->f, r->f->n, r->act, r->in, r->res, r->out, r->scr, ith, nth);
}

/* The plan of isa for case t against the reference yref on 1 and 3
 * workers: the in-place rule, then the error. */
static void check_isa(const icase *t, const pz_conv_params *p, const int64_t *xd,
                      const int64_t *yd, const float *const *xwbz, const float *yref,
                      const float *yscale, pz_isa isa, const char *what)
{
    const int64_t ny = yd[0] * yd[1] * yd[2];
    pz_conv_im2col *f = NULL;
    check(pz_conv_im2col_make(&f, p, xd, yd, xwbz[1], xwbz[2], isa, isa == PZ_ISA_AVX2) == 0,
          what);
    if (!f) return;
    char wi[260];
    snprintf(wi, sizeof wi, "%s isa %d: in place %d", what, (int)isa, (int)t->in_place);
    check(f->in_place == t->in_place, wi);
    void *scratch = malloc(pz_conv_im2col_scratch_bytes(f) + 1);
    const int threads[2] = {1, 3};
    for (int q = 0; q < 2; q++) {
        im2col_run r = {f, &p->act, xwbz[0], xwbz[3], new_nan(ny), scratch};
        rt_run_threads(run_on, &r, threads[q]);
        const double e = nerr(r.out, yref, yscale, ny);
        snprintf(wi, sizeof wi, "%s isa %d threads %d: error %.3g", what, (int)isa, threads[q], e);
        check(e <= 1e-5, wi);
        free(r.out);
    }
    free(scratch);
    pz_conv_im2col_free(f);
}

static void run_case(const icase *t)
{
    pz_conv_params p = {.nsp = 1, .group = 1, .kernel = {t->k}, .stride = {t->s},
                        .dilation = {t->d}, .pad_begin = {t->pb}, .pad_end = {t->pe}};
    const int64_t ot = (t->l + t->pb + t->pe - t->d * (t->k - 1) - 1) / t->s + 1;
    const int64_t xd[3] = {t->n, t->c, t->l}, yd[3] = {t->n, t->m, ot};
    const int64_t ny = t->n * t->m * ot;
    float *slope = new_rand(t->m);
    p.act.kind = t->act;
    p.act.slope = slope;
    float *x = new_rand(t->n * t->c * t->l), *w = new_rand(t->m * t->c * t->k);
    float *b = t->bias ? new_rand(t->m) : NULL, *z = t->residual ? new_rand(ny) : NULL;
    float *yref, *yscale;
    conv_reference(&p, xd, yd, x, w, b, z, ny, &yref, &yscale);
    char what[200];
    snprintf(what, sizeof what, "N%lld C%lld M%lld L%lld k%lld s%lld d%lld pads %lld,%lld%s%s act%d",
             (long long)t->n, (long long)t->c, (long long)t->m, (long long)t->l, (long long)t->k,
             (long long)t->s, (long long)t->d, (long long)t->pb, (long long)t->pe,
             t->bias ? " bias" : "", t->residual ? " residual" : "", (int)t->act);
    /* the conv layer reaches it through conv_frames.h */
    check(pz_conv_im2col_takes(&p, 3, xd, yd) && pz_conv_frames_takes(&p, 3, xd, yd), what);
    const float *xwbz[4] = {x, w, b, z};
    check_isa(t, &p, xd, yd, xwbz, yref, yscale, PZ_ISA_SCALAR, what);
    if (cpu_has_avx2()) check_isa(t, &p, xd, yd, xwbz, yref, yscale, PZ_ISA_AVX2, what);
    if (cpu_has_avx512()) check_isa(t, &p, xd, yd, xwbz, yref, yscale, PZ_ISA_AVX512, what);
    free(x), free(w), free(b), free(z), free(yref), free(yscale), free(slope);
}

int main(void)
{
    const icase cases[] = {
        /* Silero's STFT, 16 kHz and 8 kHz: in place */
        {1, 1, 258, 704, 256, 128, 1, 0, 0, false, false, PZ_ACT_NONE, true},
        {1, 1, 130, 352, 128, 64, 1, 0, 0, true, false, PZ_ACT_NONE, true},
        {2, 1, 33, 700, 256, 128, 1, 0, 0, true, true, PZ_ACT_RELU, true},
        {1, 1, 32, 300, 300, 1, 1, 0, 0, true, false, PZ_ACT_SIGMOID, true},
        {1, 1, 31, 400, 65, 1, 1, 0, 0, false, true, PZ_ACT_PRELU, true},
        /* the last frame ends before X does (the rest unread): in place */
        {1, 1, 17, 250, 100, 65, 1, 0, 0, true, false, PZ_ACT_NONE, true},
        /* one channel with pads or a dilation: im2col rows */
        {1, 1, 40, 500, 256, 128, 1, 128, 128, true, false, PZ_ACT_RELU, false},
        {2, 1, 1, 300, 65, 3, 2, 5, 0, false, true, PZ_ACT_NONE, false},
        {1, 1, 64, 200, 80, 7, 1, 0, 9, true, false, PZ_ACT_PRELU, false},
        /* 3 channels */
        {1, 3, 32, 400, 65, 1, 1, 0, 0, true, false, PZ_ACT_NONE, false},
        {2, 3, 33, 500, 129, 64, 1, 10, 20, true, true, PZ_ACT_SIGMOID, false},
        {1, 3, 17, 600, 200, 200, 1, 0, 0, false, false, PZ_ACT_RELU, false},
        {1, 3, 20, 700, 99, 50, 3, 33, 1, true, true, PZ_ACT_PRELU, false},
        /* a stride over 64 with a short kernel (conv2d's limit too) */
        {1, 2, 16, 400, 5, 70, 1, 2, 2, true, false, PZ_ACT_NONE, false},
        {1, 1, 48, 1000, 150, 65, 2, 0, 0, true, true, PZ_ACT_RELU, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    /* what the path does not take: 64 taps (conv2d takes them), groups, 2-D */
    pz_conv_params q = {.nsp = 1, .group = 1, .kernel = {64}, .stride = {1}, .dilation = {1}};
    int64_t xq[3] = {1, 8, 100}, yq[3] = {1, 8, 37};
    check(!pz_conv_im2col_takes(&q, 3, xq, yq), "1-D k64: conv2d's, not taken");
    q.kernel[0] = 65, yq[2] = 36;
    check(pz_conv_im2col_takes(&q, 3, xq, yq), "1-D k65 taken");
    q.group = 2;
    check(!pz_conv_im2col_takes(&q, 3, xq, yq), "1-D k65 group 2 not taken");
    q.group = 1;
    pz_conv_params q2 = {.nsp = 2, .group = 1, .kernel = {1, 65}, .stride = {1, 1},
                         .dilation = {1, 1}};
    int64_t x2[4] = {1, 8, 1, 100}, y2[4] = {1, 8, 1, 36};
    check(!pz_conv_im2col_takes(&q2, 4, x2, y2), "2-D not taken");
    /* im2col rows over PZ_IM2COL_MAX_FLOATS: the reference's */
    int64_t xb[3] = {1, 512, 70000}, yb[3] = {1, 8, 69936};
    check(!pz_conv_im2col_takes(&q, 3, xb, yb), "im2col rows over the cap not taken");
    return test_summary("rt_conv_im2col");
}
