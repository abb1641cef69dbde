/* characterize.c - the micro-benchmark study of this machine (DLFusion II.B,
 * III.B, IV.A on the CPU): synthesized conv and FC layers swept over
 * operation count, channels, kernel size, feature-map size and MP; chains
 * of identical layers (3x3 convs, MobileNetV2's inverted-residual blocks)
 * fused in blocks of 1 to 16 layers (Fig. 5b, 7b, 7c). From the timings:
 *   - OpCount_critical: the op count per core of a fused block at which the
 *     inverted-residual chains run fastest on all cores (the median over the
 *     chains that fusing speeds up: Fig. 7c); for the record and as the
 *     fallback when fusing speeds up nothing, the op count from which one
 *     core reaches 85% of its plateau (a fixed cost plus a rate, fitted to
 *     the single-core convs: Fig. 3b);
 *   - the MP model of Eq. 5, log2 MP = alpha*log2 C + beta*log2 ops + gamma,
 *     fitted by least squares to the fastest MP of each conv and FC layer,
 *     the depthwise ones included (MobileNetV2's have few operations for their
 *     channels; left out, the fit would not know how they scale);
 *   - the influence of each feature on single-core performance by PCA over
 *     the standardized features and the GFLOP/s: feature j's influence is
 *     sum_k lambda_k |v_jk| |v_perf,k| (the variance the GFLOP/s shares with
 *     j through the principal components), normalized to sum 1. */
#include "../util/progress.h"
#include "characterize.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "../gen/text.h"
#include "../util/util.h"
#include "quality.h"
#include "svg.h"
#include "synth.h"

#define MAX_MP LAB_STUDY_MAX_MP

typedef struct {
    int fc;                 /* 0 conv, 1 FC */
    int dw;                 /* a depthwise conv (group = channels) */
    int c_in, c_out, hw, k; /* conv; FC: c_in = K, c_out = N, hw = M rows */
    double ops, bytes;
    double ms[MAX_MP];      /* per entry of the MP list, NAN if not timed */
} point;

typedef struct {
    int ir;                 /* 0: 16 identical k x k convs {c, c, hw x hw};
                             * 1: 5 identical inverted-residual blocks, 15 layers */
    int c, hw, k, block, mp;
    double ms, speedup;     /* speed-up over blocks of 1 at MP 1 */
    double gain;            /* speed-up over blocks of 1 at the same MP */
} fpoint;

/* The layers of a fusion chain and their mean op count. */
static int chain_layers(const fpoint *q)
{
    return q->ir ? 15 : 16;
}

static double chain_layer_ops(const fpoint *q)
{
    if (!q->ir) return 2.0 * q->c * q->c * (double)q->hw * q->hw * q->k * q->k;
    /* expand c -> 6c, depthwise 3x3 on 6c, project 6c -> c */
    return (2.0 * q->c * 6 * q->c * 2 + 2.0 * 6 * q->c * 9) * (double)q->hw * q->hw / 3;
}

typedef struct {
    int level, cores, quiet, n_mp;
    int mp[MAX_MP];
    double t0, deadline, min_time;
    int skipped;
    point *pts;
    int n_pts, cap_pts;
    fpoint *fus;
    int n_fus, cap_fus;
    double *spread;         /* each timing's relative spread (synth_last_spread) */
    int n_spread;
    lab_window *watch;      /* probed between timings (quality.h) */
} study;

static void note_spread(study *s)
{
    if (s->n_spread % 64 == 0) s->spread = pz_xrealloc(s->spread, (size_t)(s->n_spread + 64) * sizeof *s->spread);
    s->spread[s->n_spread++] = synth_last_spread();
}

/* Has the study used up `share` of its time limit? The point study stops at
 * 2/3 so that the fusion study always gets the last third. */
static int out_of_time(study *s, double share)
{
    if (util_now_s() - s->t0 < share * s->deadline) return 0;
    s->skipped++;
    return 1;
}

/* A zeroed point appended to the study. */
static point *new_point(study *s)
{
    if (s->n_pts == s->cap_pts) {
        s->cap_pts = s->cap_pts * 2 + 16;
        s->pts = pz_xrealloc(s->pts, (size_t)s->cap_pts * sizeof *s->pts);
    }
    point *p = &s->pts[s->n_pts++];
    memset(p, 0, sizeof *p);
    return p;
}

static void add_conv(study *s, int c_in, int c_out, int hw, int k, double max_ops)
{
    double ops = 2.0 * c_in * c_out * (double)hw * hw * k * k;
    if (ops > max_ops) return;
    for (int i = 0; i < s->n_pts; i++)   /* no duplicates */
        if (!s->pts[i].fc && !s->pts[i].dw && s->pts[i].c_in == c_in && s->pts[i].c_out == c_out &&
            s->pts[i].hw == hw && s->pts[i].k == k)
            return;
    point *p = new_point(s);
    p->c_in = c_in, p->c_out = c_out, p->hw = hw, p->k = k;
    p->ops = ops;
    p->bytes = 4.0 * ((double)c_in * hw * hw + (double)c_out * hw * hw + (double)c_in * c_out * k * k);
}

