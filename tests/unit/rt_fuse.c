/* rt_fuse.c - depth-first fused F-Blocks (rt/fuse.h) against unfused MP 1.
 *
 * A small net with odd channel counts (partial 16-channel blocks), padding,
 * strides, dilation, a depthwise conv, max and average pooling, a conv with a
 * residual Z from earlier in the net, unary and binary layers, a conv whose
 * output is at most 7 wide (the kernel's two-row tiles: granularity 2), an
 * intermediate that is also a graph output (read after the run: in bands the
 * workers' private rows are copied back). Batch 1 and 2.
 *
 * The reference is the same net with one block per layer at MP 1 (unfused).
 * Each schedule (the whole net in one block; random partitions into
 * consecutive blocks; split auto/bands/channels; strips 0 (auto), 1, 2, 3, 5;
 * MP 1 and 2) must give every output BITWISE equal to it. It also checks that
 * fusion happened (pz_net_block_fuse_info: runs, split), that bands on two
 * cores recompute (redundant MACs > 0) and that channels and MP 1 do not.
 * (The unfused layers themselves are checked against the reference kernels
 * in rt_net_fast; the whole networks against PyTorch in tests/parts.)
 *
 * Prints `rt_fuse: P passed, F failed`; exits 1 on a failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/fuse.h"
#include "rt/kernels/kernels.h"
#include "rt/net.h"
#include "test_check.h"

/* the run options the nets compile with: main sets winograd per pass, and
 * fuse_windows = 0 for a comparison (as PZ_WINOGRAD, PZ_FUSE_WINDOWS) */
static pz_run_options run_opts = PZ_RUN_OPTIONS_DEFAULT;

/* xorshift64 (not rt_test.h's LCG): the weights, the inputs and the random
 * partitions below are drawn from it */
static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static float frand(void)
{
    return (float)(next() >> 40) / (float)(1 << 23) - 1.0f;   /* [-1, 1) */
}

static float *blobs[64];
static int n_blobs;

static float *blob(int64_t n, float scale)
{
    float *p = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) p[i] = scale * frand();
    blobs[n_blobs++] = p;
    return p;
}

typedef struct {
    int id;
    int64_t d[4];
} val;

static int n_layer;

static val conv(pz_net *net, val x, int64_t m, int k, int s, int p, int dil, int group,
                const val *z, pz_act_kind act)
{
    pz_conv_params cp = {0};
    cp.nsp = 2;
    cp.group = group;
    for (int j = 0; j < 2; j++) {
        cp.kernel[j] = k;
        cp.stride[j] = s;
        cp.dilation[j] = dil;
        cp.pad_begin[j] = cp.pad_end[j] = p;
    }
    cp.act.kind = act;
    cp.act.lo = 0;
    cp.act.hi = 6;
    int64_t c = x.d[1], wd[4] = {m, c / group, k, k};
    int64_t oh = (x.d[2] + 2 * p - dil * (k - 1) - 1) / s + 1;
    int64_t ow = (x.d[3] + 2 * p - dil * (k - 1) - 1) / s + 1;
    char name[32];
    snprintf(name, sizeof name, "conv%d", n_layer++);
    int w = pz_net_const(net, name, PZ_F32, 4, wd, blob(m * (c / group) * k * k,
                                                         1.5f / (float)(c / group * k * k)));
    int b = pz_net_const(net, "b", PZ_F32, 1, (int64_t[]){m}, blob(m, 0.1f));
    val y = {0, {x.d[0], m, oh, ow}};
    y.id = pz_net_tensor(net, name, PZ_F32, 4, y.d);
    pz_net_layer(net, name, PZ_OP_CONV, &cp, sizeof cp, (int[]){x.id, w, b, z ? z->id : -1}, 4,
                 &y.id, 1);
    return y;
}

