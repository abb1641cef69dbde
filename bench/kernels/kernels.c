/* kernels.c - GFLOP/s of the fast kernels (rt/kernels/fast.h) at 1 thread on
 * every conv, depthwise and FC layer of ResNet-18 and MobileNetV2 (224x224,
 * batch 1), the FC layers of AlexNet and VGG-16/19 and the GEMMs of a
 * BERT-base encoder layer (128 tokens) and of ViT-B/16 (197 tokens), against this
 * machine's FMA peak and memory bandwidth measured in the same run. Built
 * and run by bench/kernels/run.sh. The kernels are called through the entry
 * points, descriptors and packing that the runtime's layers use
 * (rt/ops/conv.c: pz_conv16c_init / pz_dwconv16c_init, packed weights and
 * bias, k->conv2d / k->dwconv3x3; rt/ops/gemm.c: k->gemm, whose m == 1 is
 * the GEMV path), so a figure here is what a layer of a net runs at, less
 * the fork-join and any layout conversion.
 *
 *   kernels [--isa avx512|avx2|scalar] [--min-time S] [--only conv,dw,fc,gemm,attn] [--rounds R]
 *           [--cold] [--cpu-time]
 *
 * How a layer is timed. The machine is shared, so every figure is taken
 * from many short samples, and three kinds of samples are interleaved on the
 * same thread, in this order, over and over (after 3 warm-up rounds):
 *   1. one call of the layer;
 *   2. one streaming pass over the layer's OWN buffers: read its input,
 *      weights, bias and residual once, write its output once, interleaved
 *      in 32 steps as a layer does (ZMM loads and stores, 8 independent
 *      sums): what the memory system gives a perfect kernel over exactly
 *      this working set, at whatever level of the hierarchy it lives in
 *      (L2 for a layer whose bytes fit in L2, L3 beyond);
 *   3. a probe of the FMA peak (12 independent FMA chains, about 50 us).
 * until --min-time seconds (default 0.25) have passed and at least 21 rounds
 * were taken. Each of the three is summarized by the median of its best
 * quartile (the fastest quarter of the layer and stream samples, the
 * highest quarter of the peak probes): a sample hit by another process is
 * slower, never faster, so the best quartile is what the hardware does and
 * its median is steadier than the single best. A disturbance that lasts
 * longer than a layer's --min-time spoils that layer's samples all the same:
 * --rounds R (default 1) measures the whole table R times, one pass after
 * the other, and keeps for each layer the pass with its highest %
 * of its roofline, i.e. of peak for a compute-bound layer (its layer time,
 * probe and stream together).
 *
 * --cold: the layer's packed weights are flushed from every cache level
 * (clflush) before each layer call and each streaming pass, as a net's
 * layer finds them when the layers before it have streamed tens of MB of
 * their own (ResNet-18's 47 MB of weights, ResNet-50's 100 MB): its weights
 * come from memory. Without it they come from wherever the previous call
 * left them (L2 or L3).
 *
 * FLOPs: 2 per multiply-add the layer does; taps on the padding do not
 * count (a 3x3 conv at 7x7 with pad 1 does 82% of its nominal taps).
 *
 * Bytes moved: input + weights (packed, as the kernel reads them) + bias +
 * residual read once, output written once. Roofline time = the slower of
 * (a) the FLOPs at the FMA peak and (b) the streaming pass's time; "% roof"
 * = roofline time / layer time. "% peak" = GFLOP/s / peak. The level column
 * says where the working set lives (L2: fits in this core's L2; L3: fits in
 * the last-level cache; DRAM: beyond); the probe's GB/s is measured, not
 * assumed. In a network, the FC weights may come from farther away (DRAM
 * after the other layers have evicted them): the bandwidths printed at the
 * top bound that.
 */
#include <emmintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/fma_peak.h"
#include "rt/kernels/conv/conv8x2.h"
#include "rt/kernels/fast.h"
#include "io/pz_io.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of the best quartile of n samples: of the smallest quarter
 * (high == 0: times), or of the largest quarter (high == 1: rates). Sorts v. */
