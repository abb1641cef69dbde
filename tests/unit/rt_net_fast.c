/* rt_net_fast.c - whole nets through the runtime with the fast kernels and
 * blocked layouts (NCHW16c between layers), against the same nets run with
 * the reference kernels only (PZ_ISA=ref, plain NCHW everywhere), and MP 1
 * against MP 2, which must agree bit for bit (the fusion issue relies on it).
 *
 * Nets (odd channel counts throughout, so the last 16-channel block is
 * partial and its padded lanes must stay zero):
 *   convnet: a 7x7/2 stem on 3 channels (NHWC input) with ReLU, max pool,
 *            3x3 conv, BatchNorm, Relu, 1x1 conv with a residual Z and Clip,
 *            residual Add+ReLU, two Sigmoids (f(0) = 0.5) and their quotient
 *            (0/0 = NaN in padded lanes): each must re-zero its padded
 *            lanes, checked in the net's buffers; depthwise 3x3, strided 3x3, grouped convs (8 channels
 *            per group: the reference on plain NCHW; 16: fast, its plain
 *            input converted, with a blocked residual), average pool with
 *            count_include_pad, global average pool, Flatten, FC (Gemm);
 *            outputs: the FC's, a blocked feature map (converted back when
 *            copied out) and a plain one. Batch 1 and 2.
 *   groupnet: grouped convs of 2 to 8 channels per group (super-groups of
 *            block-diagonal weights, partial last blocks, a residual) and
 *            depthwise 5x5, 5x5/2 and dilated 3x3, a squeeze-excite scale
 *            (binaries with a per-channel operand), batch 1 and 2.
 *   fc:      Gemm (B transposed, bias, ReLU) then MatMul with a constant B,
 *            batch 1 (the GEMV path) and 3.
 * For each ISA this CPU and build have (avx512, avx2, scalar): MP 1 vs MP 2
 * bitwise; vs the reference within 1e-4 of max |ref|; the layers that must
 * run blocked do (pz_net_layer_out_layout).
 *
 * Prints `rt_net_fast: P passed, F failed`; exits 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cpu.h"
#include "rt/kernels/kernels.h"
#include "rt/net.h"
#include "rt_test.h"

/* the run options of the net being built (run_net sets the ISA cap) */
static pz_run_options run_isa = PZ_RUN_OPTIONS_DEFAULT;

/* Constant data of the nets, freed at the end. */
static float *blobs[256];
static int n_blobs;

static float *blob(int64_t n, float lo, float hi)
{
    float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) p[i] = lo + (hi - lo) * (frand() + 1) / 2;
    blobs[n_blobs++] = p;
    return p;
}

/* ---- building ---------------------------------------------------------------- */

typedef struct {
    pz_net *net;
    int id;
    int64_t d[4];
} val;

static int konst(pz_net *net, const char *name, int rank, const int64_t *dims, float lo,
                 float hi)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    return pz_net_const(net, name, PZ_F32, rank, dims, blob(n, lo, hi));
}

/* conv of x to m channels, k x k, stride s, pad p (all sides), group g; z: a
 * residual (id) or -1. Weights scaled by 1/sqrt(fan-in) to keep values O(1). */
static int conv_dil = 1;   /* the dilation of the convs conv() makes */

static val conv(val x, const char *name, int64_t m, int k, int s, int p, int64_t g,
                pz_act_kind act, int z)
{
    int ke = conv_dil * (k - 1) + 1;   /* the dilated kernel's extent */
    val y = {x.net, -1, {x.d[0], m, (x.d[2] + 2 * p - ke) / s + 1, (x.d[3] + 2 * p - ke) / s + 1}};
    char nm[64];
    float sc = 1.0f / sqrtf((float)(x.d[1] / g * k * k));
    snprintf(nm, sizeof nm, "%s.w", name);
    int w = konst(x.net, nm, 4, (int64_t[]){m, x.d[1] / g, k, k}, -1.7f * sc, 1.7f * sc);
    snprintf(nm, sizeof nm, "%s.b", name);
    int b = konst(x.net, nm, 1, (int64_t[]){m}, -0.2f, 0.2f);
    y.id = pz_net_tensor(x.net, name, PZ_F32, 4, y.d);
    pz_conv_params cp = {.nsp = 2, .group = g, .kernel = {k, k}, .stride = {s, s},
                         .dilation = {conv_dil, conv_dil}, .pad_begin = {p, p},
                         .pad_end = {p, p}, .act = {act, 0.0f, 6.0f}};
    pz_net_layer(x.net, name, PZ_OP_CONV, &cp, sizeof cp, (int[]){x.id, w, b, z}, z >= 0 ? 4 : 3,
                 &y.id, 1);
    return y;
}