static val pool(pz_net *net, val x, pz_pool_kind kind, int k, int s, int p, int cip)
{
    pz_pool_params pp = {0};
    pp.kind = kind;
    pp.nsp = 2;
    pp.count_include_pad = cip;
    for (int j = 0; j < 2; j++) {
        pp.kernel[j] = k;
        pp.stride[j] = s;
        pp.dilation[j] = 1;
        pp.pad_begin[j] = pp.pad_end[j] = p;
    }
    val y = {0, {x.d[0], x.d[1], (x.d[2] + 2 * p - k) / s + 1, (x.d[3] + 2 * p - k) / s + 1}};
    char name[32];
    snprintf(name, sizeof name, "pool%d", n_layer++);
    y.id = pz_net_tensor(net, name, PZ_F32, 4, y.d);
    pz_net_layer(net, name, PZ_OP_POOL, &pp, sizeof pp, &x.id, 1, &y.id, 1);
    return y;
}

static val unary(pz_net *net, val x, pz_unary_func f)
{
    pz_unary_params up = {f, 0.1f, 0, 0};
    val y = x;
    char name[32];
    snprintf(name, sizeof name, "unary%d", n_layer++);
    y.id = pz_net_tensor(net, name, PZ_F32, 4, y.d);
    pz_net_layer(net, name, PZ_OP_UNARY, &up, sizeof up, &x.id, 1, &y.id, 1);
    return y;
}

static val binary(pz_net *net, val a, val b, pz_binary_func f)
{
    pz_binary_params bp = {0};
    bp.func = f;
    val y = a;
    char name[32];
    snprintf(name, sizeof name, "binary%d", n_layer++);
    y.id = pz_net_tensor(net, name, PZ_F32, 4, y.d);
    pz_net_layer(net, name, PZ_OP_BINARY, &bp, sizeof bp, (int[]){a.id, b.id}, 2, &y.id, 1);
    return y;
}

#define MAX_BLOCKS 32
typedef struct {
    int nb;
    int first[MAX_BLOCKS], count[MAX_BLOCKS], mp[MAX_BLOCKS], strip[MAX_BLOCKS];
    pz_split_mode split[MAX_BLOCKS];
} schedule;

enum { N_OUT = 3 };
static int64_t out_n[N_OUT];

static size_t last_arena;   /* the arena bytes of build_run's last net */

/* Builds the net (batch n) with schedule s (NULL: unfused) and runs it on x;
 * outputs into out[]. Returns the layer count, or -1 on a compile error. */
