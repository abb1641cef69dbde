/* convs.c - the bf16 convolutions (conv16c_bf16.h) against the fp32 ones at
 * 1 thread: per layer of ResNet-18/50 and VGG-16 (224x224, batch 1), the
 * direct conv and, for 3x3 stride-1 layers, Winograd F(4x4, 3x3), each in
 * fp32 and bf16, on the same input, weights, bias and ReLU. Built and run by
 * bench/bf16/run.sh.
 *
 *   bench_bf16 [--min-time S] [--only NET or part of a layer name]
 *
 * 2 warm-up runs each, then the kernels in turn (interleaved) until
 * --min-time seconds (default 0.3) and at least 7 runs each; the median ms.
 * Also the normalised difference of each bf16 output from its fp32 one
 * (max |b - f| / max |f|).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fma_peak.h"
#include "../common/stats.h"
#include "rt/kernels/conv/conv16c_bf16.h"

typedef struct {
    const char *net, *name;
    int k, c, m, h;          /* kernel (1 or 3), in, out channels, size (square) */
} layer;

static const layer LAYERS[] = {
    {"resnet18", "layer1 3x3", 3, 64, 64, 56},
    {"resnet18", "layer2 3x3", 3, 128, 128, 28},
    {"resnet18", "layer3 3x3", 3, 256, 256, 14},
    {"resnet18", "layer4 3x3", 3, 512, 512, 7},
    {"resnet50", "layer1 1x1 in", 1, 256, 64, 56},
    {"resnet50", "layer1 1x1 out", 1, 64, 256, 56},
    {"resnet50", "layer3 1x1 in", 1, 1024, 256, 14},
    {"resnet50", "layer3 1x1 out", 1, 256, 1024, 14},
    {"vgg16", "conv1_2", 3, 64, 64, 224},
    {"vgg16", "conv2_2", 3, 128, 128, 112},
    {"vgg16", "conv3_2", 3, 256, 256, 56},
    {"vgg16", "conv4_2", 3, 512, 512, 28},
    {"vgg16", "conv5_2", 3, 512, 512, 14},
};