/* A depthwise 3x3 conv of c channels at hw x hw (stride 1, padding 1). */
static void add_dw(study *s, int c, int hw)
{
    point *p = new_point(s);
    p->dw = 1, p->c_in = p->c_out = c, p->hw = hw, p->k = 3;
    p->ops = 2.0 * c * (double)hw * hw * 9;
    p->bytes = 4.0 * (2.0 * c * hw * hw + 9.0 * c);
}

static void add_fc(study *s, int m, int kd, int n)
{
    point *p = new_point(s);
    p->fc = 1, p->c_in = kd, p->c_out = n, p->hw = m;
    p->ops = 2.0 * m * kd * n;
    p->bytes = 4.0 * ((double)m * kd + (double)m * n + (double)kd * n);
}

static void plan(study *s)
{
    static const int C0[] = {32, 64, 128, 256}, H0[] = {56, 28, 14, 14};
    static const int C1[] = {16, 32, 64, 128, 256}, H1[] = {7, 14, 28, 56}, K1[] = {1, 3};
    static const int C2[] = {16, 32, 64, 128, 256, 512}, H2[] = {7, 14, 28, 56, 112}, K2[] = {1, 3, 5};
    if (s->level == 0) {
        for (size_t i = 0; i < PZ_ARRAY_LEN(C0); i++) add_conv(s, C0[i], C0[i], H0[i], 3, 1e12);
        add_conv(s, 64, 64, 56, 1, 1e12);
        add_conv(s, 16, 16, 28, 3, 1e12);
        add_conv(s, 512, 512, 7, 3, 1e12);
        add_conv(s, 128, 128, 28, 1, 1e12);
        add_dw(s, 144, 56);
        add_dw(s, 576, 14);
        add_dw(s, 960, 7);
        add_fc(s, 1, 1024, 1024);
        add_fc(s, 1, 4096, 4096);
        return;
    }
    double cap = s->level == 1 ? 1.0e9 : 8.0e9;
    if (s->level == 1) {
        for (size_t a = 0; a < PZ_ARRAY_LEN(C1); a++)
            for (size_t b = 0; b < PZ_ARRAY_LEN(H1); b++)
                for (size_t c = 0; c < PZ_ARRAY_LEN(K1); c++) add_conv(s, C1[a], C1[a], H1[b], K1[c], cap);
    } else {
        for (size_t a = 0; a < PZ_ARRAY_LEN(C2); a++)
            for (size_t b = 0; b < PZ_ARRAY_LEN(H2); b++)
                for (size_t c = 0; c < PZ_ARRAY_LEN(K2); c++) add_conv(s, C2[a], C2[a], H2[b], K2[c], cap);
        /* Fig. 6a: the same op count with different channels */
        add_conv(s, 32, 32, 224, 3, cap);
        add_conv(s, 64, 64, 112, 3, cap);
        add_conv(s, 128, 128, 56, 3, cap);
        /* unequal channels (Fig. 4b) */
        add_conv(s, 64, 256, 56, 1, cap);
        add_conv(s, 256, 64, 56, 1, cap);
        add_conv(s, 128, 512, 28, 1, cap);
    }
    /* depthwise 3x3, the channels and maps of MobileNetV2's */
    static const int DC[] = {32, 96, 144, 192, 384, 576, 960}, DH[] = {112, 56, 56, 28, 14, 14, 7};
    for (size_t a = 0; a < PZ_ARRAY_LEN(DC); a++) {
        add_dw(s, DC[a], DH[a]);
        if (s->level == 2) add_dw(s, DC[a], DH[a] > 7 ? DH[a] / 2 : 14);
    }
    static const int F[] = {256, 1024, 4096};
    for (size_t a = 0; a < PZ_ARRAY_LEN(F); a++)
        for (size_t b = 0; b < PZ_ARRAY_LEN(F); b++) {
            add_fc(s, 1, F[a], F[b]);
            if (s->level == 2) add_fc(s, 16, F[a], F[b]);
        }
}