static int build_run(int64_t batch, const schedule *s, const float *x, float **out,
                     pz_fuse_info *info)
{
    uint64_t seed = rng;
    int blobs0 = n_blobs;   /* this net's weights are freed with it */
    rng = 12345;   /* the same weights every time */
    n_layer = 0;
    pz_net *net = pz_net_new("fuse");
    val in = {0, {batch, 5, 37, 29}};
    in.id = pz_net_input(net, "x", PZ_F32, 4, in.d);
    val a = conv(net, in, 19, 3, 1, 1, 1, 1, NULL, PZ_ACT_RELU);      /* 37x29 */
    val b = conv(net, a, 24, 3, 2, 1, 1, 1, NULL, PZ_ACT_NONE);       /* 19x15 */
    /* two MobileNetV2 inverted residuals: 1x1 expand, 3x3 depthwise, 1x1
     * project (+ residual); in a fused run the expand and depthwise outputs
     * live in row windows (rt/fuse.c), the project output (a conv with a Z)
     * does not, and the second expand reads it */
    val ex = conv(net, b, 48, 1, 1, 0, 1, 1, NULL, PZ_ACT_CLIP);
    val dw = conv(net, ex, 48, 3, 1, 1, 1, 48, NULL, PZ_ACT_CLIP);
    val pr = conv(net, dw, 24, 1, 1, 0, 1, 1, &b, PZ_ACT_NONE);
    val ex2 = conv(net, pr, 40, 1, 1, 0, 1, 1, NULL, PZ_ACT_CLIP);
    val dw2 = conv(net, ex2, 40, 3, 2, 1, 1, 40, NULL, PZ_ACT_CLIP);  /* 10x8 */
    val c = conv(net, b, 24, 3, 1, 1, 1, 24, NULL, PZ_ACT_CLIP);      /* depthwise */
    val d = conv(net, c, 33, 1, 1, 0, 1, 1, NULL, PZ_ACT_NONE);       /* 1x1 */
    val e = pool(net, d, PZ_POOL_MAX, 3, 2, 1, 0);                    /* 10x8 */
    val pr2 = conv(net, dw2, 33, 1, 1, 0, 1, 1, &e, PZ_ACT_NONE);
    val f = conv(net, e, 33, 3, 1, 1, 1, 1, &e, PZ_ACT_RELU);         /* residual Z */
    val g = unary(net, f, PZ_UN_SIGMOID);
    val h = binary(net, g, pr2, PZ_BIN_ADD);
    val i = conv(net, h, 17, 3, 1, 2, 2, 1, NULL, PZ_ACT_NONE);       /* dilation 2 */
    val j = conv(net, i, 21, 3, 2, 1, 1, 1, NULL, PZ_ACT_RELU);       /* 5x4: two-row tiles */
    val k = pool(net, j, PZ_POOL_AVG, 3, 1, 1, 1);
    val l = pool(net, k, PZ_POOL_AVG, 2, 1, 0, 0);                    /* 4x3 */
    (void)l;
    pz_net_output(net, h.id);   /* an intermediate also a graph output */
    pz_net_output(net, k.id);
    pz_net_output(net, l.id);
    int nl = pz_net_n_layers(net);
    if (s)
        for (int q = 0; q < s->nb; q++) {
            pz_net_block(net, s->first[q], s->count[q], s->mp[q]);
            pz_net_block_knobs(net, s->first[q], s->split[q], s->strip[q]);
        }
    char err[512];
    if (pz_net_compile(net, 2, &run_opts, err, sizeof err)) {
        printf("compile: %s\n", err);
        pz_net_free(net);
        while (n_blobs > blobs0) free(blobs[--n_blobs]);
        rng = seed;
        return -1;
    }
    const val outs[N_OUT] = {h, k, l};
    for (int q = 0; q < N_OUT; q++) {
        out_n[q] = outs[q].d[0] * outs[q].d[1] * outs[q].d[2] * outs[q].d[3];
        if (!out[q]) out[q] = calloc((size_t)out_n[q], sizeof(float));
        memset(out[q], 0x7f, (size_t)out_n[q] * sizeof(float));
    }
    pz_net_run(net, (const void *const[]){x}, (void *const *)out);
    last_arena = pz_net_arena_bytes(net);
    if (info) {
        memset(info, 0, sizeof *info);
        for (int q = 0; q < pz_net_n_blocks(net); q++) {
            pz_fuse_info bi;
            pz_net_block_fuse_info(net, q, &bi);
            info->runs += bi.runs;
            info->fused_layers += bi.fused_layers;
            info->redundant_macs += bi.redundant_macs;
            info->windows += bi.windows;
            info->full_bytes += bi.full_bytes;
            if (bi.runs && info->split == PZ_SPLIT_AUTO) info->split = bi.split;
            if (bi.runs && !info->strip) info->strip = bi.strip;
        }
    }
    pz_net_free(net);
    while (n_blobs > blobs0) free(blobs[--n_blobs]);
    rng = seed;
    return nl;
}

static bool same(float **a, float **b)
{
    for (int q = 0; q < N_OUT; q++)
        if (memcmp(a[q], b[q], (size_t)out_n[q] * sizeof(float))) return false;
    return true;
}

/* A run never ends in a layer with one output row read from several rows of
 * the run (a global pool): strips count the last layer's rows, so the run
 * would be one strip, layer after layer, with no row windows. Here conv,
 * expand, depthwise and project at 24x24 then a 24x24 average pool, all in
 * one block: the pool runs alone, the convs before it fused in strips,
 * with row windows, and the output bitwise equal to the unfused net's. */
