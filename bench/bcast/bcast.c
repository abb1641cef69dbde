/* bcast.c - the fast twins of rt/kernels/bcast_fast.h against their
 * reference kernels, one thread, on shapes of real models: BERT's mask
 * (Where, Expand, the scalar Mul), a per-channel Mul on NCHW (IS-Net's
 * scale after each ConvInteger), a residual Add, an embedding Gather,
 * gathers along the last axis, GatherElements, GatherND. Reference and
 * twin alternate (A B A B ...) for --rounds rounds (default 41) of calls
 * of at least 2 ms each; the table gives each one's median time per call
 * and the ratio ref/fast of the medians. Built and run by bench/bcast/run.sh.
 *
 *   bcast [--rounds R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/kernels/bcast_fast.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

typedef struct {
    const char *name;
    void (*run)(int fast);
} bench_case;

static float *fbuf(int64_t n)
{
    float *p = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) p[i] = (float)((i * 7919) % 1000) * 0.001f - 0.5f;
    return p;
}

static float *A, *B, *Y;
static uint8_t *C;
static void *I;

static void bin(int fast, int ra, const int64_t *ad, int rb, const int64_t *bd, int ry,
                const int64_t *yd, pz_binary_func f, pz_act_kind act)
{
    pz_bcast bc;
    pz_bcast_init(&bc, ra, ad, rb, bd, ry, yd);
    pz_binary_params p = {.func = f, .act = {.kind = act}};
    (fast ? pz_f32_binary__fast : pz_f32_binary__ref)(&p, &bc, A, B, Y, 0, 1);
}

static const int64_t NCHW[4] = {1, 64, 56, 56}, PERC[4] = {1, 64, 1, 1};
static const int64_t ATT[4] = {1, 12, 128, 128}, MASK[4] = {1, 1, 1, 128};
static const int64_t TOK[3] = {1, 128, 768};

static void b_perchannel(int fast)
{
    bin(fast, 4, NCHW, 4, PERC, 4, NCHW, PZ_BIN_MUL, PZ_ACT_NONE);
}
static void b_bias_relu(int fast) { bin(fast, 4, NCHW, 4, PERC, 4, NCHW, PZ_BIN_ADD, PZ_ACT_RELU); }
static void b_scalar(int fast) { bin(fast, 4, ATT, 0, ATT, 4, ATT, PZ_BIN_MUL, PZ_ACT_NONE); }
static void b_same(int fast) { bin(fast, 3, TOK, 3, TOK, 3, TOK, PZ_BIN_ADD, PZ_ACT_NONE); }

static void where_plan(pz_where_desc *d, const int64_t *cd, const int64_t *ad, const int64_t *bd,
                       const int64_t *yd, int r)
{
    d->rank = r;
    int64_t ac = 1, aa = 1, ab = 1;
    for (int i = r - 1; i >= 0; i--) {
        d->dims[i] = yd[i];
        d->sc[i] = cd[i] == 1 ? 0 : ac;
        d->sa[i] = ad[i] == 1 ? 0 : aa;
        d->sb[i] = bd[i] == 1 ? 0 : ab;
        ac *= cd[i], aa *= ad[i], ab *= bd[i];
    }
}

static void where_run(int fast, const int64_t *cd, const int64_t *ad, const int64_t *bd,
                      const int64_t *yd, size_t es)
{
    pz_where_desc d;
    where_plan(&d, cd, ad, bd, yd, 4);
    if (fast) {
        pz_where_coalesce(&d);
        pz_any_where__fast(&d, es, C, A, B, Y, 0, 1);
    } else {
        pz_any_where__ref(&d, es, C, A, B, Y, 0, 1);
    }
}

static const int64_t ONE4[4] = {1, 1, 1, 1};
static void w_mask(int fast) { where_run(fast, MASK, ATT, ONE4, ATT, 4); }
static const int64_t W64[4] = {1, 1, 256, 256};
static void w_same64(int fast) { where_run(fast, W64, W64, W64, W64, 8); }

static void view_run(int fast, int rx, const int64_t *xd, int ry, const int64_t *yd)
{
    pz_view_params p = {.func = PZ_VIEW_EXPAND};
    pz_view_desc d;
    const char *why;
    pz_view_plan(&p, rx, xd, ry, yd, &d, &why);
    (fast ? pz_any_view__fast : pz_any_view__ref)(&d, 4, A, Y, 0, 1);
}

static void e_mask(int fast) { view_run(fast, 4, MASK, 4, ATT); }
static void e_perchannel(int fast) { view_run(fast, 4, PERC, 4, NCHW); }

static void g_embed(int fast)   /* 128 tokens from 8192 x 768 */
{
    (fast ? pz_any_gather__fast : pz_any_gather__ref)(4, 1, 8192, 768, PZ_I64, I, 128, A, Y, 0,
                                                      1);
}
static void g_last(int fast)    /* [512, 1024] along the last axis by 512 indices */
{
    (fast ? pz_any_gather__fast : pz_any_gather__ref)(4, 512, 1024, 1, PZ_I64, I, 512, A, Y, 0,
                                                      1);
}
static void ge_axis1(int fast)  /* GatherElements [256, 1024] along axis 1 */
{
    const int64_t id[2] = {256, 1024}, xs[2] = {1024, 1};
    (fast ? pz_any_gather_elements__fast : pz_any_gather_elements__ref)(
        4, 2, id, xs, 1, 1024, PZ_I64, I, A, Y, 0, 1);
}
static void gnd_one(int fast)   /* GatherND: 65536 pairs into [512, 1024] */
{
    const int64_t xd[2] = {512, 1024};
    (fast ? pz_any_gather_nd__fast : pz_any_gather_nd__ref)(4, 65536, 65536, 2, xd, 512 * 1024, 1,
                                                            PZ_I64, I, A, Y, 0, 1);
}