static int time_points(study *s, pz_err *err)
{
    int total = s->n_pts * s->n_mp, done = 0;
    pz_progress_begin("characterize: layers", total);
    for (int i = 0; i < s->n_pts; i++) {
        point *p = &s->pts[i];
        for (int j = 0; j < MAX_MP; j++) p->ms[j] = NAN;
        for (int j = 0; j < s->n_mp; j++) {
            done++;
            pz_progress_step(1);
            if (out_of_time(s, 2.0 / 3)) continue;
            lab_window_tick(s->watch);
            double ms = p->fc ? synth_fc_ms(p->hw, p->c_in, p->c_out, s->mp[j], s->min_time, err)
                              : synth_conv_ms(p->c_in, p->c_out, p->hw, p->k, p->dw, 1, 1, s->mp[j], s->min_time, err);
            if (ms < 0) {
                pz_progress_end();
                return -1;
            }
            p->ms[j] = ms;
            note_spread(s);
            if (!s->quiet) {
                if (p->fc)
                    pz_progress_note("characterize: [%d/%d] fc %dx%dx%d MP %d: %.3f ms, %.1f GFLOP/s\n", done,
                            total, p->hw, p->c_in, p->c_out, s->mp[j], ms, p->ops / ms * 1e-6);
                else
                    pz_progress_note("characterize: [%d/%d] %s {%d, %d, %dx%d, %dx%d} MP %d: %.3f ms, %.1f GFLOP/s\n",
                            done, total, p->dw ? "depthwise conv" : "conv", p->c_in, p->c_out, p->hw, p->hw, p->k,
                            p->k, s->mp[j], ms, p->ops / ms * 1e-6);
            }
        }
    }
    pz_progress_end();
    return 0;
}

static fpoint *new_fpoint(study *s)
{
    if (s->n_fus == s->cap_fus) {
        s->cap_fus = s->cap_fus * 2 + 16;
        s->fus = pz_xrealloc(s->fus, (size_t)s->cap_fus * sizeof *s->fus);
    }
    return &s->fus[s->n_fus++];
}

/* Fig. 5b / 7b / 7c, two kinds of chains fused in blocks of 1 to 16 layers:
 *   - 16 identical 3x3 convs {C, C, HW x HW}, spread over op counts (14.5M
 *     to 925M FLOP a layer). On this CPU fusing them gains nothing at any
 *     size (0.98-1.13 in 23 of 27 chains over three studies): a dense 3x3
 *     conv is compute-bound, with or without its neighbours in cache.
 *   - 5 identical inverted-residual blocks of MobileNetV2 (1x1 C -> 6C,
 *     depthwise 3x3, 1x1 6C -> C plus the block's input), 15 layers, C and
 *     HW spread over MobileNetV2's and beyond (7M to 425M FLOP a layer).
 *     These are where fusing pays on a CPU: the 6C-channel tensors stay in
 *     the cores' caches, and one block replaces many fork-joins. Their best
 *     block sizes give OpCount_critical (fusion_critical below).
 * The default study times three of each on all cores only, the 3x3 chains
 * in blocks of 1 and 16, the inverted-residual ones in blocks of 1, 3, 6
 * and 12, each for 0.2 s (a chain runs in milliseconds). */
