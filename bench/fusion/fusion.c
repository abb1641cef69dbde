/* fusion.c - fused vs unfused F-Blocks, side by side (bench/fusion/run.sh).
 *
 * Chains whose intermediates exceed the 2 MB L2, built through the pz_net API
 * with seeded weights:
 *   vgg16-conv1     VGG-16 conv1_1 + conv1_2 (3 -> 64 -> 64, 3x3, ReLU) at 224x224
 *   mbv2-ir         MobileNetV2 features.2 + features.3: 1x1 expand, 3x3
 *                   depthwise (stride 2, then 1), 1x1 project (+ residual), at 112x112
 *   resnet18-basic  ResNet-18 layer1.0 + layer1.1: two basic blocks (3x3, 3x3 +
 *                   residual, ReLU) on 64 channels at 56x56
 * As in the networks, the chains of MobileNetV2 and ResNet-18 read the output
 * of the layer before them (features.1's 1x1 project conv; the stem's max
 * pool), NCHW16c already: that layer is a block of its own, not timed. VGG's
 * chain starts at the network input (its layout conversion is timed).
 * Each chain runs unfused (one block per layer, each its own fork-join) and
 * fused (one block: channels, bands; and channels with PZ_FUSE_WINDOWS=0,
 * every intermediate in a full-size buffer: what row windows win), at MP 1
 * and 2, interleaved round by round; the time is the chain's blocks' (the
 * profile's block times). Prints the median ms of each, the speed-ups, the
 * strip the runtime chose, the
 * redundant MACs of bands (% of the chain's MACs), the intermediates held in
 * row windows (KiB of the windows / KiB full-size buffers would take), and
 * whether the outputs of every variant are bitwise equal to the unfused MP 1
 * one. Also the machine's FMA peak of one core, before and after (a loaded
 * machine shows it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <immintrin.h>

#include "rt/fuse.h"
#include "rt/net.h"
#include "io/pz_io.h"

static double now_ms(void);

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffffff) / (float)0x800000 - 1.0f;
}

static float *blobs[1024];   /* every net's weights (borrowed by the nets) */
static int n_blobs;
static float *blob(int64_t n, float sc)
{
    if (n_blobs == (int)(sizeof blobs / sizeof *blobs)) {
        fprintf(stderr, "bench_fusion: too many weight blobs\n");
        exit(1);
    }
    float *p = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) p[i] = sc * frand();
    blobs[n_blobs++] = p;
    return p;
}

typedef struct {
    int id;
    int64_t d[4];
} val;

static val conv(pz_net *net, val x, int64_t m, int k, int s, int group, const val *z,
                pz_act_kind act)
{
    pz_conv_params cp = {0};
    cp.nsp = 2;
    cp.group = group;
    for (int j = 0; j < 2; j++) {
        cp.kernel[j] = k;
        cp.stride[j] = s;
        cp.dilation[j] = 1;
        cp.pad_begin[j] = cp.pad_end[j] = k / 2;
    }
    cp.act.kind = act;
    cp.act.lo = 0;
    cp.act.hi = 6;
    int64_t c = x.d[1], p = k / 2;
    val y = {0, {x.d[0], m, (x.d[2] + 2 * p - k) / s + 1, (x.d[3] + 2 * p - k) / s + 1}};
    int w = pz_net_const(net, "w", PZ_F32, 4, (int64_t[]){m, c / group, k, k},
                         blob(m * (c / group) * k * k, 1.0f / (float)(c / group * k * k)));
    int b = pz_net_const(net, "b", PZ_F32, 1, (int64_t[]){m}, blob(m, 0.1f));
    y.id = pz_net_tensor(net, "t", PZ_F32, 4, y.d);
    pz_net_layer(net, "conv", PZ_OP_CONV, &cp, sizeof cp, (int[]){x.id, w, b, z ? z->id : -1}, 4,
                 &y.id, 1);
    return y;
}

static val maxpool(pz_net *net, val x)
{
    pz_pool_params pp = {0};
    pp.kind = PZ_POOL_MAX;
    pp.nsp = 2;
    for (int j = 0; j < 2; j++) {
        pp.kernel[j] = 3;
        pp.stride[j] = 2;
        pp.dilation[j] = 1;
        pp.pad_begin[j] = pp.pad_end[j] = 1;
    }
    val y = {0, {x.d[0], x.d[1], (x.d[2] - 1) / 2 + 1, (x.d[3] - 1) / 2 + 1}};
    y.id = pz_net_tensor(net, "t", PZ_F32, 4, y.d);
    pz_net_layer(net, "pool", PZ_OP_POOL, &pp, sizeof pp, (int[]){x.id}, 1, &y.id, 1);
    return y;
}