static val same(val x, const char *name)
{
    val y = x;
    y.id = pz_net_tensor(x.net, name, PZ_F32, 4, y.d);
    return y;
}

static val unary(val x, const char *name, pz_unary_func f)
{
    val y = same(x, name);
    pz_unary_params up = {.func = f};
    pz_net_layer(x.net, name, PZ_OP_UNARY, &up, sizeof up, &x.id, 1, &y.id, 1);
    return y;
}

/* The same with parameters (LeakyRelu's slope, Clip's bounds). */
static val unary_p(val x, const char *name, pz_unary_func f, float alpha, float beta)
{
    val y = same(x, name);
    pz_unary_params up = {.func = f, .alpha = alpha, .beta = beta};
    pz_net_layer(x.net, name, PZ_OP_UNARY, &up, sizeof up, &x.id, 1, &y.id, 1);
    return y;
}

static val binary(val a, val b, const char *name, pz_binary_func f, pz_act_kind act)
{
    val y = same(a, name);
    pz_binary_params bp = {.func = f, .act = {act, 0, 0}};
    pz_net_layer(a.net, name, PZ_OP_BINARY, &bp, sizeof bp, (int[]){a.id, b.id}, 2, &y.id, 1);
    return y;
}

static val pool(val x, const char *name, pz_pool_kind kind, int k, int s, int p, int incl)
{
    val y = {x.net, -1, {x.d[0], x.d[1], (x.d[2] + 2 * p - k) / s + 1, (x.d[3] + 2 * p - k) / s + 1}};
    y.id = pz_net_tensor(x.net, name, PZ_F32, 4, y.d);
    pz_pool_params pp = {.kind = kind, .nsp = 2, .kernel = {k, k}, .stride = {s, s},
                         .dilation = {1, 1}, .pad_begin = {p, p}, .pad_end = {p, p},
                         .count_include_pad = incl};
    pz_net_layer(x.net, name, PZ_OP_POOL, &pp, sizeof pp, &x.id, 1, &y.id, 1);
    return y;
}

static val global_avg(val x, const char *name)
{
    val y = {x.net, -1, {x.d[0], x.d[1], 1, 1}};
    y.id = pz_net_tensor(x.net, name, PZ_F32, 4, y.d);
    pz_pool_params pp = {.kind = PZ_POOL_AVG, .nsp = 2, .kernel = {x.d[2], x.d[3]},
                         .stride = {1, 1}, .dilation = {1, 1}};
    pz_net_layer(x.net, name, PZ_OP_POOL, &pp, sizeof pp, &x.id, 1, &y.id, 1);
    return y;
}

static pz_act bn_act;   /* the activation of the BatchNorms batchnorm() makes */

static val batchnorm(val x, const char *name)
{
    val y = same(x, name);
    int64_t c = x.d[1];
    int s = konst(x.net, "bn.s", 1, &c, 0.5f, 1.5f), b = konst(x.net, "bn.b", 1, &c, -0.5f, 0.5f);
    int m = konst(x.net, "bn.m", 1, &c, -0.3f, 0.3f), v = konst(x.net, "bn.v", 1, &c, 0.5f, 2.0f);
    pz_bn_params bp = {.epsilon = 1e-5f, .act = bn_act};
    pz_net_layer(x.net, name, PZ_OP_BATCHNORM, &bp, sizeof bp, (int[]){x.id, s, b, m, v}, 5,
                 &y.id, 1);
    return y;
}

/* A finished net: its output sizes, the layers that must run blocked. */
typedef struct {
    pz_net *net;
    int n_out;
    int64_t out_n[8];
    int blocked[32], n_blocked;   /* layer indices whose output must be NCHW16c */
    int zero_ids[4], n_zero;      /* blocked outputs whose padded lanes must be 0 */
    int kernel_layer;             /* a layer whose kernel must be `kernel` (0: none) */
    const char *kernel;
    int64_t in_n;
} built;

