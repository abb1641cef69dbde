/* rt_pool16c.c - the NCHW16c pooling kernels (pool16c*.c) against the plain
 * reference pz_f32_pool__ref over edge sizes: channels 1, 15, 16, 17, 33;
 * planes from 1x1 up; windows 1 to 3 and the global window; strides 1 to 3;
 * dilation 2; pads 0 to 2 on each side independently; floor and ceil mode
 * (one more output); count_include_pad; max and average.
 *
 * Each case runs the scalar, AVX2 and AVX-512 kernel (those this CPU and
 * build have), with 1 worker and split over 3: all results must be bitwise
 * equal (same taps, same order), the padded lanes zero, and within 1e-6 of
 * the reference (which sums in double) normalised by max |x|. The output
 * starts as NaN, so an element left unwritten shows.
 *
 * Prints `rt_pool16c: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/fast.h"
#include "rt_test.h"

static const pz_fast_kernels *ISAS[3];   /* scalar, then the SIMD ones this CPU has */
static int n_isas;

/* ONNX output size: floor, or ceil (ceil_mode) */
static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe,
                        bool ceil_mode)
{
    int64_t span = in + pb + pe - d * (k - 1) - 1;
    if (span < 0) return 0;
    return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

static void run_case(int64_t n, int64_t c, int64_t h, int64_t w, pz_pool_params p, bool ceil_mode)
{
    int64_t oh = out_size(h, p.kernel[0], p.stride[0], p.dilation[0], p.pad_begin[0],
                          p.pad_end[0], ceil_mode);
    int64_t ow = out_size(w, p.kernel[1], p.stride[1], p.dilation[1], p.pad_begin[1],
                          p.pad_end[1], ceil_mode);
    if (oh < 1 || ow < 1) return;
    int64_t xd[4] = {n, c, h, w}, yd[4] = {n, c, oh, ow};
    int64_t nx = n * c * h * w, ny = n * c * oh * ow;
    int64_t nxb = pz_nchwxc_size(n, c, h, w, 16), nyb = pz_nchwxc_size(n, c, oh, ow, 16);
    float *x = new_rand(nx), *xb = malloc(sizeof(float) * (size_t)nxb);
    float *ref = malloc(sizeof(float) * (size_t)ny), *got = malloc(sizeof(float) * (size_t)ny);
    float *first = malloc(sizeof(float) * (size_t)nyb), *yb = malloc(sizeof(float) * (size_t)nyb);
    pz_f32_nchw_to_nchwxc(n, c, h, w, 16, x, xb, 0, 1);
    pz_f32_pool__ref(&p, xd, yd, x, ref, NULL, 0, 1);
    pz_pool16c_desc d;
    char what[256];
    snprintf(what, sizeof what, "%s C%lld %lldx%lld k%lldx%lld s%lld,%lld d%lld pads t%lld l%lld "
             "b%lld r%lld%s%s", p.kind == PZ_POOL_MAX ? "max" : "avg", (long long)c,
             (long long)h, (long long)w, (long long)p.kernel[0], (long long)p.kernel[1],
             (long long)p.stride[0], (long long)p.stride[1], (long long)p.dilation[0],
             (long long)p.pad_begin[0], (long long)p.pad_begin[1], (long long)p.pad_end[0],
             (long long)p.pad_end[1], ceil_mode ? " ceil" : "",
             p.count_include_pad ? " include_pad" : "");
    check(pz_pool16c_init(&d, &p, xd, yd) == 0, what);
    bool have_first = false;
    for (int i = 0; i < n_isas; i++)
        for (int nth = 1; nth <= 3; nth += 2) {
            fill_nan(yb, nyb);
            for (int t = 0; t < nth; t++) ISAS[i]->pool2d(&d, xb, yb, t, nth);
            char w2[300];
            snprintf(w2, sizeof w2, "%s %s nth%d", what, ISAS[i]->name, nth);
            if (!have_first) {
                memcpy(first, yb, sizeof(float) * (size_t)nyb);
                have_first = true;
            } else {
                char w3[340];
                snprintf(w3, sizeof w3, "%s: bitwise equal to scalar nth1", w2);
                check(memcmp(first, yb, sizeof(float) * (size_t)nyb) == 0, w3);
            }
            /* padded lanes zero */
            bool zero = true;
            int64_t cb = (c + 15) / 16;
            for (int64_t in = 0; in < n; in++)
                for (int64_t px = 0; px < oh * ow; px++)
                    for (int64_t lane = c - (cb - 1) * 16; lane < 16; lane++)
                        if (yb[((in * cb + cb - 1) * oh * ow + px) * 16 + lane] != 0.0f)
                            zero = false;
            char w4[340];
            snprintf(w4, sizeof w4, "%s: padded lanes zero", w2);
            check(zero, w4);
            pz_f32_nchwxc_to_nchw(n, c, oh, ow, 16, yb, got, 0, 1);
            double e = 0;
            for (int64_t k = 0; k < ny; k++) {
                double dk = isnan(got[k]) ? INFINITY : fabs((double)got[k] - ref[k]);
                if (!(isinf(ref[k]) && got[k] == ref[k]) && dk > e) e = dk;
            }
            char w5[360];
            snprintf(w5, sizeof w5, "%s: error %.3g vs the reference", w2, e);
            check(e <= 1e-6, w5);
        }
    free(x), free(xb), free(ref), free(got), free(first), free(yb);
}

int main(void)
{
    n_isas = fast_kernels_here(ISAS);
    static const int64_t chans[] = {1, 15, 16, 17, 33};
    for (int kind = 0; kind < 2; kind++)
        for (size_t ci = 0; ci < sizeof chans / sizeof *chans; ci++)
            for (int64_t h = 1; h <= 9; h += 4)
                for (int64_t w = 1; w <= 10; w += 3)
                    for (int k = 1; k <= 3; k++)
                        for (int s = 1; s <= 3; s++)
                            for (int padc = 0; padc < 4; padc++) {
                                pz_pool_params p = {.kind = kind ? PZ_POOL_AVG : PZ_POOL_MAX,
                                                    .nsp = 2};
                                for (int j = 0; j < 2; j++) {
                                    p.kernel[j] = k;
                                    p.stride[j] = s;
                                    p.dilation[j] = 1;
                                }
                                /* pads < kernel, each side its own */
                                int pm = k - 1 < 2 ? k - 1 : 2;
                                p.pad_begin[0] = padc & 1 ? pm : 0;
                                p.pad_end[1] = padc & 1 ? pm : 0;
                                p.pad_begin[1] = padc & 2 ? pm : 0;
                                p.pad_end[0] = padc & 2 ? (pm > 0 ? pm - 1 : 0) : 0;
                                p.count_include_pad = kind && (padc == 3);
                                run_case(1, chans[ci], h, w, p, false);
                                if (s > 1) run_case(1, chans[ci], h, w, p, true);
                            }
    /* dilation, batch 2, include_pad with ceil mode */
    for (int kind = 0; kind < 2; kind++) {
        pz_pool_params p = {.kind = kind ? PZ_POOL_AVG : PZ_POOL_MAX, .nsp = 2,
                            .kernel = {3, 2}, .stride = {2, 1}, .dilation = {2, 2},
                            .pad_begin = {2, 1}, .pad_end = {1, 0}, .count_include_pad = 1};
        run_case(2, 17, 11, 9, p, false);
        run_case(2, 17, 11, 9, p, true);
    }
    /* global pooling: the window is the whole plane (ResNet's 7x7x512) */
    static const int64_t gs[][3] = {{512, 7, 7}, {33, 1, 1}, {17, 5, 3}, {1280, 7, 7}};
    for (int kind = 0; kind < 2; kind++)
        for (size_t i = 0; i < sizeof gs / sizeof *gs; i++) {
            pz_pool_params p = {.kind = kind ? PZ_POOL_AVG : PZ_POOL_MAX, .nsp = 2,
                                .kernel = {gs[i][1], gs[i][2]}, .stride = {1, 1},
                                .dilation = {1, 1}};
            run_case(1, gs[i][0], gs[i][1], gs[i][2], p, false);
        }
    /* ResNet's stem max pool: 3x3 s2 p1 on 112x112x64 */
    pz_pool_params mp = {.kind = PZ_POOL_MAX, .nsp = 2, .kernel = {3, 3}, .stride = {2, 2},
                         .dilation = {1, 1}, .pad_begin = {1, 1}, .pad_end = {1, 1}};
    run_case(1, 64, 112, 112, mp, false);
    return test_summary("rt_pool16c");
}