static int time_fusion(study *s, pz_err *err)
{
    static const int L0[][2] = {{32, 28}, {64, 28}, {128, 28}};
    static const int L1[][2] = {{16, 56}, {32, 28}, {32, 56}, {64, 28}, {128, 14},
                                {64, 56}, {128, 28}, {256, 14}, {512, 14}};
    static const int L2[][2] = {{16, 56}, {32, 28}, {32, 56}, {64, 28}, {128, 14},
                                {64, 56}, {128, 28}, {256, 14}, {256, 56},
                                {512, 28}, {512, 14}};
    static const int R0[][2] = {{16, 112}, {24, 56}, {64, 14}};
    static const int R1[][2] = {{16, 112}, {24, 56}, {32, 28}, {64, 14}, {96, 14}, {160, 7},
                                {32, 56}, {64, 28}, {64, 56}, {128, 28}, {256, 14}};
    static const int R2[][2] = {{16, 112}, {24, 112}, {24, 56}, {32, 28}, {64, 14}, {96, 14},
                                {160, 7}, {32, 56}, {64, 28}, {64, 56}, {128, 28}, {256, 14},
                                {128, 56}};
    static const int BLK_ALL[] = {1, 2, 4, 8, 16}, BLK0[] = {1, 16};
    static const int RBLK0[] = {1, 3, 6, 12}, RBLK1[] = {1, 3, 6, 12, 15}, RBLK2[] = {1, 3, 6, 9, 12, 15};
#define PICK(a0, a1, a2) (s->level == 0 ? (a0) : s->level == 1 ? (a1) : (a2))
#define LEN(a0, a1, a2) (s->level == 0 ? (int)PZ_ARRAY_LEN(a0) : s->level == 1 ? (int)PZ_ARRAY_LEN(a1) : (int)PZ_ARRAY_LEN(a2))
    const struct {
        const int (*lay)[2];
        int nl;
        const int *blk;
        int nb;
    } kind[2] = {{PICK(L0, L1, L2), LEN(L0, L1, L2), PICK(BLK0, BLK_ALL, BLK_ALL), LEN(BLK0, BLK_ALL, BLK_ALL)},
                 {PICK(R0, R1, R2), LEN(R0, R1, R2), PICK(RBLK0, RBLK1, RBLK2), LEN(RBLK0, RBLK1, RBLK2)}};
#undef PICK
#undef LEN
    const int j0 = s->level == 0 ? s->n_mp - 1 : 0;   /* the default: all cores only */
    const double min_time = s->level == 0 ? 0.2 : s->min_time;
    int total = 0, done = 0;
    for (int ir = 0; ir < 2; ir++) total += kind[ir].nl * kind[ir].nb * (s->n_mp - j0);
    pz_progress_begin("characterize: fused chains", total);
    /* the inverted-residual chains first: with a tight time limit they are
     * the ones OpCount_critical needs */
    for (int ir = 1; ir >= 0; ir--)
        for (int l = 0; l < kind[ir].nl; l++)
            for (int j = j0; j < s->n_mp; j++)
                for (int b = 0; b < kind[ir].nb; b++) {
                    done++;
                    pz_progress_step(1);
                    /* the first chain of each kind is always timed: a slow
                     * build (a sanitizer's) still gets both kinds */
                    if (l > 0 && out_of_time(s, 1.0)) continue;
                    lab_window_tick(s->watch);
                    const int c = kind[ir].lay[l][0], hw = kind[ir].lay[l][1], blk = kind[ir].blk[b];
                    double ms = ir ? synth_ir_ms(c, hw, 5, blk, s->mp[j], min_time, err)
                                   : synth_conv_ms(c, c, hw, 3, 0, 16, blk, s->mp[j], min_time, err);
                    if (ms < 0) {
                        pz_progress_end();
                        return -1;
                    }
                    note_spread(s);
                    fpoint *f = new_fpoint(s);
                    *f = (fpoint){ir, c, hw, 3, blk, s->mp[j], ms, NAN, NAN};
                    if (!s->quiet) {
                        if (ir)
                            pz_progress_note("characterize: [%d/%d] 5 x inverted residual {%d, %d, %dx%d} in blocks of %d, MP %d: %.3f ms\n",
                                    done, total, c, 6 * c, hw, hw, blk, s->mp[j], ms);
                        else
                            pz_progress_note("characterize: [%d/%d] 16 x conv {%d, %d, %dx%d, 3x3} in blocks of %d, MP %d: %.3f ms\n",
                                    done, total, c, c, hw, hw, blk, s->mp[j], ms);
                    }
                }
    pz_progress_end();
    /* speed-up over the same chain unfused, at MP 1 and at the same MP */
    for (int i = 0; i < s->n_fus; i++)
        for (int k = 0; k < s->n_fus; k++) {
            const fpoint *u = &s->fus[k];
            if (u->ir != s->fus[i].ir || u->c != s->fus[i].c || u->hw != s->fus[i].hw || u->block != 1) continue;
            if (u->mp == 1) s->fus[i].speedup = u->ms / s->fus[i].ms;
            if (u->mp == s->fus[i].mp) s->fus[i].gain = u->ms / s->fus[i].ms;
        }
    return 0;
}

static double gflops(const point *p, int j)
{
    return p->ops / p->ms[j] * 1e-6;
}

/* The fitted quantities. */
typedef struct {
    pz_machine mc;
    int n_feat;
    const char *feat[5];
    double explained[6], influence[5];
    int rank[5];
    int pca_ok;
    double crit_single, crit_fusion;   /* OpCount_critical off Fig. 3b and off Fig. 7c */
} fit;

/* The single-core dense conv points, for lab_critical_single. */
static double single_core_critical(const study *s, double *ops, double *ms)
{
    int n = 0;
    for (int i = 0; i < s->n_pts; i++) {
        const point *p = &s->pts[i];
        if (p->fc || p->dw || isnan(p->ms[0])) continue;
        ops[n] = p->ops, ms[n++] = p->ms[0];
    }
    return lab_critical_single(ops, ms, n);
}

/* Fig. 7c: for each inverted-residual chain at the largest MP timed, the op
 * count per core of its fastest fused block and that block's gain over
 * blocks of 1, for lab_critical_fusion. Algorithm 1 closes a block once its
 * op count per core reaches OpCount_critical, so the value it needs is the
 * size at which fused blocks run fastest ("limit the size of fusion block
 * close to but below critical operation count", IV.C). */
static double fusion_critical(const study *s, double *block_ops, double *gain)
{
    const int mp = s->mp[s->n_mp - 1];
    int n = 0;
    for (int i = 0; i < s->n_fus; i++) {
        const fpoint *q = &s->fus[i];
        if (!q->ir || q->block != 1 || q->mp != mp || isnan(q->ms)) continue;
        const fpoint *best = NULL;
        for (int k = 0; k < s->n_fus; k++) {
            const fpoint *o = &s->fus[k];
            if (o->ir && o->c == q->c && o->hw == q->hw && o->mp == mp && o->block > 1 && !isnan(o->ms) &&
                (!best || o->ms < best->ms))
                best = o;
        }
        if (!best) continue;
        block_ops[n] = best->block * chain_layer_ops(best) / mp;
        gain[n++] = q->ms / best->ms;
    }
    return lab_critical_fusion(block_ops, gain, n);
}