static double best_quartile(double *v, int n, int high)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int i = n / 8;
    return high ? v[n - 1 - i] : v[i];
}

/* ---- the machine ----------------------------------------------------------------- */

static int use_zmm = 1;

/* A probe of the FMA peak (about 50 us), in GFLOP/s. */
static double probe_peak(void)
{
    return fma_peak_gflops(use_zmm, 15000);
}

/* ---- --cold: the weights flushed before each call ------------------------------------ */

static int cold;
/* the run options' A/B switches (PZ_CONV8X2, PZ_SUBSAMPLE), as the runtime's conv op takes them */
static pz_run_options run_opts = PZ_RUN_OPTIONS_DEFAULT;
static const float *cold_w;   /* the current layer's packed weights */
static size_t cold_n;         /* floats */

static void flush_weights(void)
{
    if (!cold || !cold_w) return;
    for (size_t i = 0; i < cold_n; i += 16) _mm_clflush(cold_w + i);
    _mm_mfence();
}

/* ---- the streaming probe --------------------------------------------------------- */

typedef float v16 __attribute__((vector_size(64)));
typedef struct {
    const float *p;
    size_t n;                /* floats; the buffer is allocated to a multiple of 16 */
} span;

/* One pass: read every span of rd, write wr (nw floats), in 32 interleaved
 * steps. Returns the seconds it took. Inlined into an AVX-512 and an AVX2
 * caller, so that v16 is one ZMM or two YMM registers. */
static inline __attribute__((always_inline)) double stream_body(const span *rd, int nrd,
                                                                 float *wr, size_t nw)
{
    enum { STEPS = 32 };
    v16 s[8] = {0}, one = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    size_t vw = (nw + 15) / 16;
    v16 *q = (v16 *)wr;
    double t = bench_now();
    for (size_t st = 0; st < STEPS; st++) {
        for (int r = 0; r < nrd; r++) {
            const v16 *p = (const v16 *)rd[r].p;
            size_t vr = (rd[r].n + 15) / 16, i = vr * st / STEPS, e = vr * (st + 1) / STEPS;
            for (; i + 8 <= e; i += 8)
                _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++) s[j] += p[i + j];
            for (; i < e; i++) s[0] += p[i];
        }
        for (size_t i = vw * st / STEPS, e = vw * (st + 1) / STEPS; i < e; i++) q[i] = one;
    }
    t = bench_now() - t;
    v16 tot = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    volatile float sink = tot[0];
    (void)sink;
    return t;
}

__attribute__((target("avx512f"))) static double stream_zmm(const span *rd, int nrd, float *wr,
                                                             size_t nw)
{
    return stream_body(rd, nrd, wr, nw);
}

__attribute__((target("avx2"))) static double stream_ymm(const span *rd, int nrd, float *wr,
                                                          size_t nw)
{
    return stream_body(rd, nrd, wr, nw);
}

static int cpu_zmm;   /* the probe uses the widest loads the CPU has, whatever --isa */

static double stream_pass(const span *rd, int nrd, float *wr, size_t nw)
{
    return cpu_zmm ? stream_zmm(rd, nrd, wr, nw) : stream_ymm(rd, nrd, wr, nw);
}

/* GB/s of reading `bytes` (information for the header): best quartile of
 * passes over at least 0.2 s. */
static double read_bw(size_t bytes)
{
    float *buf = aligned_alloc(64, bytes);
    if (!buf) return 0;
    memset(buf, 0, bytes);
    span s = {buf, bytes / sizeof(float)};
    double ts[256];
    int n = 0;
    stream_pass(&s, 1, NULL, 0);
    double t0 = bench_now();
    while (n < 256 && (n < 9 || bench_now() - t0 < 0.2)) ts[n++] = stream_pass(&s, 1, NULL, 0);
    free(buf);
    return (double)bytes / best_quartile(ts, n, 0) * 1e-9;
}

/* ---- layers ------------------------------------------------------------------------ */