/* Builds chain `which` into net; returns its output, the input's size and
 * in *lead the layers before the chain (not timed). */
static val build(pz_net *net, int which, int64_t *in_n, int *lead)
{
    rng = 42;
    val x, y;
    if (which == 0) {
        x = (val){0, {1, 3, 224, 224}};
        x.id = pz_net_input(net, "x", PZ_F32, 4, x.d);
        *lead = 0;
        y = conv(net, x, 64, 3, 1, 1, NULL, PZ_ACT_RELU);
        y = conv(net, y, 64, 3, 1, 1, NULL, PZ_ACT_RELU);
    } else if (which == 1) {
        x = (val){0, {1, 32, 112, 112}};
        x.id = pz_net_input(net, "x", PZ_F32, 4, x.d);
        y = conv(net, x, 16, 1, 1, 1, NULL, PZ_ACT_NONE);   /* features.1's project */
        *lead = 1;
        y = conv(net, y, 96, 1, 1, 1, NULL, PZ_ACT_CLIP);
        y = conv(net, y, 96, 3, 2, 96, NULL, PZ_ACT_CLIP);
        val r = conv(net, y, 24, 1, 1, 1, NULL, PZ_ACT_NONE);
        y = conv(net, r, 144, 1, 1, 1, NULL, PZ_ACT_CLIP);
        y = conv(net, y, 144, 3, 1, 144, NULL, PZ_ACT_CLIP);
        y = conv(net, y, 24, 1, 1, 1, &r, PZ_ACT_NONE);
    } else {
        x = (val){0, {1, 64, 112, 112}};
        x.id = pz_net_input(net, "x", PZ_F32, 4, x.d);
        val r = maxpool(net, x);                             /* the stem's */
        *lead = 1;
        for (int b = 0; b < 2; b++) {
            y = conv(net, r, 64, 3, 1, 1, NULL, PZ_ACT_RELU);
            r = conv(net, y, 64, 3, 1, 1, &r, PZ_ACT_RELU);
        }
        y = r;
    }
    pz_net_output(net, y.id);
    *in_n = x.d[0] * x.d[1] * x.d[2] * x.d[3];
    return y;
}

/* The chain's time in the last run: its blocks' (every block from lead). */
static double chain_ms(const pz_net *net, int lead)
{
    uint64_t ns = 0;
    for (int b = 0; b < pz_net_n_blocks(net); b++) {
        int first = 0;
        uint64_t t = pz_net_block_info(net, b, &first, NULL, NULL);
        if (first >= lead) ns += t;
    }
    return (double)ns / 1e6;
}

/* One core's FP32 FMA peak (GFLOP/s): 16 independent ZMM chains. */
__attribute__((target("avx512f"), noinline)) static double fma_peak_avx512(void)
{
    double best = 0;
    for (int trial = 0; trial < 5; trial++) {
        __m512 a[16], m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
        for (int i = 0; i < 16; i++) a[i] = _mm512_set1_ps((float)i);
        const long iters = 2000000;
        double t0 = now_ms();
        for (long it = 0; it < iters; it++)
            _Pragma("GCC unroll 16") for (int i = 0; i < 16; i++)
                a[i] = _mm512_fmadd_ps(a[i], m, c);
        double ms = now_ms() - t0;
        __m512 s = a[0];
        for (int i = 1; i < 16; i++) s = _mm512_add_ps(s, a[i]);
        volatile float sink = _mm512_reduce_add_ps(s);
        (void)sink;
        double g = 16.0 * 16 * 2 * (double)iters / (ms * 1e6);
        if (g > best) best = g;
    }
    return best;
}