static void global_pool_ends_no_run(void)
{
    float *x = blob(6 * 24 * 24, 1.0f), ref[16], got[16];
    for (int v = 0; v < 5; v++) {
        /* v 0: unfused; 1..4: one block of all five layers, MP 1 or 2,
         * split channels or auto, strip 3 */
        int blobs0 = n_blobs;
        uint64_t seed = rng;
        rng = 777;
        pz_net *net = pz_net_new("gpool");
        val in = {0, {1, 6, 24, 24}};
        in.id = pz_net_input(net, "x", PZ_F32, 4, in.d);
        val a = conv(net, in, 16, 3, 1, 1, 1, 1, NULL, PZ_ACT_RELU);
        val ex = conv(net, a, 32, 1, 1, 0, 1, 1, NULL, PZ_ACT_CLIP);
        val dw = conv(net, ex, 32, 3, 1, 1, 1, 32, NULL, PZ_ACT_CLIP);
        val pr = conv(net, dw, 16, 1, 1, 0, 1, 1, NULL, PZ_ACT_NONE);
        val gp = pool(net, pr, PZ_POOL_AVG, 24, 1, 0, 0);
        pz_net_output(net, gp.id);
        int mp = v == 0 ? 1 : 1 + (v - 1) % 2;
        pz_split_mode split = v >= 3 ? PZ_SPLIT_AUTO : PZ_SPLIT_CHANNELS;
        if (v) {
            pz_net_block(net, 0, 5, mp);
            pz_net_block_knobs(net, 0, split, 3);
        }
        char err[512], what[256];
        int bad = pz_net_compile(net, 2, NULL, err, sizeof err);
        check(!bad, "the global-pool net compiles");
        if (!bad) {
            pz_net_run(net, (const void *const[]){x}, (void *const[]){v ? got : ref});
            pz_fuse_info fi = {0};
            if (v) pz_net_block_fuse_info(net, 0, &fi);
            snprintf(what, sizeof what, "global pool last, MP %d, split %d: runs %d of %d "
                     "layers, %d windows, bitwise equal to unfused", mp, (int)split, fi.runs,
                     fi.fused_layers, fi.windows);
            /* windows only where the run has more than one strip, so
             * only with the pool outside it */
            if (v) check(fi.runs >= 1 && fi.fused_layers >= 2 && fi.fused_layers <= 4 &&
                             fi.windows >= 1 && !memcmp(ref, got, sizeof ref), what);
        }
        pz_net_free(net);
        while (n_blobs > blobs0) free(blobs[--n_blobs]);
        rng = seed;
    }
}

