/* kernels.c - GFLOP/s of the fast kernels (rt/kernels/fast.h) at 1 thread on
 * every conv and FC layer of ResNet-18 and MobileNetV2 (224x224, batch 1),
 * against this machine's FMA peak and memory bandwidth measured in the same
 * run. Built and run by bench/kernels/run.sh. The kernels are called through
 * the entry points, descriptors and packing that the runtime's layers use
 * (rt/ops/conv.c: pz_conv16c_init / pz_dwconv16c_init, packed weights and
 * bias, k->conv2d / k->dwconv3x3; rt/ops/gemm.c: k->gemm, whose m == 1 is
 * the GEMV path), so a figure here is what a layer of a net runs at, less
 * the fork-join and any layout conversion.
 *
 *   kernels [--isa avx512|avx2|scalar] [--min-time S]
 *
 * Peak: a loop of 12 independent FMA chains (ZMM for avx512, YMM for avx2),
 * probed after every run of a layer; a layer is compared with the median of
 * its own probes, so that load from other processes (this machine is
 * shared) moves both sides. "best" is the fastest run against the highest
 * probe. Bandwidth: a streaming
 * read (sum of 8 vector chains) of 1 MiB (fits in L2), 32 MiB (beyond L2) and
 * 1 GiB (beyond any cache), best of 5.
 *
 * Each layer is run until --min-time seconds (default 0.25) and at least 15
 * times after 3 warm-up runs; the time is the median. Every layer gets two
 * ratios: % of the FMA peak, and % of its roofline, the time of the slower of
 * (a) its FLOPs at the peak and (b) streaming its bytes (input, weights and
 * residual read once, output written once) through buffers of the same total
 * size, timed here: so a layer whose data lives in L2 in this loop is held to
 * L2 speed, one that spills to L3 to L3 speed. Conv layers are mostly
 * compute bound (the two agree); depthwise and FC are memory bound at these
 * sizes, or compute bound where they fit in L2. In a network the FC weights
 * may come from DRAM: the DRAM bandwidth printed at the top bounds that.
 */
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/kernels/fast.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the machine ----------------------------------------------------------------- */

#define FZ(v) v = _mm512_fmadd_ps(v, m, c)
#define FY(v) v = _mm256_fmadd_ps(v, m, c)

/* GFLOP/s of `iters` x 12 independent FMAs. */
__attribute__((target("avx512f"))) static double peak_zmm(long iters)
{
    /* distinct starting values: identical chains would be merged by the compiler */
    __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
    __m512 a0 = _mm512_set1_ps(0.0f), a1 = _mm512_set1_ps(0.1f), a2 = _mm512_set1_ps(0.2f),
           a3 = _mm512_set1_ps(0.3f), a4 = _mm512_set1_ps(0.4f), a5 = _mm512_set1_ps(0.5f),
           a6 = _mm512_set1_ps(0.6f), a7 = _mm512_set1_ps(0.7f), a8 = _mm512_set1_ps(0.8f),
           a9 = _mm512_set1_ps(0.9f), a10 = _mm512_set1_ps(1.0f), a11 = _mm512_set1_ps(1.1f);
    double t = now();
    for (long i = 0; i < iters; i++) {
        FZ(a0); FZ(a1); FZ(a2); FZ(a3); FZ(a4); FZ(a5);
        FZ(a6); FZ(a7); FZ(a8); FZ(a9); FZ(a10); FZ(a11);
    }
    t = now() - t;
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    volatile float sink = _mm512_reduce_add_ps(s);
    (void)sink;
    return (double)iters * 12 * 32 / t * 1e-9;
}

__attribute__((target("avx2,fma"))) static double peak_ymm(long iters)
{
    __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(1e-3f);
    __m256 a0 = _mm256_set1_ps(0.0f), a1 = _mm256_set1_ps(0.1f), a2 = _mm256_set1_ps(0.2f),
           a3 = _mm256_set1_ps(0.3f), a4 = _mm256_set1_ps(0.4f), a5 = _mm256_set1_ps(0.5f),
           a6 = _mm256_set1_ps(0.6f), a7 = _mm256_set1_ps(0.7f), a8 = _mm256_set1_ps(0.8f),
           a9 = _mm256_set1_ps(0.9f), a10 = _mm256_set1_ps(1.0f), a11 = _mm256_set1_ps(1.1f);
    double t = now();
    for (long i = 0; i < iters; i++) {
        FY(a0); FY(a1); FY(a2); FY(a3); FY(a4); FY(a5);
        FY(a6); FY(a7); FY(a8); FY(a9); FY(a10); FY(a11);
    }
    t = now() - t;
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float o[8];
    _mm256_storeu_ps(o, s);
    volatile float sink = o[0];
    (void)sink;
    return (double)iters * 12 * 16 / t * 1e-9;
}