static void fit_all(study *s, fit *f)
{
    memset(f, 0, sizeof *f);
    f->mc.cores = s->cores;
    /* OpCount_critical, read off the two curves DLFusion IV.C names, Fig. 3b
     * and 7c. Both are least-squares fits over all their points, so
     * a small change in the timings moves the value a little, where a bin
     * or threshold picked from the points could jump by a decade. */
    size_t ng = (size_t)(s->n_pts + s->n_fus + 1);
    double *g = pz_xmalloc(ng * 2 * sizeof(double));
    double peak = 0;
    for (int i = 0; i < s->n_pts; i++)
        if (!s->pts[i].fc && !s->pts[i].dw && !isnan(s->pts[i].ms[0]))
            peak = fmax(peak, gflops(&s->pts[i], 0));
    f->mc.peak_gflops = peak > 0 ? peak : 1;
    f->crit_single = single_core_critical(s, g, g + ng);
    f->crit_fusion = fusion_critical(s, g, g + ng);
    /* Algorithm 1 takes the fusion value, and the single-core one only when
     * fusing sped up no chain. IV.C reads one value off both figures; on the
     * MLU100 they agree (10^1.25 GOP). On a CPU they need not: one core
     * reaches 85% of its plateau at an op count so small that Algorithm 1
     * would cut after every layer and never fuse, while fused blocks run
     * fastest at a far larger op count per core (bench/RESULTS.md,
     * 'characterize: OpCount_critical'). Algorithm 1 uses the value as the
     * size of a fused block, which is what Fig. 7c measures. */
    f->mc.opcount_critical = isfinite(f->crit_fusion) ? f->crit_fusion : f->crit_single;
    free(g);

    /* Eq. 5 fit: the fastest MP of each conv and FC layer timed at every MP
     * (Algorithm 1 asks the model for both; FC's C is sqrt(K N), as
     * opt_mp_model takes it). Without them the model extrapolated the FC
     * layers of VGG and AlexNet to MP 1, where MP 2 reads the weights much
     * faster (bench/RESULTS.md, 'characterize: FC layers') */
    double *x = pz_xmalloc((size_t)(s->n_pts + 1) * 3 * sizeof(double)), *y = pz_xmalloc((size_t)(s->n_pts + 1) * sizeof(double));
    int n = 0;
    for (int i = 0; i < s->n_pts; i++) {
        const point *p = &s->pts[i];
        int best = -1, all = 1;
        for (int j = 0; j < s->n_mp; j++) {
            if (isnan(p->ms[j])) all = 0;
            else if (best < 0 || p->ms[j] < p->ms[best]) best = j;
        }
        if (!all || best < 0) continue;
        x[n * 3 + 0] = log2(sqrt((double)p->c_in * p->c_out));
        x[n * 3 + 1] = log2(p->ops);
        x[n * 3 + 2] = 1;
        y[n++] = log2(s->mp[best]);
    }
    double b[3] = {0, 0, 0};
    if (n == 0 || lab_lstsq(x, y, n, 3, b)) b[0] = b[1] = 0, b[2] = log2(s->cores);
    f->mc.mp_alpha = b[0], f->mc.mp_beta = b[1], f->mc.mp_gamma = b[2];
    free(x);
    free(y);

    /* PCA over the single-core (dense) conv points: features and the GFLOP/s */
    static const char *FEAT[] = {"op_count", "channels", "kernel", "feature_map", "intensity"};
    f->n_feat = 5;
    for (int j = 0; j < 5; j++) f->feat[j] = FEAT[j];
    double *d = pz_xmalloc((size_t)(s->n_pts + 1) * 6 * sizeof(double));
    int m = 0;
    for (int i = 0; i < s->n_pts; i++) {
        const point *p = &s->pts[i];
        if (p->fc || p->dw || isnan(p->ms[0])) continue;
        double *r = d + m * 6;
        r[0] = log2(p->ops);
        r[1] = log2(sqrt((double)p->c_in * p->c_out));
        r[2] = p->k;
        r[3] = log2(p->hw);
        r[4] = log2(p->ops / p->bytes);
        r[5] = gflops(p, 0);
        m++;
    }
    double w[6], v[36];
    if (m >= 3 && !lab_pca(d, m, 6, w, v)) {
        f->pca_ok = 1;
        double tot = 0, sum = 0;
        for (int k = 0; k < 6; k++) tot += w[k] > 0 ? w[k] : 0;
        for (int k = 0; k < 6; k++) f->explained[k] = tot > 0 ? (w[k] > 0 ? w[k] : 0) / tot : 0;
        for (int j = 0; j < 5; j++) {
            f->influence[j] = 0;
            for (int k = 0; k < 6; k++) f->influence[j] += (w[k] > 0 ? w[k] : 0) * fabs(v[j * 6 + k]) * fabs(v[5 * 6 + k]);
            sum += f->influence[j];
        }
        for (int j = 0; j < 5; j++) f->influence[j] = sum > 0 ? f->influence[j] / sum : 0;
    }
    for (int j = 0; j < 5; j++) f->rank[j] = j;
    for (int a = 0; a < 5; a++)   /* by influence, descending */
        for (int c = a + 1; c < 5; c++)
            if (f->influence[f->rank[c]] > f->influence[f->rank[a]]) {
                int t = f->rank[a]; f->rank[a] = f->rank[c]; f->rank[c] = t;
            }
    free(d);
}

