/* synth.c - synthesized layers for `characterize` (DLFusion II.B and III.B):
 * a chain of `layers` identical convolutions {C_in, C_out, HW x HW, k x k}
 * (stride 1, "same" padding, ReLU epilogue), or one fully connected layer,
 * built directly through the runtime API (pz_rt.h) with fusion blocks of
 * `block` layers on `mp` cores, and timed: one warm-up run, then runs until
 * min_time seconds and at least 3 runs have passed (at most 400); the median
 * is returned in ms, negative on failure (message in err).
 *
 * A conv chain is timed as it runs inside a network: a 1x1 lead layer, in
 * its own block and not timed, takes the plain input and leaves it in the
 * blocked layout (NCHW16c), and the time is the profiled blocks of the chain,
 * without the conversion back to plain at the output. Timing the whole run
 * instead would charge a small conv two layout passes, more than the conv
 * itself (bench/RESULTS.md, 'synth: layout passes'). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../gen/net_build.h"   /* gen_run_options */
#include "../rt/pz_rt.h"
#include "../util/util.h"
#include "synth.h"

static void fill(float *x, size_t n, float scale, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = scale * (float)((double)(seed >> 8) / 8388608.0 - 1.0);
    }
}

/* The relative spread of the last timing: (3rd quartile - 1st) / median. */
static double last_spread;

/* The median time of a run, or with first_block > 0, of the profiled blocks
 * from first_block on (the untimed lead layer is block 0). */
static double time_net(pz_net *net, int threads, int first_block, const void *in, void *out,
                       double min_time, pz_err *err)
{
    char msg[512];
    if (pz_net_compile(net, threads, gen_run_options(), msg, sizeof msg)) {
        pz_fail(err, PZ_ERR_INTERNAL, "characterize: runtime compile failed: %s", msg);
        return -1;
    }
    const void *ins[1] = {in};
    void *outs[1] = {out};
    if (first_block > 0) pz_net_profile(net, 1);
    pz_net_run(net, ins, outs);   /* warm-up: caches, page faults, worker start */
    double t[400];
    int n = 0;
    double start = util_now_s();
    while (n < 400 && (n < 3 || util_now_s() - start < min_time)) {
        double t0 = util_now_s();
        pz_net_run(net, ins, outs);
        t[n] = (util_now_s() - t0) * 1e3;
        if (first_block > 0) {
            uint64_t ns = 0;
            for (int b = first_block; b < pz_net_n_blocks(net); b++)
                ns += pz_net_block_info(net, b, NULL, NULL, NULL);
            t[n] = (double)ns * 1e-6;
        }
        n++;
    }
    double med = util_median(t, n);   /* sorts t */
    last_spread = med > 0 ? (t[(3 * (n - 1)) / 4] - t[(n - 1) / 4]) / med : 0;
    return med;
}

double synth_last_spread(void)
{
    return last_spread;
}

/* A stride-1 "same" k x k conv of `group` groups with epilogue `act` (CLIP
 * is ReLU6). Always the direct algorithm: the study measures how well the
 * cores are used per operation; Winograd does fewer operations than it is
 * counted for. */
static pz_conv_params conv_params(int k, int group, pz_act_kind act)
{
    pz_conv_params cp;
    memset(&cp, 0, sizeof cp);
    cp.nsp = 2;
    cp.group = group;
    for (int d = 0; d < 2; d++) {
        cp.kernel[d] = k;
        cp.stride[d] = cp.dilation[d] = 1;
        cp.pad_begin[d] = k / 2;
        cp.pad_end[d] = k - 1 - k / 2;
    }
    cp.act.kind = act;
    cp.act.lo = 0, cp.act.hi = 6;
    cp.algo = PZ_CONV_DIRECT;
    return cp;
}

/* The blocks of a chain: the lead layer (0) alone, then `layers` layers in
 * blocks of `block` (the last one shorter), all on mp cores. */
static void chain_blocks(pz_net *net, int layers, int block, int mp)
{
    if (block < 1) block = 1;
    pz_net_block(net, 0, 1, mp);
    for (int f = 0; f < layers; f += block)
        pz_net_block(net, 1 + f, f + block <= layers ? block : layers - f, mp);
}