static int use_zmm = 1;
static double probes[4096];
static int nprobes;

/* A probe of the peak (about 0.3 ms), kept for the median. */
static double probe_peak(void)
{
    double g = use_zmm ? peak_zmm(30000) : peak_ymm(30000);
    if (nprobes < 4096) probes[nprobes++] = g;
    return g;
}

/* GB/s of a streaming read of `bytes`, best of 5 passes of >= 0.1 s. */
__attribute__((target("avx2"))) static double read_bw(size_t bytes)
{
    float *buf = aligned_alloc(64, bytes);
    if (!buf) return 0;
    memset(buf, 0, bytes);
    size_t n = bytes / sizeof(float);
    long reps = (long)(((size_t)1 << 30) / bytes);
    if (reps < 1) reps = 1;
    double best = 0;
    for (int r = 0; r < 5; r++) {
        __m256 sm[8];
        _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) sm[i] = _mm256_setzero_ps();
        double t = now();
        for (long k = 0; k < reps; k++)
            for (size_t i = 0; i < n; i += 64)
                _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
                    sm[j] = _mm256_add_ps(sm[j], _mm256_load_ps(buf + i + j * 8));
        t = now() - t;
        __m256 tot = sm[0];
        _Pragma("GCC unroll 8") for (int j = 1; j < 8; j++) tot = _mm256_add_ps(tot, sm[j]);
        float o[8];
        _mm256_storeu_ps(o, tot);
        volatile float sink = o[0];
        (void)sink;
        double g = (double)bytes * (double)reps / t * 1e-9;
        if (g > best) best = g;
    }
    free(buf);
    return best;
}

/* Seconds to stream (read) rd bytes and (write) wr bytes, interleaved as a
 * layer does, in buffers that stay at the level of the cache hierarchy where
 * rd + wr bytes live: the memory side of a layer's roofline. Best of 3
 * passes of >= 20 ms. */
__attribute__((target("avx2"))) static double stream_time(double rd, double wr)
{
    size_t nr = ((size_t)rd + 63) / 64, nw = ((size_t)wr + 63) / 64;   /* lines */
    float *a = aligned_alloc(64, (nr ? nr : 1) * 64), *b = aligned_alloc(64, (nw ? nw : 1) * 64);
    if (!a || !b) return 0;
    memset(a, 0, (nr ? nr : 1) * 64);
    memset(b, 0, (nw ? nw : 1) * 64);
    const size_t steps = 256;
    double best = 1e30;
    for (int pass = 0; pass < 3; pass++) {
        /* 8 independent sums: the loads, not the add latency, set the pace */
        __m256 s[8], v = _mm256_set1_ps(1.0f);
        _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) s[i] = _mm256_setzero_ps();
        long reps = 0;
        double t0 = now(), t;
        do {
            size_t ia = 0, ib = 0;
            for (size_t st = 1; st <= steps; st++) {
                size_t ea = nr * st / steps, eb = nw * st / steps;
                for (; ia + 4 <= ea; ia += 4)
                    _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++)
                        s[i] = _mm256_add_ps(s[i], _mm256_load_ps(a + ia * 16 + i * 8));
                for (; ia < ea; ia++) {
                    s[0] = _mm256_add_ps(s[0], _mm256_load_ps(a + ia * 16));
                    s[1] = _mm256_add_ps(s[1], _mm256_load_ps(a + ia * 16 + 8));
                }
                for (; ib < eb; ib++) {
                    _mm256_store_ps(b + ib * 16, v);
                    _mm256_store_ps(b + ib * 16 + 8, v);
                }
            }
            reps++;
            t = now() - t0;
        } while (t < 0.02);
        __m256 tot = s[0];
        _Pragma("GCC unroll 8") for (int i = 1; i < 8; i++) tot = _mm256_add_ps(tot, s[i]);
        float o[8];
        _mm256_storeu_ps(o, tot);
        volatile float sink = o[0];
        (void)sink;
        if (t / (double)reps < best) best = t / (double)reps;
    }
    free(a);
    free(b);
    return best;
}