/* JSON has no NaN: untimed entries are null. */
static void jnum(gen_text *b, double v)
{
    if (isfinite(v)) gt_printf(b, "%.6g", v);
    else gt_printf(b, "null");
}

static char *to_json(const study *s, const fit *f, const lab_machine *me, const lab_quality *ql,
                     size_t *len)
{
    static const char *LEVEL[] = {"default", "quick", "full"};
    gen_text b = {0};
    gt_puts(&b, "");
    gt_printf(&b, "{\n  \"paleozoic_target\": 1,\n  \"level\": \"%s\",\n  \"cores\": %d,\n  \"measured_at\": %lld,\n",
         LEVEL[s->level], s->cores, (long long)time(NULL));
    lab_machine_json(&b, me);
    gt_printf(&b, ",\n");
    lab_quality_json(&b, ql);
    gt_printf(&b, ",\n");
    gt_printf(&b, "  \"opcount_critical\": ");
    jnum(&b, f->mc.opcount_critical);
    gt_printf(&b, ",\n  \"opcount_critical_single_core\": ");
    jnum(&b, f->crit_single);
    gt_printf(&b, ",\n  \"opcount_critical_fusion\": ");
    jnum(&b, f->crit_fusion);
    gt_printf(&b, ",\n  \"mp_alpha\": ");
    jnum(&b, f->mc.mp_alpha);
    gt_printf(&b, ",\n  \"mp_beta\": ");
    jnum(&b, f->mc.mp_beta);
    gt_printf(&b, ",\n  \"mp_gamma\": ");
    jnum(&b, f->mc.mp_gamma);
    gt_printf(&b, ",\n  \"peak_gflops\": ");
    jnum(&b, f->mc.peak_gflops);
    gt_printf(&b, ",\n  \"points_skipped_for_time\": %d,\n", s->skipped);
    gt_printf(&b, "  \"pca\": {\"features\": [\"op_count\", \"channels\", \"kernel\", \"feature_map\", \"intensity\", \"gflops\"],\n");
    gt_printf(&b, "          \"explained_variance\": [");
    for (int k = 0; k < 6; k++) {
        gt_printf(&b, k ? ", " : "");
        jnum(&b, f->pca_ok ? f->explained[k] : NAN);
    }
    gt_printf(&b, "],\n          \"influence\": {");
    for (int j = 0; j < 5; j++) {
        gt_printf(&b, "%s\"%s\": ", j ? ", " : "", f->feat[j]);
        jnum(&b, f->pca_ok ? f->influence[j] : NAN);
    }
    gt_printf(&b, "},\n          \"rank\": [");
    for (int j = 0; j < 5; j++) gt_printf(&b, "%s\"%s\"", j ? ", " : "", f->feat[f->rank[j]]);
    gt_printf(&b, "]},\n  \"mp_list\": [");
    for (int j = 0; j < s->n_mp; j++) gt_printf(&b, "%s%d", j ? ", " : "", s->mp[j]);
    gt_printf(&b, "],\n  \"layers\": [\n");
    for (int i = 0; i < s->n_pts; i++) {
        const point *p = &s->pts[i];
        if (p->fc) gt_printf(&b, "    {\"kind\": \"fc\", \"m\": %d, \"k\": %d, \"n\": %d", p->hw, p->c_in, p->c_out);
        else gt_printf(&b, "    {\"kind\": \"%s\", \"c_in\": %d, \"c_out\": %d, \"hw\": %d, \"kernel\": %d",
                       p->dw ? "depthwise" : "conv", p->c_in, p->c_out, p->hw, p->k);
        gt_printf(&b, ", \"ops\": %.6g, \"ms\": [", p->ops);
        for (int j = 0; j < s->n_mp; j++) {
            gt_printf(&b, j ? ", " : "");
            jnum(&b, p->ms[j]);
        }
        gt_printf(&b, "]}%s\n", i + 1 < s->n_pts ? "," : "");
    }
    gt_printf(&b, "  ],\n  \"fusion\": [\n");
    for (int i = 0; i < s->n_fus; i++) {
        const fpoint *q = &s->fus[i];
        gt_printf(&b, "    {\"chain\": \"%s\", \"c\": %d, \"hw\": %d, \"kernel\": %d, \"layers\": %d, \"layer_ops\": %.6g, \"block\": %d, \"mp\": %d, \"ms\": ",
                  q->ir ? "inverted_residual" : "conv", q->c, q->hw, q->k, chain_layers(q), chain_layer_ops(q),
                  q->block, q->mp);
        jnum(&b, q->ms);
        gt_printf(&b, ", \"speedup\": ");
        jnum(&b, q->speedup);
        gt_printf(&b, ", \"gain\": ");
        jnum(&b, q->gain);
        gt_printf(&b, "}%s\n", i + 1 < s->n_fus ? "," : "");
    }
    gt_printf(&b, "  ]\n}\n");
    *len = b.n;
    return b.s;
}