int main(void)
{
    global_pool_ends_no_run();
    static const char *split_name[] = {"auto", "bands", "channels"};
    /* pass 0: direct convs only (PZ_WINOGRAD=0), every 3x3 conv row-local;
     * pass 1: Winograd wherever it applies (PZ_WINOGRAD=1): those layers
     * join fused runs too (whole rows of their 4x4 tiles), bitwise equal */
    for (int wino = 0; wino <= 1; wino++) {
    run_opts.winograd = wino;
    for (int64_t batch = 1; batch <= 2; batch++) {
        int64_t xn = batch * 5 * 37 * 29;
        float *x = blob(xn, 1.0f);
        float *ref[N_OUT] = {0}, *got[N_OUT] = {0};
        int nl = build_run(batch, NULL, x, ref, NULL);
        check(nl > 0, "the unfused net compiles");
        if (nl <= 0) break;
        char what[256];
        /* the whole net in one block, every split, strip and MP */
        static const int strips[] = {0, 1, 2, 3, 5};
        for (int sp = 0; sp < 3; sp++)
            for (int mp = 1; mp <= 2; mp++)
                for (size_t st = 0; st < sizeof strips / sizeof *strips; st++) {
                    schedule s = {1, {0}, {nl}, {mp}, {strips[st]}, {(pz_split_mode)sp}};
                    pz_fuse_info fi;
                    int r = build_run(batch, &s, x, got, &fi);
                    snprintf(what, sizeof what, "batch %lld, one block, %s, MP %d, strip %d: "
                             "bitwise equal to unfused MP 1", (long long)batch, split_name[sp],
                             mp, strips[st]);
                    check(r > 0 && same(ref, got), what);
                    snprintf(what, sizeof what, "batch %lld, one block, %s, MP %d, strip %d: "
                             "fused (runs %d, layers %d)", (long long)batch, split_name[sp], mp,
                             strips[st], fi.runs, fi.fused_layers);
                    /* auto on 2 cores: the run is cut before each 3x3
                     * layer that reads an intermediate of the run (all are
                     * far below 1 MiB here), so it takes several runs, some
                     * layers run alone, and no band recomputes a row */
                    bool cut = sp == PZ_SPLIT_AUTO && mp == 2;
                    if (!wino && cut) check(fi.runs >= 2 && fi.fused_layers < nl &&
                                                fi.redundant_macs == 0, what);
                    if (!cut) check(fi.runs >= 1 && fi.fused_layers == nl, what);
                    /* a, ex, dw, ex2, dw2, c, i: convs read only by convs, as X;
                     * none when the run is one strip of all 4 rows of the
                     * last layer (strip 5, and strip 0: the small net fits
                     * L2 whole, so the runtime takes one strip) */
                    int want = fi.strip < 4 ? 7 : 0;
                    snprintf(what, sizeof what, "batch %lld, one block, %s, MP %d, strip %d "
                             "(used %d): %d intermediates in row windows (want %d)",
                             (long long)batch, split_name[sp], mp, strips[st], fi.strip,
                             fi.windows, want);
                    if (!wino && !cut)
                        check(fi.windows == want && (strips[st] != 0 || fi.strip == 4), what);
                    /* the windowed intermediates take no arena space: the
                     * same schedule with full-size buffers (PZ_FUSE_WINDOWS=0)
                     * needs at least their bytes more */
                    if (!wino && !cut && want) {
                        size_t win_arena = last_arena;
                        run_opts.fuse_windows = 0;
                        pz_fuse_info fo;
                        int r2 = build_run(batch, &s, x, got, &fo);
                        run_opts.fuse_windows = 1;
                        snprintf(what, sizeof what, "batch %lld, one block, %s, MP %d, strip %d: "
                                 "arena %zu bytes with windows, %zu without; windowed "
                                 "intermediates %lld bytes", (long long)batch, split_name[sp],
                                 mp, strips[st], win_arena, last_arena,
                                 (long long)fi.full_bytes);
                        check(r2 > 0 && same(ref, got) && fo.windows == 0 &&
                                  fi.full_bytes > 0 &&
                                  last_arena >= win_arena + (size_t)fi.full_bytes, what);
                        printf("  %s\n", what);
                    }
                }
        /* a block of layers 0..9: bands recompute on 2 cores, channels and MP 1 never */
        for (int sp = 1; sp < 3; sp++)
            for (int mp = 1; mp <= 2; mp++) {
                schedule s = {1, {0}, {10}, {mp}, {2}, {(pz_split_mode)sp}};
                pz_fuse_info fi;
                int r = build_run(batch, &s, x, got, &fi);
                bool want_red = sp == PZ_SPLIT_BANDS && mp == 2;
                snprintf(what, sizeof what, "batch %lld, layers 0..9, %s, MP %d: bitwise, "
                         "split used %d, redundant MACs %lld", (long long)batch, split_name[sp],
                         mp, (int)fi.split, (long long)fi.redundant_macs);
                check(r > 0 && same(ref, got) &&
                          fi.runs == 1 && fi.fused_layers == 10 &&
                          (want_red ? fi.redundant_macs > 0 && fi.split == PZ_SPLIT_BANDS
                                    : fi.redundant_macs == 0),
                      what);
            }
        /* random partitions */
        for (int t = 0; t < 40; t++) {
            schedule s = {0};
            for (int at = 0; at < nl && s.nb < MAX_BLOCKS; s.nb++) {
                int cnt = 1 + (int)(next() % 6);
                if (at + cnt > nl) cnt = nl - at;
                s.first[s.nb] = at;
                s.count[s.nb] = cnt;
                s.mp[s.nb] = 1 + (int)(next() % 2);
                s.split[s.nb] = (pz_split_mode)(next() % 3);
                s.strip[s.nb] = (int)(next() % 5);
                at += cnt;
            }
            int r = build_run(batch, &s, x, got, NULL);
            snprintf(what, sizeof what, "Winograd %d, batch %lld, random partition %d (%d "
                     "blocks): bitwise", wino, (long long)batch, t, s.nb);
            check(r > 0 && same(ref, got), what);
        }
        for (int q = 0; q < N_OUT; q++) {
            free(ref[q]);
            free(got[q]);
        }
    }
    }
    for (int i = 0; i < n_blobs; i++) free(blobs[i]);
    return test_summary("rt_fuse");
}