/* ---- layers ------------------------------------------------------------------------ */

typedef enum { L_CONV, L_DW, L_FC } kind;
typedef struct {
    const char *net, *name;
    kind k;
    int count;               /* layers of this shape in the network */
    int c, m, h, w, ks, s, pad;
    int residual;
    pz_act_kind act;
} layer;

#define CONV(net, name, n, c, m, h, ks, s, res, act) \
    {net, name, L_CONV, n, c, m, h, h, ks, s, (ks) / 2, res, act}
#define DW(net, name, n, c, h, s) {net, name, L_DW, n, c, c, h, h, 3, s, 1, 0, PZ_ACT_CLIP}
#define FC(net, name, k, n) {net, name, L_FC, 1, k, n, 1, 1, 1, 1, 0, 0, PZ_ACT_NONE}

static const layer LAYERS[] = {
    CONV("resnet18", "conv1 7x7/2", 1, 3, 64, 224, 7, 2, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer1 3x3 (conv1)", 2, 64, 64, 56, 3, 1, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer1 3x3 (conv2 +res)", 2, 64, 64, 56, 3, 1, 1, PZ_ACT_RELU),
    CONV("resnet18", "layer2.0.conv1 3x3/2", 1, 64, 128, 56, 3, 2, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer2.0.downsample 1x1/2", 1, 64, 128, 56, 1, 2, 0, PZ_ACT_NONE),
    CONV("resnet18", "layer2 3x3 (conv1)", 1, 128, 128, 28, 3, 1, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer2 3x3 (conv2 +res)", 2, 128, 128, 28, 3, 1, 1, PZ_ACT_RELU),
    CONV("resnet18", "layer3.0.conv1 3x3/2", 1, 128, 256, 28, 3, 2, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer3.0.downsample 1x1/2", 1, 128, 256, 28, 1, 2, 0, PZ_ACT_NONE),
    CONV("resnet18", "layer3 3x3 (conv1)", 1, 256, 256, 14, 3, 1, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer3 3x3 (conv2 +res)", 2, 256, 256, 14, 3, 1, 1, PZ_ACT_RELU),
    CONV("resnet18", "layer4.0.conv1 3x3/2", 1, 256, 512, 14, 3, 2, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer4.0.downsample 1x1/2", 1, 256, 512, 14, 1, 2, 0, PZ_ACT_NONE),
    CONV("resnet18", "layer4 3x3 (conv1)", 1, 512, 512, 7, 3, 1, 0, PZ_ACT_RELU),
    CONV("resnet18", "layer4 3x3 (conv2 +res)", 2, 512, 512, 7, 3, 1, 1, PZ_ACT_RELU),
    FC("resnet18", "fc", 512, 1000),

    CONV("mobilenet_v2", "stem 3x3/2", 1, 3, 32, 224, 3, 2, 0, PZ_ACT_CLIP),
    DW("mobilenet_v2", "dw 32 @112", 1, 32, 112, 1),
    CONV("mobilenet_v2", "project 32->16 @112", 1, 32, 16, 112, 1, 1, 0, PZ_ACT_NONE),
    CONV("mobilenet_v2", "expand 16->96 @112", 1, 16, 96, 112, 1, 1, 0, PZ_ACT_CLIP),
    DW("mobilenet_v2", "dw 96 /2 @112", 1, 96, 112, 2),
    CONV("mobilenet_v2", "project 96->24 @56", 1, 96, 24, 56, 1, 1, 0, PZ_ACT_NONE),
    CONV("mobilenet_v2", "expand 24->144 @56", 2, 24, 144, 56, 1, 1, 0, PZ_ACT_CLIP),
    DW("mobilenet_v2", "dw 144 @56", 1, 144, 56, 1),
    CONV("mobilenet_v2", "project 144->24 @56 +res", 1, 144, 24, 56, 1, 1, 1, PZ_ACT_NONE),
    DW("mobilenet_v2", "dw 144 /2 @56", 1, 144, 56, 2),
    CONV("mobilenet_v2", "project 144->32 @28", 1, 144, 32, 28, 1, 1, 0, PZ_ACT_NONE),
    CONV("mobilenet_v2", "expand 32->192 @28", 3, 32, 192, 28, 1, 1, 0, PZ_ACT_CLIP),
    DW("mobilenet_v2", "dw 192 @28", 2, 192, 28, 1),
    CONV("mobilenet_v2", "project 192->32 @28 +res", 2, 192, 32, 28, 1, 1, 1, PZ_ACT_NONE),
    DW("mobilenet_v2", "dw 192 /2 @28", 1, 192, 28, 2),
    CONV("mobilenet_v2", "project 192->64 @14", 1, 192, 64, 14, 1, 1, 0, PZ_ACT_NONE),
    CONV("mobilenet_v2", "expand 64->384 @14", 4, 64, 384, 14, 1, 1, 0, PZ_ACT_CLIP),
    DW("mobilenet_v2", "dw 384 @14", 4, 384, 14, 1),
    CONV("mobilenet_v2", "project 384->64 @14 +res", 3, 384, 64, 14, 1, 1, 1, PZ_ACT_NONE),
    CONV("mobilenet_v2", "project 384->96 @14", 1, 384, 96, 14, 1, 1, 0, PZ_ACT_NONE),
    CONV("mobilenet_v2", "expand 96->576 @14", 3, 96, 576, 14, 1, 1, 0, PZ_ACT_CLIP),
    DW("mobilenet_v2", "dw 576 @14", 2, 576, 14, 1),
    CONV("mobilenet_v2", "project 576->96 @14 +res", 2, 576, 96, 14, 1, 1, 1, PZ_ACT_NONE),
    DW("mobilenet_v2", "dw 576 /2 @14", 1, 576, 14, 2),
    CONV("mobilenet_v2", "project 576->160 @7", 1, 576, 160, 7, 1, 1, 0, PZ_ACT_NONE),
    CONV("mobilenet_v2", "expand 160->960 @7", 3, 160, 960, 7, 1, 1, 0, PZ_ACT_CLIP),
    DW("mobilenet_v2", "dw 960 @7", 3, 960, 7, 1),
    CONV("mobilenet_v2", "project 960->160 @7 +res", 2, 960, 160, 7, 1, 1, 1, PZ_ACT_NONE),
    CONV("mobilenet_v2", "project 960->320 @7", 1, 960, 320, 7, 1, 1, 0, PZ_ACT_NONE),
    CONV("mobilenet_v2", "final 1x1 320->1280 @7", 1, 320, 1280, 7, 1, 1, 0, PZ_ACT_CLIP),
    FC("mobilenet_v2", "classifier", 1280, 1000),
};

static float *new_buf(size_t n, unsigned seed)
{
    size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    float *p = aligned_alloc(64, bytes ? bytes : 64);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    return p;
}

typedef struct {
    double sec, best, flops, rd, wr;   /* median and best seconds, flops, bytes read/written */
    double pk, pk_best;                /* the peak probed among the runs: median and best */
} timing;

/* Runs CALL 3 times to warm up, then until min_time (at least 15 times and
 * at most 512), each run followed by a short probe of the FMA peak: the
 * layer's median time is compared with the median of the probes taken in
 * the same window, so that load from other processes moves both. */
#define TIME_IT(res, min_time, CALL)                                              \
    do {                                                                          \
        double ts_[512], pks_[512];                                               \
        int n_ = 0;                                                               \
        for (int w_ = 0; w_ < 3; w_++) { CALL; }                                  \
        double t0_ = now();                                                       \
        while (n_ < 512 && (n_ < 15 || now() - t0_ < (min_time))) {               \
            double t_ = now();                                                    \
            CALL;                                                                 \
            ts_[n_] = now() - t_;                                                 \
            pks_[n_++] = probe_peak();                                            \
        }                                                                         \
        (res).sec = median(ts_, n_);    /* sorts: ts_[0] is the fastest */      \
        (res).best = ts_[0];                                                      \
        (res).pk = median(pks_, n_);    /* sorts: the last is the highest */     \
        (res).pk_best = pks_[n_ - 1];                                             \
    } while (0)

static timing run_layer(const layer *L, const pz_fast_kernels *k, double min_time)
{
    timing r = {0};
    if (L->k == L_FC) {
        float *a = new_buf((size_t)L->c, 1), *b = new_buf((size_t)L->c * L->m, 2);
        float *bias = new_buf((size_t)L->m, 3), *y = new_buf((size_t)L->m, 4);
        float *bp = new_buf((size_t)pz_gemm_packed_b_size(L->c, L->m), 5);
        pz_gemm_pack_b(L->c, L->m, b, 1, 1.0f, bp);
        pz_gemm_desc g = {.m = 1, .n = L->m, .k = L->c, .lda = L->c, .ldy = L->m, .c = bias,
                          .csm = 0, .csn = 1, .beta = 1.0f};
        /* the runtime's GEMM entry (gemm.c): m == 1 takes the GEMV path */
        TIME_IT(r, min_time, k->gemm(&g, a, bp, y, 0, 1));
        r.flops = 2.0 * L->c * L->m;
        r.rd = 4.0 * ((double)pz_gemm_packed_b_size(L->c, L->m) + L->c + L->m);
        r.wr = 4.0 * L->m;
        free(a); free(b); free(bias); free(y); free(bp);
        return r;
    }
    pz_conv_params p = {.nsp = 2, .group = L->k == L_DW ? L->c : 1,
                        .kernel = {L->ks, L->ks}, .stride = {L->s, L->s},
                        .dilation = {1, 1}, .pad_begin = {L->pad, L->pad},
                        .pad_end = {L->pad, L->pad},
                        .act = {.kind = L->act, .lo = 0.0f, .hi = 6.0f}};
    int64_t oh = (L->h + 2 * L->pad - L->ks) / L->s + 1;
    int64_t xd[4] = {1, L->c, L->h, L->w}, yd[4] = {1, L->m, oh, oh};
    pz_conv16c_desc d;
    if (L->k == L_DW ? pz_dwconv16c_init(&d, &p, xd, yd) : pz_conv16c_init(&d, &p, xd, yd)) {
        fprintf(stderr, "kernels: %s %s does not fit the fast conv\n", L->net, L->name);
        return r;
    }
    int64_t cg = L->k == L_DW ? 1 : L->c;
    size_t nx = (size_t)pz_nchwxc_size(1, L->c, L->h, L->w, d.cblk);
    size_t ny = (size_t)pz_nchwxc_size(1, L->m, oh, oh, 16);
    size_t nw = (size_t)(L->k == L_DW ? pz_dw16c_weights_size(L->c) : pz_conv16c_weights_size(&d));
    float *x = new_buf(nx, 1), *w = new_buf((size_t)(L->m * cg * L->ks * L->ks), 2);
    float *wp = new_buf(nw, 3), *b = new_buf((size_t)pz_pack_bias16_size(L->m), 4);
    float *z = L->residual ? new_buf(ny, 5) : NULL, *y = new_buf(ny, 6);
    if (L->k == L_DW) pz_dw16c_pack_weights(L->c, w, wp);
    else pz_conv16c_pack_weights(&d, w, wp);
    pz_conv16c_fn fn = L->k == L_DW ? k->dwconv3x3 : k->conv2d;
    TIME_IT(r, min_time, fn(&d, x, wp, b, z, y, 0, 1));
    r.flops = 2.0 * (double)L->m * oh * oh * cg * L->ks * L->ks;
    r.rd = 4.0 * ((double)nx + (z ? ny : 0) + nw);
    r.wr = 4.0 * (double)ny;
    free(x); free(w); free(wp); free(b); free(z); free(y);
    return r;
}

int main(int argc, char **argv)
{
    const char *isa = "avx512";
    double min_time = 0.25;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--isa") && i + 1 < argc) isa = argv[++i];
        else if (!strcmp(argv[i], "--min-time") && i + 1 < argc) min_time = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: kernels [--isa avx512|avx2|scalar] [--min-time S]\n");
            return 2;
        }
    }
    pz_isa want = !strcmp(isa, "avx2") ? PZ_ISA_AVX2 : !strcmp(isa, "scalar") ? PZ_ISA_REF
                                                                              : PZ_ISA_AVX512;
    if (want > pz_cpu_isa()) {
        fprintf(stderr, "kernels: this CPU (or PZ_ISA) does not allow %s\n", isa);
        return 1;
    }
    const pz_fast_kernels *k = pz_fast_kernels_for(want);
    use_zmm = want == PZ_ISA_AVX512;

    for (int i = 0; i < 20; i++) probe_peak();   /* also warms the clock up */
    double pk0 = median(probes, nprobes);
    double bw_l2 = read_bw((size_t)1 << 20), bw_l3 = read_bw((size_t)32 << 20);
    double bw_dram = read_bw((size_t)1 << 30);
    printf("kernels: %s, 1 thread\n", k->name);
    printf("FMA peak (%s, 12 chains): %.1f GFLOP/s (median of 20 probes)\n",
           use_zmm ? "ZMM" : "YMM", pk0);
    printf("read bandwidth: L2 (1 MiB) %.1f GB/s, beyond L2 (32 MiB) %.1f GB/s, "
           "DRAM (1 GiB) %.1f GB/s\n\n", bw_l2, bw_l3, bw_dram);

    const size_t n = sizeof LAYERS / sizeof LAYERS[0];
    timing *res = calloc(n, sizeof *res);
    for (size_t i = 0; i < n; i++) res[i] = run_layer(&LAYERS[i], k, min_time);
    double pk = median(probes, nprobes);

    printf("%-13s %-26s %2s %-23s %7s %7s %6s %6s %6s  %s\n", "net", "layer", "n", "shape", "ms",
           "GFLOP/s", "%peak", "%roof", "best", "roofline: bound, MB moved, GB/s used vs streamed");
    const char *net = "";
    double net_ms = 0, net_flop = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || strcmp(LAYERS[i].net, net)) {
            if (net[0])
                printf("%-13s %-26s %2s %-23s %7.3f %7.1f %5.1f%%\n\n", net, "total (x n)", "",
                       "", net_ms, net_flop / net_ms * 1e-6, 100 * net_flop / net_ms * 1e-6 / pk);
            if (i == n) break;
            net = LAYERS[i].net;
            net_ms = net_flop = 0;
        }
        const layer *L = &LAYERS[i];
        const timing *r = &res[i];
        if (r->sec <= 0) continue;
        char shape[64];
        int64_t oh = (L->h + 2 * L->pad - L->ks) / L->s + 1;
        if (L->k == L_FC) snprintf(shape, sizeof shape, "%d -> %d", L->c, L->m);
        else snprintf(shape, sizeof shape, "%dx%d/%d %d->%d %d->%lld", L->ks, L->ks, L->s, L->c,
                      L->m, L->h, (long long)oh);
        double gf = r->flops / r->sec * 1e-9;
        net_ms += r->sec * 1e3 * L->count;
        net_flop += r->flops * L->count;
        /* roofline: the slower of the FMAs at peak and streaming the bytes */
        double t_fma = r->flops / (r->pk * 1e9), t_mem = stream_time(r->rd, r->wr);
        double roof = t_fma > t_mem ? t_fma : t_mem;
        /* best: the fastest run against the fastest probe, same roofline */
        double tb_fma = r->flops / (r->pk_best * 1e9), roof_b = tb_fma > t_mem ? tb_fma : t_mem;
        printf("%-13s %-26s %2d %-23s %7.3f %7.1f %5.1f%% %5.1f%% %5.1f%%  %s, %.1f MB, %.0f vs %.0f\n",
               L->net, L->name, L->count, shape, r->sec * 1e3, gf, 100 * gf / r->pk,
               100 * roof / r->sec, 100 * roof_b / r->best, t_fma > t_mem ? "compute" : "memory",
               (r->rd + r->wr) * 1e-6, (r->rd + r->wr) / r->sec * 1e-9,
               (r->rd + r->wr) / t_mem * 1e-9);
    }
    printf("FMA peak over the run: median %.1f GFLOP/s of %d probes (first 20: %.1f)\n", pk,
           nprobes, pk0);
    free(res);
    return 0;
}