static pz_status plots(const study *s, const fit *f, const char *json_path, pz_err *err)
{
    char prefix[4096], path[4200];
    snprintf(prefix, sizeof prefix, "%s", json_path);
    size_t pl = strlen(prefix);
    if (pl > 5 && !strcmp(prefix + pl - 5, ".json")) prefix[pl - 5] = 0;
    /* 1. GFLOP/s against op count, single core (Fig. 3 / 4a) */
    double *cx = pz_xmalloc((size_t)(s->n_pts + 1) * sizeof(double) * 4), *cy = cx + s->n_pts + 1;
    double *fx = cy + s->n_pts + 1, *fy = fx + s->n_pts + 1;
    int nc = 0, nf = 0;
    for (int i = 0; i < s->n_pts; i++) {
        if (isnan(s->pts[i].ms[0])) continue;
        if (s->pts[i].dw) continue;   /* memory-bound: not on the compute curve */
        if (s->pts[i].fc) fx[nf] = s->pts[i].ops, fy[nf++] = gflops(&s->pts[i], 0);
        else cx[nc] = s->pts[i].ops, cy[nc++] = gflops(&s->pts[i], 0);
    }
    svg_series ser[2] = {{"conv, 1 core", cx, cy, nc, 0}, {"FC, 1 core", fx, fy, nf, 0}};
    svg_plot p1 = {"GFLOP/s against operation count (one core)", "operation count (FLOP)", "GFLOP/s", 1,
                   f->crit_single, "85% of one core's plateau"};
    snprintf(path, sizeof path, "%s.gflops.svg", prefix);
    pz_status st = svg_write_plot(path, &p1, ser, 2, err);
    free(cx);
    if (st) return st;
    /* 2. speed-up against MP (Fig. 4c / 6): up to 8 conv layers spread over op counts */
    svg_series ms[8];
    double xs[8][MAX_MP], ys[8][MAX_MP];
    char names[8][64];
    int nser = 0, stride = s->n_pts > 8 ? s->n_pts / 8 : 1;
    for (int i = 0; i < s->n_pts && nser < 8; i += stride) {
        const point *p = &s->pts[i];
        if (p->fc || isnan(p->ms[0])) continue;
        int n = 0;
        for (int j = 0; j < s->n_mp; j++)
            if (!isnan(p->ms[j])) xs[nser][n] = s->mp[j], ys[nser][n++] = p->ms[0] / p->ms[j];
        snprintf(names[nser], sizeof names[nser], "{%d,%d,%d,%dx%d} %.2g", p->c_in, p->c_out, p->hw, p->k, p->k, p->ops);
        ms[nser] = (svg_series){names[nser], xs[nser], ys[nser], n, 1};
        nser++;
    }
    svg_plot p2 = {"Speed-up against MP (cores)", "MP", "speed-up over MP 1", 0, NAN, NULL};
    snprintf(path, sizeof path, "%s.mp.svg", prefix);
    if ((st = svg_write_plot(path, &p2, ms, nser, err))) return st;
    /* 3. fusion (Fig. 5b / 7c): speed-up against block size per layer and MP */
    if (s->n_fus) {
        enum { MAX_SER = 24 };
        svg_series fs[MAX_SER];
        double fxs[MAX_SER][8], fys[MAX_SER][8];
        int key[MAX_SER][4];   /* chain kind, channels, feature map, MP of each series */
        char fn[MAX_SER][64];
        int nfs = 0;
        for (int i = 0; i < s->n_fus; i++) {
            const fpoint *q = &s->fus[i];
            int k = 0;
            if (q->mp != s->mp[s->n_mp - 1]) continue;   /* all cores: the critical's MP */
            while (k < nfs && !(key[k][0] == q->ir && key[k][1] == q->c && key[k][2] == q->hw && key[k][3] == q->mp)) k++;
            if (k == nfs) {
                if (nfs == MAX_SER) continue;
                if (q->ir) snprintf(fn[k], sizeof fn[k], "IR {%d,%d,%dx%d} MP %d", q->c, 6 * q->c, q->hw, q->hw, q->mp);
                else snprintf(fn[k], sizeof fn[k], "{%d,%d,%dx%d,%dx%d} MP %d", q->c, q->c, q->hw, q->hw, q->k, q->k, q->mp);
                fs[k] = (svg_series){fn[k], fxs[k], fys[k], 0, 1};
                key[k][0] = q->ir, key[k][1] = q->c, key[k][2] = q->hw, key[k][3] = q->mp;
                nfs++;
            }
            if (fs[k].n < 8) fxs[k][fs[k].n] = q->block, fys[k][fs[k].n] = q->gain, fs[k].n++;
        }
        svg_plot p3 = {"Chains of identical layers fused in blocks (all cores)", "layers per block", "speed-up over blocks of 1", 0, NAN, NULL};
        snprintf(path, sizeof path, "%s.fusion.svg", prefix);
        if ((st = svg_write_plot(path, &p3, fs, nfs, err))) return st;
    }
    return PZ_OK;
}