double synth_conv_ms(int c_in, int c_out, int hw, int k, int depthwise, int layers, int block,
                     int mp, double min_time, pz_err *err)
{
    if (layers > 1 || depthwise) c_in = c_out;   /* a chain keeps its channels */
    pz_net *net = pz_net_new("synth_conv");
    size_t nx = (size_t)c_in * hw * hw, ny = (size_t)c_out * hw * hw;
    const int cg = depthwise ? 1 : c_in;   /* input channels per group */
    size_t nw = (size_t)c_out * cg * k * k;
    float *x = pz_xmalloc(nx * 4), *y = pz_xmalloc(ny * 4), *w = pz_xmalloc(nw * 4);
    float *bias = pz_xcalloc((size_t)c_out, 4);
    fill(x, nx, 1.0f, 1);
    /* uniform with the variance 1/fan_in: values neither grow nor vanish
     * along the chain (no denormals, no infinities to slow anything) */
    fill(w, nw, (float)sqrt(3.0 / ((double)cg * k * k)), 2);
    int t = pz_net_input(net, "x", PZ_F32, 4, (int64_t[]){1, c_in, hw, hw});
    int wt = pz_net_const(net, "w", PZ_F32, 4, (int64_t[]){c_out, cg, k, k}, w);
    /* the lead: 1x1, c_in -> c_in, identity weights */
    float *wl = pz_xcalloc((size_t)c_in * c_in, 4);
    for (int c = 0; c < c_in; c++) wl[(size_t)c * c_in + c] = 1;
    int wlt = pz_net_const(net, "w_lead", PZ_F32, 4, (int64_t[]){c_in, c_in, 1, 1}, wl);
    int bt = pz_net_const(net, "b", PZ_F32, 1, (int64_t[]){c_out}, bias);
    pz_conv_params cp = conv_params(k, depthwise ? c_in : 1, PZ_ACT_RELU);
    pz_conv_params lp = conv_params(1, 1, PZ_ACT_NONE);
    int lo = pz_net_tensor(net, "lead", PZ_F32, 4, (int64_t[]){1, c_in, hw, hw});
    pz_net_layer(net, "lead", PZ_OP_CONV, &lp, sizeof lp, (int[]){t, wlt, -1}, 3,
                 &lo, 1);
    t = lo;
    for (int l = 0; l < layers; l++) {
        char name[32];
        snprintf(name, sizeof name, "conv%d", l);
        int o = pz_net_tensor(net, name, PZ_F32, 4, (int64_t[]){1, c_out, hw, hw});
        pz_net_layer(net, name, PZ_OP_CONV, &cp, sizeof cp, (int[]){t, wt, bt}, 3, &o, 1);
        t = o;
    }
    pz_net_output(net, t);
    chain_blocks(net, layers, block, mp);
    double ms = time_net(net, mp, 1, x, y, min_time, err);
    pz_net_free(net);
    free(x);
    free(y);
    free(w);
    free(bias);
    free(wl);
    return ms;
}

/* One conv layer of a synthesized chain: weights and bias made here, the
 * output tensor returned (or -1). */
static int chain_conv(pz_net *net, const char *name, int x, int c_in, int c_out, int hw, int k,
                      int dw, pz_act_kind act, int res, float **keep, int *n_keep, uint32_t seed)
{
    const int cg = dw ? 1 : c_in;
    size_t nw = (size_t)c_out * cg * k * k;
    float *w = pz_xmalloc(nw * 4), *b = pz_xcalloc((size_t)c_out, 4);
    fill(w, nw, (float)sqrt(3.0 / ((double)cg * k * k)), seed);
    keep[(*n_keep)++] = w;
    keep[(*n_keep)++] = b;
    char tn[48];
    snprintf(tn, sizeof tn, "%s.w", name);
    int wt = pz_net_const(net, tn, PZ_F32, 4, (int64_t[]){c_out, cg, k, k}, w);
    snprintf(tn, sizeof tn, "%s.b", name);
    int bt = pz_net_const(net, tn, PZ_F32, 1, (int64_t[]){c_out}, b);
    pz_conv_params cp = conv_params(k, dw ? c_in : 1, act);
    int o = pz_net_tensor(net, name, PZ_F32, 4, (int64_t[]){1, c_out, hw, hw});
    if (pz_net_layer(net, name, PZ_OP_CONV, &cp, sizeof cp, (int[]){x, wt, bt, res}, res >= 0 ? 4 : 3,
                     &o, 1) < 0)
        return -1;
    return o;
}