static built build_convnet(int64_t batch)
{
    built b = {.net = pz_net_new("convnet")};
    pz_net *net = b.net;
    val x = {net, -1, {batch, 3, 23, 21}};
    x.id = pz_net_input(net, "x", PZ_F32, 4, x.d);
    b.in_n = batch * 3 * 23 * 21;
    val t0 = conv(x, "stem", 20, 7, 2, 3, 1, PZ_ACT_RELU, -1);            /* 0 */
    val t1 = pool(t0, "maxpool", PZ_POOL_MAX, 3, 2, 1, 0);                 /* 1 */
    val t2 = conv(t1, "c3x3", 37, 3, 1, 1, 1, PZ_ACT_NONE, -1);            /* 2 */
    val t3 = batchnorm(t2, "bn");                                          /* 3 */
    val t4 = unary(t3, "relu", PZ_UN_RELU);                                /* 4 */
    val t5 = conv(t4, "c1x1z", 37, 1, 1, 0, 1, PZ_ACT_CLIP, t4.id);        /* 5 */
    val t6 = binary(t5, t4, "add", PZ_BIN_ADD, PZ_ACT_RELU);               /* 6 */
    val t7 = unary(t5, "sigmoid", PZ_UN_SIGMOID);                          /* 7 */
    val t7b = unary(t6, "sigmoid2", PZ_UN_SIGMOID);                        /* 8 */
    /* 0/0 = NaN in the padded lanes unless re-zeroed (the next conv would
     * read it: 0 * NaN = NaN); both outputs, so their buffers are kept */
    val t8 = binary(t7, t7b, "div", PZ_BIN_DIV, PZ_ACT_NONE);              /* 9 */
    val t9 = conv(t8, "dw", 37, 3, 1, 1, 37, PZ_ACT_RELU, -1);             /* 10 */
    val t10 = conv(t9, "c3x3s2", 32, 3, 2, 1, 1, PZ_ACT_NONE, -1);         /* 11 */
    val t11 = conv(t10, "g4", 32, 3, 1, 1, 4, PZ_ACT_NONE, -1);            /* 12: 2 x 2 groups */
    val t12 = conv(t11, "g2", 32, 3, 1, 1, 2, PZ_ACT_RELU, t10.id);        /* 13 */
    val t13 = pool(t12, "avgpool", PZ_POOL_AVG, 3, 1, 1, 1);               /* 14 */
    val t14 = global_avg(t13, "gap");                                      /* 15 */
    int64_t fd[2] = {batch, 32}, od[2] = {batch, 10};
    int t15 = pz_net_tensor(net, "flat", PZ_F32, 2, fd);
    pz_net_layer(net, "flatten", PZ_OP_COPY, NULL, 0, &t14.id, 1, &t15, 1);   /* 16 */
    int w = konst(net, "fc.w", 2, (int64_t[]){10, 32}, -0.3f, 0.3f);
    int c = konst(net, "fc.b", 1, (int64_t[]){10}, -0.1f, 0.1f);
    int t16 = pz_net_tensor(net, "fc", PZ_F32, 2, od);
    pz_gemm_params gp = {.trans_b = 1, .alpha = 1.0f, .beta = 1.0f};
    pz_net_layer(net, "fc", PZ_OP_GEMM, &gp, sizeof gp, (int[]){t15, w, c}, 3, &t16, 1); /* 17 */
    pz_net_output(net, t16);
    pz_net_output(net, t9.id);
    pz_net_output(net, t11.id);
    pz_net_output(net, t7.id);
    pz_net_output(net, t8.id);
    b.n_out = 5;
    b.zero_ids[b.n_zero++] = t7.id;
    b.zero_ids[b.n_zero++] = t8.id;
    b.out_n[0] = batch * 10;
    b.out_n[1] = pz_numel(&(pz_tensor){.rank = 4, .dims = {t9.d[0], t9.d[1], t9.d[2], t9.d[3]}});
    b.out_n[2] = pz_numel(&(pz_tensor){.rank = 4, .dims = {t11.d[0], t11.d[1], t11.d[2], t11.d[3]}});
    b.out_n[3] = b.out_n[4] = pz_numel(&(pz_tensor){.rank = 4, .dims = {t8.d[0], t8.d[1], t8.d[2], t8.d[3]}});
    static const int must[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    for (size_t i = 0; i < sizeof must / sizeof *must; i++) b.blocked[b.n_blocked++] = must[i];
    return b;
}

/* Grouped convs under 16 channels per group (rt/ops/conv.c: super-groups
 * of k groups with block-diagonal weights), each must run blocked:
 *   ga  24 -> 48, 6 groups of 4 -> 8: k = 4, super-groups of 4 and 2 groups
 *   gc  40 -> 40 3x3/2, 5 groups of 8: k = 2, the last super-group one group,
 *       its block half full
 *   gd  the same at stride 1 with gc's output as residual Z, Clip
 *   ge  40 -> 80 1x1, 10 groups of 4 -> 8: k = 4 (4, 4, 2)
 *   gf  80 -> 80 3x3, 40 groups of 2: k = 8 > 4, the reference (plain)
 * then depthwise convs of other kernels (dwconvk16c.h) on gd's 40 channels:
 * 5x5, 5x5 stride 2, 3x3 dilation 2 with a residual. */
static built build_groupnet(int64_t batch)
{
    built b = {.net = pz_net_new("groupnet")};
    pz_net *net = b.net;
    val x = {net, -1, {batch, 24, 13, 29}};
    x.id = pz_net_input(net, "x", PZ_F32, 4, x.d);
    b.in_n = batch * 24 * 13 * 29;
    val ga = conv(x, "ga", 48, 3, 1, 1, 6, PZ_ACT_RELU, -1);      /* 0 */
    val gb = conv(ga, "gb", 40, 1, 1, 0, 1, PZ_ACT_NONE, -1);     /* 1 */
    val gc = conv(gb, "gc", 40, 3, 2, 1, 5, PZ_ACT_NONE, -1);     /* 2: 7x15 */
    val gd = conv(gc, "gd", 40, 3, 1, 1, 5, PZ_ACT_CLIP, gc.id);  /* 3 */
    val ge = conv(gd, "ge", 80, 1, 1, 0, 10, PZ_ACT_NONE, -1);    /* 4 */
    val gf = conv(ge, "gf", 80, 3, 1, 1, 40, PZ_ACT_RELU, -1);    /* 5: reference */
    /* depthwise of other kernels (dwconvk16c.h), on 40 channels (a partial
     * block), rows wide enough for interior tiles of 8 and single pixels:
     * 5x5, 5x5 stride 2, 3x3 dilation 2 with a residual */
    val d5 = conv(gd, "d5", 40, 5, 1, 2, 40, PZ_ACT_CLIP, -1);    /* 6: 7x15 */
    val d5s = conv(gb, "d5s2", 40, 5, 2, 2, 40, PZ_ACT_NONE, -1); /* 7: 7x15 */
    conv_dil = 2;
    val dd = conv(d5, "dd2", 40, 3, 1, 2, 40, PZ_ACT_RELU, d5s.id); /* 8 */
    conv_dil = 1;
    /* squeeze-excite: a per-channel scale [N, 40, 1, 1] times the map (A
     * broadcast), the map minus it with ReLU (B broadcast), then a
     * same-shaped Sub with Clip: blocked binary16c */
    val sq = conv(global_avg(dd, "se.gap"), "se.fc", 40, 1, 1, 0, 1, PZ_ACT_NONE, -1); /* 9, 10 */
    val sc = unary(sq, "se.sig", PZ_UN_SIGMOID);                                        /* 11 */
    val m1 = same(dd, "se.mul"), m2 = same(dd, "se.sub"), m3 = same(dd, "se.sub2");
    pz_binary_params bp1 = {.func = PZ_BIN_MUL}, bp2 = {.func = PZ_BIN_SUB, .act = {PZ_ACT_RELU, 0, 0}};
    pz_binary_params bp3 = {.func = PZ_BIN_SUB, .act = {PZ_ACT_CLIP, -2.0f, 0.25f}};
    pz_net_layer(net, "se.mul", PZ_OP_BINARY, &bp1, sizeof bp1, (int[]){sc.id, dd.id}, 2, &m1.id, 1);
    pz_net_layer(net, "se.sub", PZ_OP_BINARY, &bp2, sizeof bp2, (int[]){m1.id, sc.id}, 2, &m2.id, 1);
    pz_net_layer(net, "se.sub2", PZ_OP_BINARY, &bp3, sizeof bp3, (int[]){m2.id, dd.id}, 2, &m3.id,
                 1);                                                                   /* 12-14 */
    pz_net_output(net, gd.id);
    pz_net_output(net, gf.id);
    pz_net_output(net, dd.id);
    /* blocked LeakyRelu and Clip (AVX-512: the reference's bits), then
     * BatchNorms with a fused Clip above 0 (padded lanes re-zeroed) and ReLU */
    val lk = unary_p(m3, "lk", PZ_UN_LEAKY_RELU, 0.1f, 0.0f);                          /* 15 */
    val cl = unary_p(lk, "cl", PZ_UN_CLIP, -0.05f, 0.2f);                              /* 16 */
    bn_act = (pz_act){.kind = PZ_ACT_CLIP, .lo = 0.1f, .hi = 0.9f};
    val bn1 = batchnorm(cl, "bnclip");                                                 /* 17 */
    bn_act = (pz_act){.kind = PZ_ACT_RELU};
    val bn2 = batchnorm(bn1, "bnrelu");                                                /* 18 */
    bn_act = (pz_act){.kind = PZ_ACT_NONE};
    pz_net_output(net, bn2.id);
    pz_net_output(net, m1.id);
    pz_net_output(net, bn1.id);
    /* ReduceMean over H and W of a blocked map, 40 channels (a partial
     * block) into plain [N, 40]: the global average pool's kernel */
    int64_t rmd[2] = {batch, 40};
    int rm = pz_net_tensor(net, "rmean", PZ_F32, 2, rmd);
    pz_reduce_params rp = {.axes_mask = 0xc};
    pz_net_layer(net, "rmean", PZ_OP_REDUCE_MEAN, &rp, sizeof rp, &bn2.id, 1, &rm, 1); /* 19 */
    pz_net_output(net, rm);
    b.out_n[6] = batch * 40;
    b.kernel_layer = 19;
    b.kernel = "global-avg16c";
    b.n_out = 7;
    b.out_n[3] = b.out_n[4] = b.out_n[5] =
        pz_numel(&(pz_tensor){.rank = 4, .dims = {dd.d[0], dd.d[1], dd.d[2], dd.d[3]}});
    b.out_n[0] = pz_numel(&(pz_tensor){.rank = 4, .dims = {gd.d[0], gd.d[1], gd.d[2], gd.d[3]}});
    b.out_n[1] = pz_numel(&(pz_tensor){.rank = 4, .dims = {gf.d[0], gf.d[1], gf.d[2], gf.d[3]}});
    b.out_n[2] = pz_numel(&(pz_tensor){.rank = 4, .dims = {dd.d[0], dd.d[1], dd.d[2], dd.d[3]}});
    b.zero_ids[b.n_zero++] = gd.id;
    b.zero_ids[b.n_zero++] = dd.id;
    b.zero_ids[b.n_zero++] = bn2.id;
    b.zero_ids[b.n_zero++] = bn1.id;
    static const int must[] = {0, 1, 2, 3, 4, 6, 7, 8, 12, 13, 14, 15, 16, 17, 18};
    for (size_t i = 0; i < sizeof must / sizeof *must; i++) b.blocked[b.n_blocked++] = must[i];
    return b;
}

/* Channel moves on NCHW16c (the channel gather, rt/ops/chgather.c), as
 * ShuffleNetV2 does them, each checked to run blocked:
 *   cat    Concat of 29 + 29 conv outputs (not on block bounds)      -> 58
 *   shuf   Gather along channels by constant indices (a shuffle of 2
 *          groups, one index negative)                              -> 58
 *   s0, s1 Slice of channels [0, 29) and [29, 58), each read by a conv
 *   s2     Slice of channels 3, 8, ..., 53 (step 5)                  -> 11
 *   cat3   Concat of 20 + 7 + 11                                     -> 38
 * with a batch of 2 images, whose blocks are per image. */
static built build_shufflenet(int64_t batch)
{
    built b = {.net = pz_net_new("shufflenet")};
    pz_net *net = b.net;
    val x = {net, -1, {batch, 19, 9, 11}};
    x.id = pz_net_input(net, "x", PZ_F32, 4, x.d);
    b.in_n = batch * 19 * 9 * 11;
    val a = conv(x, "a", 29, 3, 1, 1, 1, PZ_ACT_RELU, -1);                 /* 0 */
    val c = conv(x, "c", 29, 1, 1, 0, 1, PZ_ACT_NONE, -1);                 /* 1 */
    pz_axis_params ax = {.axis = 1};
    val cat = {net, -1, {batch, 58, 9, 11}};
    cat.id = pz_net_tensor(net, "cat", PZ_F32, 4, cat.d);
    pz_net_layer(net, "cat", PZ_OP_CONCAT, &ax, sizeof ax, (int[]){a.id, c.id}, 2, &cat.id, 1); /* 2 */
    static int64_t idx[58];
    for (int64_t k = 0; k < 29; k++)
        for (int64_t j = 0; j < 2; j++) idx[k * 2 + j] = j * 29 + k;
    idx[5] -= 58;   /* the same channel, counted from the end */
    int ix = pz_net_const(net, "shuf.idx", PZ_I64, 1, (int64_t[]){58}, idx);
    val shuf = same(cat, "shuf");
    pz_net_layer(net, "shuf", PZ_OP_GATHER, &ax, sizeof ax, (int[]){cat.id, ix}, 2, &shuf.id, 1); /* 3 */
    val s0 = {net, -1, {batch, 29, 9, 11}}, s1 = s0, s2 = {net, -1, {batch, 11, 9, 11}};
    s0.id = pz_net_tensor(net, "s0", PZ_F32, 4, s0.d);
    s1.id = pz_net_tensor(net, "s1", PZ_F32, 4, s1.d);
    s2.id = pz_net_tensor(net, "s2", PZ_F32, 4, s2.d);
    pz_slice_params sp = {.start = {0, 0, 0, 0}, .step = {1, 1, 1, 1}};
    pz_net_layer(net, "s0", PZ_OP_SLICE, &sp, sizeof sp, &shuf.id, 1, &s0.id, 1);   /* 4 */
    sp.start[1] = 29;
    pz_net_layer(net, "s1", PZ_OP_SLICE, &sp, sizeof sp, &shuf.id, 1, &s1.id, 1);   /* 5 */
    sp.start[1] = 3;
    sp.step[1] = 5;
    pz_net_layer(net, "s2", PZ_OP_SLICE, &sp, sizeof sp, &shuf.id, 1, &s2.id, 1);   /* 6 */
    val d0 = conv(s0, "d0", 20, 1, 1, 0, 1, PZ_ACT_NONE, -1);              /* 7 */
    val d1 = conv(s1, "d1", 7, 3, 1, 1, 1, PZ_ACT_RELU, -1);               /* 8 */
    val cat3 = {net, -1, {batch, 38, 9, 11}};
    cat3.id = pz_net_tensor(net, "cat3", PZ_F32, 4, cat3.d);
    pz_net_layer(net, "cat3", PZ_OP_CONCAT, &ax, sizeof ax, (int[]){d0.id, d1.id, s2.id}, 3,
                 &cat3.id, 1);                                             /* 9 */
    val e = conv(cat3, "e", 16, 1, 1, 0, 1, PZ_ACT_NONE, -1);              /* 10 */
    pz_net_output(net, e.id);
    pz_net_output(net, shuf.id);
    pz_net_output(net, cat3.id);
    b.n_out = 3;
    b.out_n[0] = batch * 16 * 9 * 11;
    b.out_n[1] = batch * 58 * 9 * 11;
    b.out_n[2] = batch * 38 * 9 * 11;
    b.zero_ids[b.n_zero++] = shuf.id;
    b.zero_ids[b.n_zero++] = cat3.id;
    b.zero_ids[b.n_zero++] = s2.id;
    b.kernel_layer = 3;
    b.kernel = "chgather16c";
    static const int must[] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 10};
    for (size_t i = 0; i < sizeof must / sizeof *must; i++) b.blocked[b.n_blocked++] = must[i];
    return b;
}