static double err(const float *a, const float *b, int64_t n)
{
    double dmax = 0, rmax = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - b[i]);
        if (!(e <= dmax)) dmax = isnan(e) ? INFINITY : e;
        if (fabs(b[i]) > rmax) rmax = fabs(b[i]);
    }
    return rmax > 0 ? dmax / rmax : dmax;
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    double min_time = 0.3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-time") && i + 1 < argc) min_time = atof(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "bench_bf16: error: usage: bench_bf16 [--min-time S] [--only NET]\n");
            return 2;
        }
    }
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bf16")) {
        fprintf(stderr, "bench_bf16: error: this CPU has no AVX-512 with BF16\n");
        return 1;
    }
    const pz_isa isa = PZ_ISA_AVX512;
    const pz_fast_kernels *k = pz_fast_kernels_for(isa);
    pz_winograd_fn wino = pz_winograd_kernel_for(isa), wino16 = pz_winograd_bf16_for(isa);
    pz_conv16c_fn dir16 = pz_conv16c_bf16_for(isa);
    printf("bench/bf16: bf16 convs vs fp32, %s, 1 thread; FMA peak %.1f GFLOP/s\n", k->name,
           fma_peak_gflops(1, 1000000));
    printf("%-9s %-16s %2s %5s %5s %4s %9s %9s %9s %9s %8s %9s %9s\n", "net", "layer", "k", "C", "M",
           "HW", "dir ms", "dir16 ms", "wino ms", "wino16 ms", "best x", "dir16 err", "wino16 err");
    unsigned seed = 12345;
    for (size_t li = 0; li < sizeof LAYERS / sizeof LAYERS[0]; li++) {
        const layer *L = &LAYERS[li];
        if (only && strcmp(only, L->net) && !strstr(L->name, only)) continue;
        pz_conv_params p = {.nsp = 2, .group = 1};
        for (int j = 0; j < 2; j++) {
            p.kernel[j] = L->k;
            p.stride[j] = p.dilation[j] = 1;
            p.pad_begin[j] = p.pad_end[j] = L->k / 2;
        }
        p.act.kind = PZ_ACT_RELU;
        const int64_t xd[4] = {1, L->c, L->h, L->h}, yd[4] = {1, L->m, L->h, L->h};
        pz_conv16c_desc d;
        if (pz_conv16c_init(&d, &p, xd, yd) || !pz_conv16c_bf16_ok(&d)) {
            fprintf(stderr, "bench_bf16: error: %s %s: no bf16 direct conv\n", L->net, L->name);
            return 1;
        }
        const int wok = pz_winograd_ok(&d);
        int64_t nx = pz_nchwxc_size(1, L->c, L->h, L->h, 16), ny = pz_nchwxc_size(1, L->m, L->h, L->h, 16);
        float *x = new_rand(nx, &seed), *w = new_rand((int64_t)L->m * L->c * L->k * L->k, &seed);
        float *bias = new_rand(L->m, &seed);
        float *wd = new_rand(pz_conv16c_weights_size(&d), &seed);
        float *wd16 = new_rand(pz_conv16c_weights_size(&d), &seed);
        float *u = new_rand(wok ? pz_winograd_weights_size(&d) : 1, &seed);
        float *u16 = new_rand(wok ? pz_winograd_weights_size(&d) : 1, &seed);
        float *bp = new_rand(pz_pack_bias16_size(L->m), &seed);
        float *s = new_rand(wok ? pz_winograd_scratch_size(&d, 1) : 1, &seed);
        float *y[4];
        for (int i = 0; i < 4; i++) y[i] = new_rand(ny, &seed);
        pz_conv16c_pack_weights(&d, w, wd);
        pz_conv16c_pack_weights(&d, w, wd16);
        pz_conv16c_bf16_convert(&d, wd16);
        if (wok) {
            pz_winograd_pack_weights(&d, w, u);
            pz_winograd_pack_weights(&d, w, u16);
            pz_winograd_bf16_convert(&d, u16);
        }
        pz_pack_bias16(L->m, bias, bp);
        double t[4][512];
        int n = 0;
        const int nk = wok ? 4 : 2;
        double t_start = bench_now();
        while (n < 512 && (n < 9 || bench_now() - t_start < min_time)) {
            for (int i = 0; i < nk; i++) {
                double t0 = bench_now();
                if (i == 0) k->conv2d(&d, x, wd, bp, NULL, y[0], 0, 1);
                else if (i == 1) dir16(&d, x, wd16, bp, NULL, y[1], 0, 1);
                else if (i == 2) wino(&d, x, u, bp, NULL, y[2], s, 0, 1);
                else wino16(&d, x, u16, bp, NULL, y[3], s, 0, 1);
                t[i][n] = bench_now() - t0;
            }
            n++;
        }
        double md[4] = {0};
        for (int i = 0; i < nk; i++) md[i] = median(t[i] + 2, n - 2);   /* 2 warm-up runs */
        double b32 = wok && md[2] < md[0] ? md[2] : md[0];
        double b16 = wok && md[3] < md[1] ? md[3] : md[1];
        printf("%-9s %-16s %2d %5d %5d %4d %9.3f %9.3f %9.3f %9.3f %7.2fx %9.1e %9.1e\n", L->net,
               L->name, L->k, L->c, L->m, L->h, md[0] * 1e3, md[1] * 1e3, md[2] * 1e3, md[3] * 1e3,
               b32 / b16, err(y[1], y[0], ny), wok ? err(y[3], y[2], ny) : 0.0);
        free(x), free(w), free(bias), free(wd), free(wd16), free(u), free(u16), free(bp), free(s);
        for (int i = 0; i < 4; i++) free(y[i]);
    }
    return 0;
}
