/* rt_pool_frames.c - 1-D and 3-D max and average pools on the 2-D NCHW16c
 * pool, every frame pooled then combined over T
 * (rt/kernels/pool/pool_frames.h), against the plain reference pool
 * (pz_f32_pool__ref), over:
 *   1-D: MaxPool1d k3 s2 p1, AvgPool1d k4 s4, k5 s2 p2 with and without
 *     count_include_pad, ceil mode, batch 2, odd channels (20, 33);
 *   3-D: an r3d/C3D MaxPool3d (1,2,2) and 2x2x2, 3x3x3 s2 p1 (windows
 *     overlapping in T, pads), a temporal dilation 2, ceil mode in T,
 *     AvgPool3d (2,3,3) s(1,2,2) p1 with and without count_include_pad,
 *     a global average over T x H x W;
 * on every kernel set this CPU has (scalar twin, AVX2, AVX-512), on 1
 * worker and on 3 threads (the barriers between blocking, pooling and
 * combining), on NaN-filled outputs; error normalised by max |ref|, bound
 * 1e-6 (max: exact). Also which pools pz_pool_frames_takes.
 *
 * Prints `rt_pool_frames: P passed, F failed`; exits 1 on a failure.
 */
#include <stdio.h>

#include "rt/kernels/pool/pool_frames.h"
#include "rt_test.h"

typedef struct {
    int rank;
    bool max;
    int64_t n, c, sp[3];             /* spatial input sizes (1-D: sp[0]) */
    int64_t k[3], s[3], d[3], pb[3], pe[3];
    bool include_pad, ceil;
} pcase;

typedef struct {
    const pz_pool_frames *f;
    const float *x;
    float *y;
    void *scratch;
} job;

static void work(void *ctx, int ith, int nth)
{
    job *j = ctx;
    pz_pool_frames_run(j->f, j->x, j->y, j->scratch, ith, nth);
}

static void run_case(const pcase *t)
{
    const int nsp = t->rank - 2;
    pz_pool_params p = {.kind = t->max ? PZ_POOL_MAX : PZ_POOL_AVG, .nsp = nsp,
                        .count_include_pad = t->include_pad};
    int64_t xd[5] = {t->n, t->c}, yd[5] = {t->n, t->c}, nx = t->n * t->c, ny = nx;
    for (int j = 0; j < nsp; j++) {
        p.kernel[j] = t->k[j], p.stride[j] = t->s[j], p.dilation[j] = t->d[j];
        p.pad_begin[j] = t->pb[j], p.pad_end[j] = t->pe[j];
        xd[2 + j] = t->sp[j];
        int64_t span = t->sp[j] + t->pb[j] + t->pe[j] - t->d[j] * (t->k[j] - 1) - 1;
        yd[2 + j] = (t->ceil ? (span + t->s[j] - 1) : span) / t->s[j] + 1;
        nx *= xd[2 + j], ny *= yd[2 + j];
    }
    float *x = new_rand(nx), *yref = new_nan(ny);
    pz_f32_pool__ref(&p, xd, yd, x, yref, NULL, 0, 1);
    char what[200];
    snprintf(what, sizeof what, "rank %d %s N%lld C%lld k%lld s%lld%s%s", t->rank,
             t->max ? "max" : "avg", (long long)t->n, (long long)t->c, (long long)t->k[0],
             (long long)t->s[0], t->include_pad ? " include_pad" : "", t->ceil ? " ceil" : "");
    check(pz_pool_frames_takes(&p, t->rank), what);
    const pz_isa isas[3] = {PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX512};
    const bool have[3] = {true, cpu_has_avx2(), cpu_has_avx512()};
    for (int i = 0; i < 3; i++) {
        if (!have[i]) continue;
        pz_pool_frames *f;
        if (pz_pool_frames_make(&f, &p, t->rank, xd, yd, isas[i])) {
            check(false, what);
            continue;
        }
        void *scratch = malloc(pz_pool_frames_scratch_bytes(f));
        for (int nth = 1; nth <= 3; nth += 2) {
            float *y = new_nan(ny);
            job j = {f, x, y, scratch};
            rt_run_threads(work, &j, nth);
            char wi[260];
            double e = nerr(y, yref, yref, ny);
            snprintf(wi, sizeof wi, "%s isa %d threads %d: error %.3g", what, (int)isas[i], nth, e);
            check(t->max ? e == 0 : e <= 1e-6, wi);
            free(y);
        }
        free(scratch);
        pz_pool_frames_free(f);
    }
    free(x), free(yref);
}

int main(void)
{
    const pcase cases[] = {
        /* 1-D */
        {3, true, 2, 20, {50}, {3}, {2}, {1}, {1}, {1}, false, false},
        {3, false, 1, 33, {64}, {4}, {4}, {1}, {0}, {0}, false, false},
        {3, false, 1, 16, {37}, {5}, {2}, {1}, {2}, {2}, true, false},
        {3, false, 2, 20, {37}, {5}, {2}, {1}, {2}, {2}, false, true},
        {3, true, 1, 17, {30}, {3}, {2}, {2}, {0}, {0}, false, true},
        /* 3-D */
        {5, true, 1, 32, {4, 14, 14}, {1, 2, 2}, {1, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0},
         false, false},
        {5, true, 2, 20, {6, 8, 9}, {2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, false,
         false},
        {5, true, 1, 16, {7, 9, 9}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false,
         false},
        {5, true, 1, 24, {9, 6, 6}, {3, 2, 2}, {1, 2, 2}, {2, 1, 1}, {2, 0, 0}, {1, 0, 0}, false,
         false},
        {5, true, 1, 16, {5, 7, 7}, {2, 3, 3}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, false,
         true},
        {5, false, 1, 33, {5, 8, 7}, {2, 3, 3}, {1, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, true,
         false},
        {5, false, 2, 20, {5, 8, 7}, {2, 3, 3}, {1, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false,
         false},
        {5, false, 1, 40, {4, 5, 6}, {4, 5, 6}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, false,
         false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    pz_pool_params p = {.kind = PZ_POOL_MAX, .nsp = 2};
    check(!pz_pool_frames_takes(&p, 4), "2-D not taken");
    p.nsp = 3;
    check(pz_pool_frames_takes(&p, 5), "3-D taken");
    p.kind = (pz_pool_kind)7;
    check(!pz_pool_frames_takes(&p, 5), "unknown kind not taken");
    return test_summary("rt_pool_frames");
}