static built build_fc(int64_t batch)
{
    built b = {.net = pz_net_new("fc")};
    pz_net *net = b.net;
    int64_t xd[2] = {batch, 300}, hd[2] = {batch, 77}, yd[2] = {batch, 45};
    int x = pz_net_input(net, "x", PZ_F32, 2, xd);
    b.in_n = batch * 300;
    int w = konst(net, "w", 2, (int64_t[]){77, 300}, -0.1f, 0.1f);
    int c = konst(net, "c", 1, (int64_t[]){77}, -0.1f, 0.1f);
    int h = pz_net_tensor(net, "h", PZ_F32, 2, hd);
    pz_gemm_params gp = {.trans_b = 1, .alpha = 0.5f, .beta = 2.0f, .act = {PZ_ACT_RELU, 0, 0}};
    pz_net_layer(net, "gemm", PZ_OP_GEMM, &gp, sizeof gp, (int[]){x, w, c}, 3, &h, 1);
    int w2 = konst(net, "w2", 2, (int64_t[]){77, 45}, -0.2f, 0.2f);
    int y = pz_net_tensor(net, "y", PZ_F32, 2, yd);
    pz_net_layer(net, "matmul", PZ_OP_MATMUL, NULL, 0, (int[]){h, w2}, 2, &y, 1);
    pz_net_output(net, y);
    /* GELU (erf form) on a plain [batch, 48]: whole vectors, the blocked
     * kernel over the flat buffer */
    int64_t zd[2] = {batch, 48};
    int w3 = konst(net, "w3", 2, (int64_t[]){77, 48}, -0.3f, 0.3f);
    int z = pz_net_tensor(net, "z", PZ_F32, 2, zd), gz = pz_net_tensor(net, "gz", PZ_F32, 2, zd);
    pz_net_layer(net, "matmul3", PZ_OP_MATMUL, NULL, 0, (int[]){h, w3}, 2, &z, 1);
    pz_unary_params up = {.func = PZ_UN_GELU};
    pz_net_layer(net, "gelu", PZ_OP_UNARY, &up, sizeof up, &z, 1, &gz, 1);   /* 3 */
    pz_net_output(net, gz);
    b.n_out = 2;
    b.out_n[0] = batch * 45;
    b.out_n[1] = batch * 48;
    if (pz_isa_capped(run_isa.isa) == PZ_ISA_AVX512) {   /* run_isa set by run_net */
        b.kernel_layer = 3;
        b.kernel = "unary16c-flat";
    }
    return b;
}