double synth_ir_ms(int c, int hw, int n_ir, int block, int mp, double min_time, pz_err *err)
{
    const int e = 6 * c, layers = 3 * n_ir;
    pz_net *net = pz_net_new("synth_ir");
    size_t nx = (size_t)c * hw * hw;
    float *x = pz_xmalloc(nx * 4), *y = pz_xmalloc(nx * 4);
    fill(x, nx, 1.0f, 1);
    float **keep = pz_xcalloc((size_t)(2 * layers + 2), sizeof *keep);
    int n_keep = 0;
    int t = pz_net_input(net, "x", PZ_F32, 4, (int64_t[]){1, c, hw, hw});
    t = chain_conv(net, "lead", t, c, c, hw, 1, 0, PZ_ACT_NONE, -1, keep, &n_keep, 9);
    for (int i = 0; i < n_ir && t >= 0; i++) {
        char name[32];
        int in = t;
        snprintf(name, sizeof name, "ir%d.expand", i);
        t = chain_conv(net, name, t, c, e, hw, 1, 0, PZ_ACT_CLIP, -1, keep, &n_keep, 10 + 3 * i);
        snprintf(name, sizeof name, "ir%d.dw", i);
        if (t >= 0) t = chain_conv(net, name, t, e, e, hw, 3, 1, PZ_ACT_CLIP, -1, keep, &n_keep, 11 + 3 * i);
        snprintf(name, sizeof name, "ir%d.project", i);
        if (t >= 0) t = chain_conv(net, name, t, e, c, hw, 1, 0, PZ_ACT_NONE, in, keep, &n_keep, 12 + 3 * i);
    }
    double ms = -1;
    if (t < 0) {
        pz_fail(err, PZ_ERR_INTERNAL, "characterize: building an inverted-residual chain failed");
    } else {
        pz_net_output(net, t);
        chain_blocks(net, layers, block, mp);
        ms = time_net(net, mp, 1, x, y, min_time, err);
    }
    pz_net_free(net);
    for (int i = 0; i < n_keep; i++) free(keep[i]);
    free(keep);
    free(x);
    free(y);
    return ms;
}

double synth_fc_ms(int m, int kdim, int n, int mp, double min_time, pz_err *err)
{
    pz_net *net = pz_net_new("synth_fc");
    float *a = pz_xmalloc((size_t)m * kdim * 4), *b = pz_xmalloc((size_t)n * kdim * 4);
    float *y = pz_xmalloc((size_t)m * n * 4);
    fill(a, (size_t)m * kdim, 1.0f, 3);
    fill(b, (size_t)n * kdim, (float)sqrt(3.0 / kdim), 4);
    int at = pz_net_input(net, "a", PZ_F32, 2, (int64_t[]){m, kdim});
    int bt = pz_net_const(net, "w", PZ_F32, 2, (int64_t[]){n, kdim}, b);
    int yt = pz_net_tensor(net, "y", PZ_F32, 2, (int64_t[]){m, n});
    pz_gemm_params gp;
    memset(&gp, 0, sizeof gp);
    gp.trans_b = 1;
    gp.alpha = 1;
    gp.beta = 1;
    pz_net_layer(net, "fc", PZ_OP_GEMM, &gp, sizeof gp, (int[]){at, bt, -1}, 3, &yt, 1);
    pz_net_output(net, yt);
    pz_net_block(net, 0, 1, mp);
    double ms = time_net(net, mp, 0, a, y, min_time, err);
    pz_net_free(net);
    free(a);
    free(b);
    free(y);
    return ms;
}