static double fma_peak(void)
{
    return __builtin_cpu_supports("avx512f") ? fma_peak_avx512() : 0.0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { NK = 4, NV = 8 };   /* unfused, fused channels, bands, channels without windows; MP 1, 2 */

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    static const char *names[] = {"vgg16-conv1", "mbv2-ir", "resnet18-basic"};
    printf("FMA peak of one core (AVX-512): %.0f GFLOP/s\n", fma_peak());
    printf("%-15s %2s %8s %8s %8s %8s %6s %6s %6s %5s %6s %-18s %s\n", "chain", "mp",
           "unfused", "chan-nw", "channels", "bands", "x nw", "x chan", "x band", "strip",
           "halo %", "windows KiB/full", "bitwise");
    for (int which = 0; which < 3; which++) {
        pz_net *nets[NV];
        float *out[NV];
        int64_t in_n = 0, out_n = 0;
        int lead = 0;
        pz_fuse_info info[NV];
        for (int v = 0; v < NV; v++) {
            int mp = v / NK + 1, kind = v % NK;
            nets[v] = pz_net_new(names[which]);
            val y = build(nets[v], which, &in_n, &lead);
            out_n = y.d[0] * y.d[1] * y.d[2] * y.d[3];
            int nl = pz_net_n_layers(nets[v]);
            for (int l = 0; l < lead; l++) pz_net_block(nets[v], l, 1, mp);
            if (kind == 0) {
                for (int l = lead; l < nl; l++) pz_net_block(nets[v], l, 1, mp);
            } else {
                pz_net_block(nets[v], lead, nl - lead, mp);
                pz_net_block_knobs(nets[v], lead, kind == 2 ? PZ_SPLIT_BANDS : PZ_SPLIT_CHANNELS,
                                   0);
            }
            char err[512];
            pz_run_options ro;
            if (pz_io_run_options_env(&ro)) exit(2);   /* PZ_WINOGRAD (run.sh), ... */
            if (kind == 3) ro.fuse_windows = 0;
            int bad = pz_net_compile(nets[v], 2, &ro, err, sizeof err);
            if (bad) {
                fprintf(stderr, "compile: %s\n", err);
                return 1;
            }
            pz_net_profile(nets[v], 1);
            pz_net_block_fuse_info(nets[v], lead ? 1 : 0, &info[v]);
            out[v] = calloc((size_t)out_n, sizeof(float));
        }
        float *x = blob(in_n, 1.0f);
        double *t = calloc((size_t)(NV * rounds), sizeof *t);
        for (int r = -2; r < rounds; r++)   /* 2 warm-up rounds */
            for (int v = 0; v < NV; v++) {
                /* let the previous variant's pool workers stop spinning (200 us)
                 * before this one runs: on 2 cores they would steal its time */
                nanosleep(&(struct timespec){0, 2000000}, NULL);
                pz_net_run(nets[v], (const void *const[]){x}, (void *const[]){out[v]});
                if (r >= 0) t[v * rounds + r] = chain_ms(nets[v], lead);
            }
        for (int mp = 1; mp <= 2; mp++) {
            double med[NK];
            int same = 1;
            for (int k = 0; k < NK; k++) {
                int v = (mp - 1) * NK + k;
                qsort(t + v * rounds, (size_t)rounds, sizeof *t, cmp_d);
                med[k] = t[v * rounds + rounds / 2];
                same &= !memcmp(out[v], out[0], (size_t)out_n * sizeof(float));
            }
            const pz_fuse_info *fb = &info[(mp - 1) * NK + 2], *fc = &info[(mp - 1) * NK + 1];
            char win[64];
            snprintf(win, sizeof win, "%d: %lld/%lld", fc->windows,
                     (long long)(fc->window_bytes / 1024), (long long)(fc->full_bytes / 1024));
            printf("%-15s %2d %8.3f %8.3f %8.3f %8.3f %6.2f %6.2f %6.2f %5d %6.2f %-18s %s\n",
                   names[which], mp, med[0], med[3], med[1], med[2], med[0] / med[3],
                   med[0] / med[1], med[0] / med[2], fc->strip,
                   fb->macs ? 100.0 * (double)fb->redundant_macs / (double)fb->macs : 0.0, win,
                   same ? "yes" : "NO");
            if (fb->split != PZ_SPLIT_BANDS && mp > 1) printf("  (bands fell back to channels)\n");
            if (fc->runs != 1 || fc->fused_layers != pz_net_n_layers(nets[0]) - lead)
                printf("  (not every layer fused: %d of %d)\n", fc->fused_layers,
                       pz_net_n_layers(nets[0]) - lead);
        }
        for (int v = 0; v < NV; v++) {
            pz_net_free(nets[v]);
            free(out[v]);
        }
        free(t);
    }
    printf("FMA peak of one core (AVX-512): %.0f GFLOP/s\n", fma_peak());
    for (int i = 0; i < n_blobs; i++) free(blobs[i]);
    return 0;
}