static const bench_case CASES[] = {
    {"binary Mul [1,64,56,56] x [1,64,1,1]", b_perchannel},
    {"binary Add+Relu [1,64,56,56] x [1,64,1,1]", b_bias_relu},
    {"binary Mul [1,12,128,128] x scalar", b_scalar},
    {"binary Add [1,128,768] x same", b_same},
    {"where f32 [1,1,1,128] ? [1,12,128,128] : scalar", w_mask},
    {"where i64 [256,256] all same", w_same64},
    {"expand f32 [1,1,1,128] -> [1,12,128,128]", e_mask},
    {"expand f32 [1,64,1,1] -> [1,64,56,56]", e_perchannel},
    {"gather axis 0: 128 rows of 8192x768", g_embed},
    {"gather last axis [512,1024] by 512", g_last},
    {"gather_elements axis 1 [256,1024]", ge_axis1},
    {"gather_nd 65536 pairs of [512,1024]", gnd_one},
};

int main(int argc, char **argv)
{
    int rounds = 41;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[++i]);
    const int64_t big = 8192 * 768;
    A = fbuf(big);
    B = fbuf(big);
    Y = fbuf(big);
    C = malloc((size_t)big);
    for (int64_t i = 0; i < big; i++) C[i] = (uint8_t)((i * 31) % 3 == 0);
    int64_t *ix = malloc(262144 * sizeof *ix);
    for (int64_t i = 0; i < 262144; i++) ix[i] = (i * 2654435761u) % 512 - (i % 5 == 0 ? 512 : 0);
    I = ix;
    printf("| case | ref us | fast us | ref/fast |\n|---|---|---|---|\n");
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        double *t[2] = {malloc((size_t)rounds * sizeof(double)),
                        malloc((size_t)rounds * sizeof(double))};
        /* reps: calls of the reference per sample, at least 2 ms */
        double t0 = now();
        CASES[c].run(0);
        double once = now() - t0;
        int reps = once >= 2e-3 ? 1 : (int)(2e-3 / (once > 1e-7 ? once : 1e-7)) + 1;
        for (int r = 0; r < rounds; r++)
            for (int f = 0; f < 2; f++) {
                double t0 = now();
                for (int k = 0; k < reps; k++) CASES[c].run(f);
                t[f][r] = (now() - t0) / reps * 1e6;
            }
        double mr = median(t[0], rounds), mf = median(t[1], rounds);
        printf("| %s | %.1f | %.1f | %.2fx |\n", CASES[c].name, mr, mf, mr / mf);
        free(t[0]);
        free(t[1]);
    }
    return 0;
}