typedef enum { L_CONV, L_DW, L_FC, L_GEMM, L_ATTN } kind;
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
#define FCR(net, name, k, n) {net, name, L_FC, 1, k, n, 1, 1, 1, 1, 0, 0, PZ_ACT_RELU}
/* a linear layer on m tokens (B constant, packed; a bias, act) */
#define GEMM(net, name, n, m, k, nn, act) {net, name, L_GEMM, n, k, nn, m, 1, 1, 1, 0, 0, act}
/* a batched MatMul with B computed at run time: batch x [m, k] x [k, nn] */
#define ATTN(net, name, n, batch, m, k, nn) \
    {net, name, L_ATTN, n, k, nn, m, batch, 1, 1, 0, 0, PZ_ACT_NONE}

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

    /* FC layers only (their convs are the same kernels as above) */
    FCR("alexnet", "classifier fc6", 9216, 4096),
    FCR("alexnet", "classifier fc7", 4096, 4096),
    FC("alexnet", "classifier fc8", 4096, 1000),
    FCR("vgg16/vgg19", "classifier fc6", 25088, 4096),
    FCR("vgg16/vgg19", "classifier fc7", 4096, 4096),
    FC("vgg16/vgg19", "classifier fc8", 4096, 1000),

    /* a BERT-base encoder layer at 128 tokens (hidden 768, 12 heads, FFN 3072) */
    GEMM("bert-base", "qkv 768->2304", 1, 128, 768, 2304, PZ_ACT_NONE),
    GEMM("bert-base", "attn out 768->768", 1, 128, 768, 768, PZ_ACT_NONE),
    GEMM("bert-base", "ffn1 768->3072", 1, 128, 768, 3072, PZ_ACT_NONE),
    GEMM("bert-base", "ffn1 768->3072 +gelu", 1, 128, 768, 3072, PZ_ACT_GELU),
    GEMM("bert-base", "ffn2 3072->768", 1, 128, 3072, 768, PZ_ACT_NONE),
    /* ViT-B/16's MLP at 197 tokens: 15 row tiles, the last of them short */
    GEMM("vit-b/16", "qkv 768->2304", 1, 197, 768, 2304, PZ_ACT_NONE),
    GEMM("vit-b/16", "attn out 768->768", 1, 197, 768, 768, PZ_ACT_NONE),
    GEMM("vit-b/16", "mlp1 768->3072 +gelu", 1, 197, 768, 3072, PZ_ACT_GELU),
    GEMM("vit-b/16", "mlp2 3072->768", 1, 197, 3072, 768, PZ_ACT_NONE),
    ATTN("bert-base", "scores Q K^T", 1, 12, 128, 64, 128),
    ATTN("bert-base", "context P V", 1, 12, 128, 128, 64),
};
static float *new_buf(size_t n, unsigned seed)
{
    size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    float *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p) {
        fprintf(stderr, "kernels: out of memory\n");
        exit(1);
    }
    memset(p, 0, bytes ? bytes : 64);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    return p;
}

typedef struct {
    double sec;              /* layer: median of the best quartile of its calls */
    double mem;              /* streaming pass over the same buffers: the same statistic */
    double pk;               /* FMA peak probed among the calls: median of the best quartile */
    double flops, bytes;     /* FLOPs; bytes read once + written once */
    const char *kernel;      /* which kernel ran: direct, 8x2, dw3x3, gemv */
    int samples;
} timing;

#define MAXS 1024

/* --cpu-time: the layer calls are timed by this thread's CPU time, which
 * leaves out the time the thread was preempted on a loaded host (the
 * caches others dirtied still count; the peak probe and the streaming
 * pass stay on the wall clock). */
static int cpu_time;

