/* winograd.c - Winograd F(4x4, 3x3) against the direct NCHW16c conv, at 1
 * thread, on the 3x3 stride-1 layers of ResNet-18 and VGG-16 (224x224, batch
 * 1, pads 1). Built and run by bench/winograd/run.sh.
 *
 *   bench_winograd [--isa avx512|scalar] [--min-time S] [--only NET or part of a layer name]
 *
 * For each layer: the direct kernel (pz_fast_kernels_for(isa)->conv2d) and
 * Winograd (pz_winograd_kernel_for(isa)) on the same input, packed weights,
 * bias, residual where the network has one, and ReLU; 2 warm-up runs each,
 * then runs alternating direct / Winograd until --min-time seconds (default
 * 0.3) and at least 7 runs each; the time is the median. Effective GFLOP/s =
 * the direct conv's FLOPs (2 x MACs) / time, for both, so the two columns
 * compare. Also prints the normalised difference of the two outputs (max |w
 * - d| / max |d|) and the FMA peak probed in the same run (12 ZMM chains).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/fma_peak.h"
#include "../common/stats.h"
#include "rt/kernels/conv/winograd.h"

typedef struct {
    const char *net, *name;
    int count;               /* layers of this shape in the network */
    int c, m, h;             /* in channels, out channels, size (square) */
    int residual;
} layer;

static const layer LAYERS[] = {
    {"resnet18", "layer1 conv1", 2, 64, 64, 56, 0},
    {"resnet18", "layer1 conv2 +res", 2, 64, 64, 56, 1},
    {"resnet18", "layer2 conv (non-first)", 1, 128, 128, 28, 0},
    {"resnet18", "layer2 conv2 +res", 2, 128, 128, 28, 1},
    {"resnet18", "layer3 conv (non-first)", 1, 256, 256, 14, 0},
    {"resnet18", "layer3 conv2 +res", 2, 256, 256, 14, 1},
    {"resnet18", "layer4 conv (non-first)", 1, 512, 512, 7, 0},
    {"resnet18", "layer4 conv2 +res", 2, 512, 512, 7, 1},
    {"vgg16", "conv1_2", 1, 64, 64, 224, 0},
    {"vgg16", "conv2_1", 1, 64, 128, 112, 0},
    {"vgg16", "conv2_2", 1, 128, 128, 112, 0},
    {"vgg16", "conv3_1", 1, 128, 256, 56, 0},
    {"vgg16", "conv3_2/3", 2, 256, 256, 56, 0},
    {"vgg16", "conv4_1", 1, 256, 512, 28, 0},
    {"vgg16", "conv4_2/3", 2, 512, 512, 28, 0},
    {"vgg16", "conv5_1/2/3", 3, 512, 512, 14, 0},
};