/* ---- running ------------------------------------------------------------------ */

typedef built (*builder)(int64_t batch);

/* Builds the net capped to isa (as PZ_ISA=isa) with every layer in one block of MP mp,
 * runs it on x, returns its outputs (malloc'd, NaN-filled first). */
static int run_net(builder make, int64_t batch, const char *isa, int mp, const float *x,
                   float **out, built *info)
{
    run_isa = rt_options_isa(isa);
    rng = 0x12345678u;   /* the same constants every time */
    built b = make(batch);
    pz_net_block(b.net, 0, pz_net_n_layers(b.net), mp);
    char err[512];
    if (pz_net_compile(b.net, mp, &run_isa, err, sizeof err)) {
        printf("FAIL compile %s: %s\n", isa, err);
        failed++;
        pz_net_free(b.net);
        return 1;
    }
    void *outs[8];
    for (int i = 0; i < b.n_out; i++) {
        out[i] = new_nan(b.out_n[i]);
        outs[i] = out[i];
    }
    const void *ins[1] = {x};
    pz_net_run(b.net, ins, outs);
    pz_net_run(b.net, ins, outs);   /* twice: nothing may depend on a fresh arena */
    *info = b;
    return 0;
}

static void test_net(const char *name, builder make, int64_t batch, const char *const *isas,
                     int n_isas)
{
    built info;
    float *x = NULL;
    float *ref[8] = {0};
    {
        rng = 0x12345678u;
        built tmp = make(batch);
        pz_net_free(tmp.net);
        rng = 0xabcdefu;
        x = new_rand(tmp.in_n);
        for (int i = 0; i < n_blobs; i++) free(blobs[i]);
        n_blobs = 0;
    }
    if (run_net(make, batch, "ref", 1, x, ref, &info)) return;
    pz_net_free(info.net);
    for (int i = 0; i < n_isas; i++) {
        float *o1[8] = {0}, *o2[8] = {0};
        built b1, b2;
        char what[128];
        snprintf(what, sizeof what, "%s batch %lld", name, (long long)batch);
        if (run_net(make, batch, isas[i], 1, x, o1, &b1)) continue;
        if (run_net(make, batch, isas[i], 2, x, o2, &b2)) continue;
        for (int k = 0; k < b1.n_blocked; k++) {
            int l = b1.blocked[k];
            char lw[64];
            snprintf(lw, sizeof lw, "layer %d (%s)", l, pz_net_layer_name(b1.net, l));
            checkf(pz_net_layer_out_layout(b1.net, l, 0) == 16, "%s: %s runs blocked", what, lw);
        }
        if (b1.kernel) {
            const char *kn = pz_net_layer_kernel(b1.net, b1.kernel_layer);
            checkf(kn && !strcmp(kn, b1.kernel), "%s: %s: layer %d runs %s (%s)", what, isas[i],
                   b1.kernel_layer, b1.kernel, kn ? kn : "the op's own");
        }
        for (int k = 0; k < b1.n_zero; k++) {
            int cb = -1;
            const pz_tensor *t = pz_net_tensor_held(b2.net, b1.zero_ids[k], &cb);
            bool zero = cb == 16;
            int64_t nb = (t->dims[1] + 15) / 16, hw = t->dims[2] * t->dims[3];
            for (int64_t im = 0; zero && im < t->dims[0]; im++)
                for (int64_t px = 0; px < hw; px++)
                    for (int64_t lane = t->dims[1] - (nb - 1) * 16; lane < 16; lane++)
                        if (((const float *)t->data)[((im * nb + nb - 1) * hw + px) * 16 + lane])
                            zero = false;
            char tw[64];
            snprintf(tw, sizeof tw, "%s tensor %d", isas[i], b1.zero_ids[k]);
            checkf(zero, "%s: %s is blocked with its padded lanes zero", what, tw);
        }
        for (int o = 0; o < b1.n_out; o++) {
            char ow[64];
            snprintf(ow, sizeof ow, "%s output %d", isas[i], o);
            size_t bytes = sizeof(float) * (size_t)b1.out_n[o];
            checkf(memcmp(o1[o], o2[o], bytes) == 0, "%s: %s: MP 1 and MP 2 bitwise equal", what,
                   ow);
            double e = nerr(o1[o], ref[o], ref[o], b1.out_n[o]);
            char ew[96];
            snprintf(ew, sizeof ew, "%s: error %.3g", ow, e);
            checkf(e <= 1e-4, "%s: %s vs the reference kernels (<= 1e-4)", what, ew);
            free(o1[o]);
            free(o2[o]);
        }
        pz_net_free(b1.net);
        pz_net_free(b2.net);
    }
    for (int o = 0; o < 8; o++) free(ref[o]);
    free(x);
    for (int i = 0; i < n_blobs; i++) free(blobs[i]);
    n_blobs = 0;
}

int main(void)
{
    const char *isas[3];
    int n = 0;
    isas[n++] = "scalar";
    pz_isa best = pz_cpu_isa();   /* the CPU's best */
    if (best >= PZ_ISA_AVX2) isas[n++] = "avx2";
    if (best >= PZ_ISA_AVX512) isas[n++] = "avx512";
    for (int64_t batch = 1; batch <= 2; batch++) test_net("convnet", build_convnet, batch, isas, n);
    for (int64_t batch = 1; batch <= 2; batch++) test_net("groupnet", build_groupnet, batch, isas, n);
    for (int64_t batch = 1; batch <= 2; batch++)
        test_net("shufflenet", build_shufflenet, batch, isas, n);
    test_net("fc", build_fc, 1, isas, n);
    test_net("fc", build_fc, 3, isas, n);
    return test_summary("rt_net_fast");
}