static double call_now(void)
{
    if (!cpu_time) return bench_now();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rounds of (layer call, streaming pass, peak probe), see the top. */
#define TIME_IT(res, min_time, CALL, RD, NRD, WR, NW)                              \
    do {                                                                           \
        static double ts_[MAXS], ms_[MAXS], pks_[MAXS];                            \
        int n_ = 0;                                                                \
        for (int w_ = 0; w_ < 3; w_++) {                                           \
            CALL;                                                                  \
            stream_pass(RD, NRD, WR, NW);                                          \
        }                                                                          \
        double t0_ = bench_now();                                                  \
        while (n_ < MAXS && (n_ < 21 || bench_now() - t0_ < (min_time))) {         \
            flush_weights();                                                       \
            double t_ = call_now();                                                \
            CALL;                                                                  \
            ts_[n_] = call_now() - t_;                                             \
            flush_weights();                                                       \
            ms_[n_] = stream_pass(RD, NRD, WR, NW);                                \
            pks_[n_++] = probe_peak();                                             \
        }                                                                          \
        (res).sec = best_quartile(ts_, n_, 0);                                     \
        (res).mem = best_quartile(ms_, n_, 0);                                     \
        (res).pk = best_quartile(pks_, n_, 1);                                     \
        (res).samples = n_;                                                        \
    } while (0)

static double span_bytes(const span *s, int n)
{
    double b = 0;
    for (int i = 0; i < n; i++) b += 4.0 * (double)s[i].n;
    return b;
}

/* The subsample and the flat conv over it (rt/ops/conv.c's whole-layer run). */
static void run_sub(pz_conv16c_fn fn, const pz_conv16c_desc *d, const pz_conv16c_desc *fd,
                    const float *x, float *xs, const float *wp, const float *b, const float *z,
                    float *y)
{
    pz_subsample16c(d, x, xs);
    fn(fd, xs, wp, b, z, y, 0, 1);
}

/* A linear layer (L_GEMM: B packed, a bias, act; rt/ops/matmul.c folds the
 * tokens into M) or a batched MatMul with B computed at run time (L_ATTN:
 * pz_f32_matmul_gemm, B read in place), as the runtime's MATMUL runs them. */
static timing run_gemm(const layer *L, const pz_fast_kernels *k, double min_time)
{
    timing r = {0};
    const int64_t M = L->h, K = L->c, N = L->m, nb = L->k == L_ATTN ? L->w : 1;
    size_t na = (size_t)(nb * M * K), ny = (size_t)(nb * M * N);
    size_t nbw = L->k == L_ATTN ? (size_t)(nb * K * N) : (size_t)pz_gemm_packed_b_size(K, N);
    float *a = new_buf(na, 1), *b = new_buf((size_t)(nb * K * N), 2);
    float *bias = new_buf((size_t)N, 3), *y = new_buf(ny, 4), *bp = b;
    if (L->k == L_GEMM) {
        bp = new_buf(nbw, 5);
        pz_gemm_pack_b(K, N, b, 0, 1.0f, bp);
    }
    span rd[3] = {{a, na}, {bp, nbw}, {bias, L->k == L_GEMM ? (size_t)N : 0}};
    cold_w = bp;
    cold_n = nbw;
    if (L->k == L_GEMM) {
        pz_gemm_desc g = {.m = M, .n = N, .k = K, .lda = K, .ldy = N, .c = bias, .csm = 0,
                          .csn = 1, .beta = 1.0f, .act = {.kind = L->act}};
        r.kernel = "gemm";
        TIME_IT(r, min_time, k->gemm(&g, a, bp, y, 0, 1), rd, 3, y, ny);
    } else {
        pz_matmul_shape s = {.nb = 1, .bdims = {nb}, .sa = {M * K}, .sb = {K * N},
                             .M = M, .N = N, .K = K};
        r.kernel = "gemm B in place";
        TIME_IT(r, min_time, pz_f32_matmul_gemm(&s, k->gemm, a, b, y, 0, 1), rd, 3, y, ny);
    }
    r.flops = 2.0 * (double)(nb * M) * (double)K * (double)N;
    r.bytes = span_bytes(rd, 3) + 4.0 * (double)ny;
    if (bp != b) free(bp);
    free(a); free(b); free(bias); free(y);
    cold_w = NULL;
    return r;
}

static timing run_layer(const layer *L, const pz_fast_kernels *k, double min_time)
{
    timing r = {0};
    if (L->k == L_FC) {
        size_t np = (size_t)pz_gemm_packed_b_size(L->c, L->m);
        float *a = new_buf((size_t)L->c, 1), *b = new_buf((size_t)L->c * L->m, 2);
        float *bias = new_buf((size_t)L->m, 3), *y = new_buf((size_t)L->m, 4);
        float *bp = new_buf(np, 5);
        pz_gemm_pack_b(L->c, L->m, b, 1, 1.0f, bp);
        free(b);
        pz_gemm_desc g = {.m = 1, .n = L->m, .k = L->c, .lda = L->c, .ldy = L->m, .c = bias,
                          .csm = 0, .csn = 1, .beta = 1.0f, .act = {.kind = L->act}};
        span rd[3] = {{a, (size_t)L->c}, {bp, np}, {bias, (size_t)L->m}};
        cold_w = bp;
        cold_n = np;
        /* the runtime's GEMM entry (gemm.c): m == 1 takes the GEMV path */
        r.kernel = "gemv";
        TIME_IT(r, min_time, k->gemm(&g, a, bp, y, 0, 1), rd, 3, y, (size_t)L->m);
        r.flops = 2.0 * L->c * L->m;
        r.bytes = span_bytes(rd, 3) + 4.0 * L->m;
        free(a); free(bias); free(y); free(bp);
        cold_w = NULL;
        return r;
    }
    if (L->k == L_GEMM || L->k == L_ATTN) return run_gemm(L, k, min_time);
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
    /* the kernel the runtime's conv op takes for this layer (rt/ops/conv.c):
     * on AVX-512 a 1x1 conv to 8 mod 16 channels goes in lanes of 8 x 2 */
    pz_conv16c_fn fn = L->k == L_DW ? k->dwconv3x3 : k->conv2d;
    pz_conv16c_fn f8 = L->k == L_CONV && run_opts.conv8x2 ? pz_conv8x2_pick(&d, k->isa) : NULL;
    int by8 = f8 != NULL;
    if (by8) fn = f8;
    /* a strided 1x1 conv the op runs as a subsample plus a flat conv: both
     * timed (the copy into a buffer of its own, as the op's scratch) */
    pz_conv16c_desc fd;
    int sub = L->k == L_CONV && !by8 && run_opts.subsample && pz_conv16c_subsample_plan(&d, &fd);
    float *xs = sub ? new_buf((size_t)pz_subsample16c_size(&d), 7) : NULL;
    r.kernel = L->k == L_DW ? "dw3x3" : by8 ? "8x2" : sub ? "sub" : "direct";
    size_t nw = (size_t)(L->k == L_DW ? pz_dw16c_weights_size(L->c)
                         : by8 ? pz_conv8x2_weights_size(&d) : pz_conv16c_weights_size(&d));
    size_t nb = (size_t)pz_pack_bias16_size(L->m);
    float *x = new_buf(nx, 1), *w = new_buf((size_t)(L->m * cg * L->ks * L->ks), 2);
    float *wp = new_buf(nw, 3), *b = new_buf(nb, 4);
    float *z = L->residual ? new_buf(ny, 5) : NULL, *y = new_buf(ny, 6);
    if (L->k == L_DW) pz_dw16c_pack_weights(L->c, w, wp);
    else if (by8) pz_conv8x2_pack_weights(&d, w, wp);
    else pz_conv16c_pack_weights(&d, w, wp);
    free(w);
    span rd[4] = {{x, nx}, {wp, nw}, {b, nb}, {z, z ? ny : 0}};
    cold_w = wp;
    cold_n = nw;
    int nrd = z ? 4 : 3;
    if (sub) TIME_IT(r, min_time, run_sub(fn, &d, &fd, x, xs, wp, b, z, y), rd, nrd, y, ny);
    else TIME_IT(r, min_time, fn(&d, x, wp, b, z, y, 0, 1), rd, nrd, y, ny);
    /* the multiply-adds the layer does: taps that fall on the padding
     * count nothing (as benchdnn counts them). Counting them made a 3x3
     * conv at 7x7 read 107% of peak: 18% of its nominal taps are padding. */
    int64_t taps = 0;   /* valid (output row, kernel row) pairs; the same along W */
    for (int64_t o = 0; o < oh; o++)
        for (int kk = 0; kk < L->ks; kk++) {
            int64_t ih = o * L->s - L->pad + kk;
            taps += ih >= 0 && ih < L->h;
        }
    r.flops = 2.0 * (double)L->m * cg * (double)taps * (double)taps;
    r.bytes = span_bytes(rd, nrd) + 4.0 * (double)ny;
    free(x); free(wp); free(b); free(z); free(y); free(xs);
    cold_w = NULL;
    return r;
}

static const char *KIND_NAME[] = {"conv", "dw", "fc", "gemm", "attn"};

/* Roofline time over the layer's time: the slower of (its FLOPs at the
 * probed peak) and (the streaming pass), as the table prints it. */
static double roof_frac(const timing *t)
{
    double t_fma = t->flops / (t->pk * 1e9);
    return (t_fma > t->mem ? t_fma : t->mem) / t->sec;
}

/* The goals of the runtime's issue, layer by layer: a 3x3 or 1x1 conv at
 * least 85% of peak, a depthwise or FC layer at least 70% of its roofline
 * (other convs, the 7x7 stem, are not graded). One line per goal: how many
 * layers of the table meet it, and each that does not, with its figure. */
static void goals(const timing *res, size_t n)
{
    for (int g = 0; g < 3; g++) {
        int met = 0, total = 0;
        char below[2048] = "";
        size_t used = 0;
        for (size_t i = 0; i < n; i++) {
            const layer *L = &LAYERS[i];
            const timing *r = &res[i];
            int graded = g == 0 ? L->k == L_CONV && (L->ks == 1 || L->ks == 3)
                       : g == 1 ? L->k == L_DW || L->k == L_FC : L->k == L_GEMM;
            if (!graded || r->sec <= 0) continue;
            double v = g != 1 ? 100 * (r->flops / r->sec * 1e-9) / r->pk : 100 * roof_frac(r);
            total++;
            if (v >= (g == 0 ? 85.0 : g == 1 ? 70.0 : 90.0)) {
                met++;
            } else if (used < sizeof below) {
                int k = snprintf(below + used, sizeof below - used, "%s%s %s %.1f%%",
                                 used ? "; " : "", L->net, L->name, v);
                if (k > 0) used += (size_t)k;
            }
        }
        if (total)
            printf("goal: %s: %d of %d layers%s%s\n",
                   g == 0 ? "3x3 and 1x1 conv >= 85% of peak"
                   : g == 1 ? "depthwise and FC >= 70% of roofline"
                            : "transformer linear layers (GEMM) >= 90% of peak",
                   met, total, met < total ? "; below: " : "", below);
    }
}

int main(int argc, char **argv)
{
    const char *isa = "avx512", *only = NULL;
    double min_time = 0.25;
    int rounds = 1;
    if (pz_io_run_options_env(&run_opts)) return 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--isa") && i + 1 < argc) isa = argv[++i];
        else if (!strcmp(argv[i], "--min-time") && i + 1 < argc) min_time = atof(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc && atoi(argv[i + 1]) >= 1)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cold")) cold = 1;
        else if (!strcmp(argv[i], "--cpu-time")) cpu_time = 1;
        else {
            fprintf(stderr, "usage: kernels [--isa avx512|avx2|scalar] [--min-time S] "
                            "[--only conv,dw,fc,gemm,attn] [--rounds R] [--cold] [--cpu-time]\n");
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
    cpu_zmm = __builtin_cpu_supports("avx512f");
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l2 <= 0) l2 = 2l << 20;
    if (l3 <= 0) l3 = 32l << 20;

    double pk0[20];
    for (int i = 0; i < 20; i++) pk0[i] = probe_peak();   /* also warms the clock up */
    double bw_l2 = read_bw((size_t)l2 / 2), bw_l3 = read_bw((size_t)32 << 20);
    double bw_dram = read_bw((size_t)1 << 30);
    printf("kernels: %s, 1 thread; L2 %ld KiB, L3 %ld MiB\n", k->name, l2 >> 10, l3 >> 20);
    printf("FMA peak (%s, 12 chains): %.1f GFLOP/s (best quartile of 20 probes)\n",
           use_zmm ? "ZMM" : "YMM", best_quartile(pk0, 20, 1));
    printf("read bandwidth (%s): L2 (%ld KiB) %.1f GB/s, beyond L2 (%ld MiB) %.1f GB/s, "
           "DRAM (1 GiB) %.1f GB/s\n",
           cpu_zmm ? "ZMM" : "YMM", l2 >> 11, bw_l2, 32l, bw_l3, bw_dram);
    printf("every layer: best-quartile medians of interleaved rounds (layer call, streaming "
           "pass over its own buffers, FMA probe); min time %.2f s, at least 21 rounds; "
           "best of %d pass%s over the table%s%s\n\n",
           min_time, rounds, rounds > 1 ? "es" : "",
           cold ? "; --cold: each layer's weights flushed from the caches before each call "
                  "and each streaming pass" : "",
           cpu_time ? "; --cpu-time: layer calls timed by the thread's CPU time" : "");

    const size_t n = sizeof LAYERS / sizeof LAYERS[0];
    timing *res = calloc(n, sizeof *res);
    for (int rd = 0; rd < rounds; rd++)
        for (size_t i = 0; i < n; i++) {
            if (only && !strstr(only, KIND_NAME[LAYERS[i].k])) continue;
            timing t = run_layer(&LAYERS[i], k, min_time);
            /* the pass with the highest % of its roofline (see the top) */
            if (res[i].sec <= 0 || (t.sec > 0 && roof_frac(&t) > roof_frac(&res[i]))) res[i] = t;
        }

    printf("%-12s %-26s %2s %-23s %7s %7s %-4s %6s %6s %7s %6s %6s %-7s %s\n", "net", "layer", "n",
           "shape", "ms", "MB", "lvl", "probe", "layer", "GFLOP/s", "%peak", "%roof", "bound",
           "kernel");
    printf("%-12s %-26s %2s %-23s %7s %7s %-4s %6s %6s\n", "", "", "", "", "", "moved", "", "GB/s",
           "GB/s");
    const char *net = "";
    double net_ms = 0, net_flop = 0, pk_sum = 0;
    int pk_n = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || strcmp(LAYERS[i].net, net)) {
            if (net[0] && net_ms > 0)
                printf("%-12s %-26s %2s %-23s %7.3f %7s %-4s %6s %6s %7.1f\n\n", net,
                       "total (x n)", "", "", net_ms, "", "", "", "", net_flop / net_ms * 1e-6);
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
        else if (L->k == L_GEMM) snprintf(shape, sizeof shape, "%dx%d -> %d", L->h, L->c, L->m);
        else if (L->k == L_ATTN)
            snprintf(shape, sizeof shape, "%dx[%dx%d]x[%dx%d]", L->w, L->h, L->c, L->c, L->m);
        else snprintf(shape, sizeof shape, "%dx%d/%d %d->%d %d->%lld", L->ks, L->ks, L->s, L->c,
                      L->m, L->h, (long long)oh);
        double gf = r->flops / r->sec * 1e-9;
        net_ms += r->sec * 1e3 * L->count;
        net_flop += r->flops * L->count;
        pk_sum += r->pk;
        pk_n++;
        /* roofline: the slower of the FMAs at peak and the streaming pass */
        double t_fma = r->flops / (r->pk * 1e9), roof = t_fma > r->mem ? t_fma : r->mem;
        /* L3: a working set of up to half the last-level cache (shared) */
        const char *lvl = r->bytes <= (double)l2 ? "L2" : r->bytes <= (double)l3 / 2 ? "L3" : "DRAM";
        printf("%-12s %-26s %2d %-23s %7.3f %7.2f %-4s %6.1f %6.1f %7.1f %5.1f%% %5.1f%% %-7s %s\n",
               L->net, L->name, L->count, shape, r->sec * 1e3, r->bytes * 1e-6, lvl,
               r->bytes / r->mem * 1e-9, r->bytes / r->sec * 1e-9, gf, 100 * gf / r->pk,
               100 * roof / r->sec, t_fma > r->mem ? "compute" : "memory", r->kernel);
    }
    if (pk_n)
        printf("FMA peak over the layers' probes: mean of their best quartiles %.1f GFLOP/s\n",
               pk_sum / pk_n);
    goals(res, n);
    free(res);
    return 0;
}