int main(int argc, char **argv)
{
    const char *isa_name = "avx512", *only = NULL;
    double min_time = 0.3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--isa") && i + 1 < argc) isa_name = argv[++i];
        else if (!strcmp(argv[i], "--min-time") && i + 1 < argc) min_time = atof(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "bench_winograd: error: usage: bench_winograd [--isa avx512|scalar] "
                            "[--min-time S] [--only NET]\n");
            return 2;
        }
    }
    pz_isa isa = !strcmp(isa_name, "avx512") ? PZ_ISA_AVX512 : PZ_ISA_REF;
    if (isa == PZ_ISA_AVX512 && !__builtin_cpu_supports("avx512f")) {
        fprintf(stderr, "bench_winograd: error: this CPU has no AVX-512\n");
        return 1;
    }
    const pz_fast_kernels *k = pz_fast_kernels_for(isa);
    pz_winograd_fn wino = pz_winograd_kernel_for(isa);
    /* 1e6 rounds: about 0.1 s; ZMM where the CPU has it (--isa scalar may run without) */
    double peak = fma_peak_gflops(__builtin_cpu_supports("avx512f"), 1000000);
    printf("bench/winograd: Winograd F(4x4,3x3) vs direct conv, %s, 1 thread; FMA peak %.1f GFLOP/s\n",
           k->name, peak);
    printf("%-9s %-24s %5s %5s %4s %9s %9s %9s %9s %8s %9s\n", "net", "layer", "C", "M", "HW",
           "dir ms", "wino ms", "dir GF/s", "wino GF/s", "speedup", "max err");
    double tot_dir[2] = {0}, tot_win[2] = {0};
    unsigned seed = 12345;
    for (size_t li = 0; li < sizeof LAYERS / sizeof LAYERS[0]; li++) {
        const layer *L = &LAYERS[li];
        if (only && strcmp(only, L->net) && !strstr(L->name, only)) continue;
        pz_conv_params p = {.nsp = 2, .group = 1};
        for (int j = 0; j < 2; j++) {
            p.kernel[j] = 3;
            p.stride[j] = p.dilation[j] = 1;
            p.pad_begin[j] = p.pad_end[j] = 1;
        }
        p.act.kind = PZ_ACT_RELU;
        const int64_t xd[4] = {1, L->c, L->h, L->h}, yd[4] = {1, L->m, L->h, L->h};
        pz_conv16c_desc d;
        if (pz_conv16c_init(&d, &p, xd, yd) || !pz_winograd_ok(&d)) {
            fprintf(stderr, "bench_winograd: error: %s %s: not a Winograd layer\n", L->net, L->name);
            return 1;
        }
        int64_t nx = pz_nchwxc_size(1, L->c, L->h, L->h, 16), ny = pz_nchwxc_size(1, L->m, L->h, L->h, 16);
        float *x = new_rand(nx, &seed), *w = new_rand((int64_t)L->m * L->c * 9, &seed);
        float *bias = new_rand(L->m, &seed), *z = L->residual ? new_rand(ny, &seed) : NULL;
        float *wd = new_rand(pz_conv16c_weights_size(&d), &seed);
        float *u = new_rand(pz_winograd_weights_size(&d), &seed);
        float *bp = new_rand(pz_pack_bias16_size(L->m), &seed);
        float *s = new_rand(pz_winograd_scratch_size(&d, 1), &seed);
        float *yd_ = new_rand(ny, &seed), *yw = new_rand(ny, &seed);
        pz_conv16c_pack_weights(&d, w, wd);
        pz_winograd_pack_weights(&d, w, u);
        pz_pack_bias16(L->m, bias, bp);

        for (int r = 0; r < 2; r++) {
            k->conv2d(&d, x, wd, bp, z, yd_, 0, 1);
            wino(&d, x, u, bp, z, yw, s, 0, 1);
        }
        double dmax = 0, rmax = 0;
        for (int64_t i = 0; i < ny; i++) {
            double e = fabs((double)yw[i] - yd_[i]);
            if (!(e <= dmax)) dmax = isnan(e) ? INFINITY : e;
            if (fabs(yd_[i]) > rmax) rmax = fabs(yd_[i]);
        }
        double td[512], tw[512];
        int n = 0;
        double t_start = bench_now();
        while (n < 512 && (n < 7 || bench_now() - t_start < min_time)) {
            double t0 = bench_now();
            k->conv2d(&d, x, wd, bp, z, yd_, 0, 1);
            double t1 = bench_now();
            wino(&d, x, u, bp, z, yw, s, 0, 1);
            double t2 = bench_now();
            td[n] = t1 - t0;
            tw[n] = t2 - t1;
            n++;
        }
        double md = median(td, n), mw = median(tw, n);
        double flops = 2.0 * L->c * L->m * 9 * L->h * L->h;
        int ni = !strcmp(L->net, "vgg16");
        tot_dir[ni] += md * L->count;
        tot_win[ni] += (md < mw ? md : mw) * L->count;
        printf("%-9s %-24s %5d %5d %4d %9.3f %9.3f %9.1f %9.1f %7.2fx %9.1e\n", L->net, L->name, L->c,
               L->m, L->h, md * 1e3, mw * 1e3, flops / md * 1e-9, flops / mw * 1e-9, md / mw,
               rmax > 0 ? dmax / rmax : dmax);
        free(x), free(w), free(bias), free(z), free(wd), free(u), free(bp), free(s), free(yd_), free(yw);
    }
    for (int ni = 0; ni < 2; ni++)
        if (tot_dir[ni] > 0)
            printf("%s: all its 3x3 stride-1 layers: direct %.2f ms, best of the two per layer %.2f ms "
                   "(%.2fx)\n", ni ? "vgg16" : "resnet18", tot_dir[ni] * 1e3, tot_win[ni] * 1e3,
                   tot_dir[ni] / tot_win[ni]);
    return 0;
}