/* One study: the FMA probe before and after it and the load window around
 * it judged into q (quality.c). */
static int run_study(study *s, lab_quality *q, pz_err *err)
{
    lab_probe before, after;
    lab_window w;
    s->n_pts = s->n_fus = s->n_spread = s->skipped = 0;
    plan(s);
    lab_probe_run(s->cores, &before);
    lab_window_begin(&w, s->cores);
    s->watch = &w;
    s->t0 = util_now_s();
    if (time_points(s, err) || time_fusion(s, err)) return -1;
    lab_window_end(&w);
    lab_probe_run(s->cores, &after);
    lab_quality_judge(q, &before, &after, &w, s->spread, s->n_spread);
    if (!s->quiet || !q->quiet) lab_quality_print(q);
    return 0;
}

/* A disturbed study is measured again (characterize.h), up to `tries`
 * studies (a full one rather refused than run thrice), once a probe finds
 * the cores free within 3 s: a machine still busy would disturb it again. */
pz_status lab_characterize(int level, int cores, const char *json_path, int svg, int quiet, int allow_noisy,
                           pz_machine *mc, pz_err *err)
{
    study s;
    memset(&s, 0, sizeof s);
    s.level = level < 0 ? 0 : level > 2 ? 2 : level;
    s.cores = cores < 1 ? 1 : cores;
    s.quiet = quiet;
    s.min_time = s.level == 0 ? 0.25 : s.level == 1 ? 0.05 : 0.15;
    s.n_mp = lab_study_mps(s.cores, s.mp);
    s.deadline = lab_study_seconds(s.level, s.cores);
    lab_machine me;
    lab_machine_read(&me);
    lab_quality q = {0};
    const int tries = allow_noisy ? 1 : s.level == 0 ? 3 : s.level == 1 ? 2 : 1;
    pz_status st = PZ_OK;
    for (q.attempts = 1;; q.attempts++) {
        if (run_study(&s, &q, err)) {
            st = err->code;
            goto out;
        }
        if (q.quiet || q.attempts == tries || !lab_wait_quiet(s.cores, q.tol, 3)) break;
        fprintf(stderr, "characterize: the machine was not quiet: measuring again (%d of %d)\n", q.attempts + 1, tries);
    }
    if (s.skipped && !quiet)
        fprintf(stderr, "characterize: the time limit (%.0f s) left %d measurements out\n", s.deadline, s.skipped);
    fit f;
    fit_all(&s, &f);
    if (!quiet) {
        fprintf(stderr, "characterize: OpCount_critical = %.3g FLOP (fused blocks' best %.3g, one core's plateau %.3g), MP model: log2 MP = %.3f log2 C + %.3f log2 ops + %.3f, peak %.1f GFLOP/s\n",
                f.mc.opcount_critical, f.crit_fusion, f.crit_single, f.mc.mp_alpha, f.mc.mp_beta,
                f.mc.mp_gamma, f.mc.peak_gflops);
        for (int j = 0; f.pca_ok && j < 5; j++)
            fprintf(stderr, "%s %s %.2f%s", j ? "" : "characterize: feature influence (PCA):", f.feat[f.rank[j]],
                    f.influence[f.rank[j]], j == 4 ? "\n" : "");
    }
    if (mc) *mc = f.mc;
    if (!q.quiet && !allow_noisy) {
        st = pz_fail(err, PZ_ERR_INPUT, "the machine was not quiet while it was measured (%s; %d studies): "
                     "the profile is not written (measure again when the machine is idle)", q.why, q.attempts);
    } else if (json_path) {
        size_t len;
        char *text = to_json(&s, &f, &me, &q, &len);
        st = lab_write_atomic(json_path, text, len, 1, err);
        free(text);
        if (!st && svg) st = plots(&s, &f, json_path, err);
    }
out:
    free(s.pts);
    free(s.fus);
    free(s.spread);
    return st;
}
