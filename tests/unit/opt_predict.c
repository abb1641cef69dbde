/* opt_predict.c - dlfusion's predicted check (src/opt/alg1.c) and the
 * profile read as a cost model (src/opt/predict.c), without a machine:
 *   - on random additive predictions (made-up layer times per MP, a
 *     fork-join that grows with the MP, fused blocks that gain or lose),
 *     dlfusion's schedule is never predicted slower than fixed-mp's (where
 *     the published rules often are);
 *   - a predictor where fusing loses gives no fused block, one where it
 *     gains by half fuses; a choice within the margin keeps the cores;
 *   - the profile predictor: a layer's time scaled from its nearest
 *     measured layers, a block divided by its chain kind's gain, no
 *     prediction for an MP not timed or a chain kind never fused;
 *   - the oracle's seeds hold dlfusion's schedule as the strategy makes it
 *     with that predictor at work; its last step between two close
 *     candidates goes by the median of paired ratios. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt_internal.h"

#include "test_check.h"

enum { L = 14, CORES = 8 };

typedef struct {
    double work[L];    /* a layer's time on one core */
    double sync;       /* fork-join per extra core */
    double fused;      /* a fused block's time over the sum of its layers' */
    int calls;
} toy;

static double toy_layer(const toy *t, int i, int mp)
{
    return t->work[i] / mp + t->sync * (mp - 1);
}

static double toy_predict(void *ctx, int start, int size, int mp)
{
    toy *t = ctx;
    t->calls++;
    double s = 0;
    for (int i = start; i < start + size; i++) s += toy_layer(t, i, mp);
    /* a fused block pays its fork-join once */
    if (size > 1) s = (s - t->sync * (mp - 1) * (size - 1)) * t->fused;
    return s;
}

static double schedule_cost(toy *t, const int *sizes, const int *mps, int nb)
{
    double s = 0;
    for (int b = 0, first = 0; b < nb; first += sizes[b++]) s += toy_predict(t, first, sizes[b], mps[b]);
    return s;
}

static pz_layer_features feat(const char *op, int c, int k, int group, double ops)
{
    pz_layer_features f;
    memset(&f, 0, sizeof f);
    f.op_type = op;
    f.is_conv_fc = strcmp(op, "Relu") != 0;
    f.c_in = f.c_out = c;
    f.kernel_h = f.kernel_w = k;
    f.group = group;
    f.ops = ops;
    f.macs = (int64_t)(ops / 2);
    return f;
}

/* An inverted-residual-like net: 1x1, depthwise 3x3, 1x1, relu, repeated. */
static void net(pz_layer_features *f, double scale)
{
    for (int i = 0; i < L; i++) {
        int r = i % 4;
        f[i] = r == 3 ? feat("Relu", 64, 0, 1, 0)
               : r == 1 ? feat("Conv", 64, 3, 64, scale * (1 + i % 5))
                        : feat("Conv", 64, 1, 1, 4 * scale * (1 + i % 3));
    }
}

static void never_slower(void)
{
    pz_layer_features f[L];
    int sizes[L], mps[L], fs[L], fm[L], as[L], am[L];
    srand(45);
    int worse_alg1 = 0;
    for (int trial = 0; trial < 400; trial++) {
        net(f, 1e6);
        toy t = {{0}, 0, 1, 0};
        for (int i = 0; i < L; i++) t.work[i] = f[i].is_conv_fc ? 1 + rand() % 200 : 0.5;
        t.sync = (rand() % 100) / 20.0;              /* 0 .. 5 per extra core */
        t.fused = 0.4 + (rand() % 100) / 100.0;      /* fusing gains 60% .. loses 40% */
        pz_machine mc = {CORES, (double)(1 + rand() % 20) * 1e6, 0.1 * (rand() % 5), 0.05, -1, 100};
        opt_predictor p = {toy_predict, &t, 0.01 * (rand() % 6)};
        int nb = opt_alg1_predicted(f, L, &mc, NULL, &p, sizes, mps);
        int total = 0;
        for (int b = 0; b < nb; b++) total += sizes[b];
        checkf(nb > 0 && total == L, "trial %d: blocks cover the layers (%d of %d)", trial, total, L);
        int nf = opt_each_layer(L, CORES, fs, fm);
        double dl = schedule_cost(&t, sizes, mps, nb), fixed = schedule_cost(&t, fs, fm, nf);
        checkf(dl <= fixed * (1 + 1e-12), "trial %d: dlfusion %.4g predicted slower than fixed-mp %.4g",
               trial, dl, fixed);
        /* the published rules (dlfusion:paper) on the same predictions:
         * without the check fixed-mp often wins, so the check above is
         * tested on instances where it matters */
        int na = opt_alg1(f, L, &mc, 0, as, am);
        worse_alg1 += schedule_cost(&t, as, am, na) > fixed * 1.001;
    }
    checkf(worse_alg1 > 20, "the published rules lose to fixed-mp on %d of 400", worse_alg1);
}

static void decisions(void)
{
    pz_layer_features f[L];
    net(f, 1e6);
    pz_machine mc = {CORES, 1e30, 0, 0, 3, 100};   /* every layer MP 8, one block of all */
    int sizes[L], mps[L];
    toy t = {{0}, 0, 1.5, 0};
    for (int i = 0; i < L; i++) t.work[i] = f[i].is_conv_fc ? 40 : 0.5;
    opt_predictor p = {toy_predict, &t, 0};
    /* fusing costs 50% more: no block of more than one layer */
    int nb = opt_alg1_predicted(f, L, &mc, NULL, &p, sizes, mps);
    CHECK(nb == L);
    /* fusing gains half and saves fork-joins: one fused block (the
     * threshold lets it be) */
    t.fused = 0.5, t.sync = 0.1;
    nb = opt_alg1_predicted(f, L, &mc, NULL, &p, sizes, mps);
    CHECK(nb == 1 && sizes[0] == L);
    /* no fused gain, no sync: every layer alone, on all the cores */
    t.fused = 1.0, t.sync = 0;
    nb = opt_alg1_predicted(f, L, &mc, NULL, &p, sizes, mps);
    CHECK(nb == L);
    for (int b = 0; b < nb; b++) CHECK(mps[b] == CORES);
    /* every layer predicted 3% faster on 4 cores than on 8 (work 40, sync
     * s: 10 + 3s = (5 + 7s) / 1.03 at s = 5.3 / 3.91): taken with no
     * margin, not with a margin of 5% */
    t.sync = 5.3 / 3.91, t.fused = 4;
    for (int i = 0; i < L; i++) t.work[i] = 40;
    CHECK(toy_layer(&t, 0, 4) < toy_layer(&t, 0, 8) && toy_layer(&t, 0, 8) < toy_layer(&t, 0, 4) * 1.04);
    nb = opt_alg1_predicted(f, L, &mc, NULL, &p, sizes, mps);
    CHECK(nb == L && mps[0] == 4 && mps[L - 1] == 4);
    p.margin = OPT_PREDICT_NOISE;
    nb = opt_alg1_predicted(f, L, &mc, NULL, &p, sizes, mps);
    CHECK(nb == L && mps[0] == 8 && mps[L - 1] == 8);
    /* no predictor: Algorithm 1 following the profile, unchanged */
    int s2[L], m2[L];
    int n1 = opt_alg1_predicted(f, L, &mc, NULL, NULL, sizes, mps);
    int n2 = opt_alg1_profile(f, L, &mc, NULL, s2, m2);
    CHECK(n1 == n2 && !memcmp(sizes, s2, (size_t)n1 * sizeof(int)) && !memcmp(mps, m2, (size_t)n1 * sizeof(int)));
}

/* Tables of a 2-core profile: a dense 1x1 conv measured at 1e6 ops, a
 * depthwise one at 1e5, an FC layer at 1e6; inverted residual chains
 * gained 1.25. */
static void tables(lab_profile_tables *t, lab_layer_point *pts)
{
    memset(t, 0, sizeof *t);
    t->n_mp = 2, t->mp[0] = 1, t->mp[1] = 2;
    pts[0] = (lab_layer_point){LAB_LAYER_CONV, log2(64), log2(1e6), 1, {1.0, 0.6}};
    pts[1] = (lab_layer_point){LAB_LAYER_DEPTHWISE, log2(64), log2(1e5), 3, {0.1, 0.3}};
    pts[2] = (lab_layer_point){LAB_LAYER_FC, log2(64), log2(1e6), 0, {1.0, 0.5}};
    t->pts = pts, t->n_pts = 3;
    t->n_chains[LAB_CHAIN_IR] = 3, t->gain[LAB_CHAIN_IR] = 1.25;
    t->gain[LAB_CHAIN_CONV] = NAN;
}

static void profile_predictor(void)
{
    lab_profile_tables t;
    lab_layer_point pts[3];
    tables(&t, pts);
    pz_layer_features f[4] = {feat("Conv", 64, 1, 1, 2e6), feat("Conv", 64, 3, 64, 1e5),
                              feat("Conv", 64, 1, 1, 1e6), feat("Gemm", 64, 0, 1, 1e6)};
    opt_profile_ctx c = {f, 4, &t};
    /* twice the ops of the measured layer: twice its time, at each MP */
    CHECK(fabs(opt_profile_predict(&c, 0, 1, 1) - 2.0) < 1e-9);
    CHECK(fabs(opt_profile_predict(&c, 0, 1, 2) - 1.2) < 1e-9);
    CHECK(fabs(opt_profile_predict(&c, 1, 1, 2) - 0.3) < 1e-9);
    CHECK(isinf(opt_profile_predict(&c, 0, 1, 4)));   /* MP 4 never timed */
    /* the inverted residual [1x1, dw, 1x1] fused: its layers' sum / 1.25 */
    CHECK(fabs(opt_profile_predict(&c, 0, 3, 1) - (2.0 + 0.1 + 1.0) / 1.25) < 1e-9);
    /* an FC layer alone: its measured time; in a fused block: no
     * prediction (FC layers are never fused in a profile) */
    CHECK(fabs(opt_profile_predict(&c, 3, 1, 2) - 0.5) < 1e-9);
    CHECK(isinf(opt_profile_predict(&c, 2, 2, 1)));
    /* dlfusion on [1x1, dw, 1x1], the rules' one block at MP 2 (gamma 1, no
     * threshold), margin 5% (by hand, ms):
     *   alone: 1.2 at 2, 0.1 x 1.05 at 1 (0.3 at 2), 0.6 at 2: 1.905
     *   gain 1.1:  all fused at 2 (1.2 + 0.3 + 0.6) / 1.1 x 1.05 = 2.005;
     *              the pairs 1.432 + 0.6, 0.859 + 1.2: the layers alone
     *   gain 1.25: all fused at 2: 2.1 / 1.25 x 1.05 = 1.764: one block */
    pz_machine mc = {2, 1e30, 0, 0, 1, 100};
    int sizes[4], mps[4];
    t.gain[LAB_CHAIN_IR] = 1.1;
    int nb = opt_dlfusion(f, 3, &mc, &t, sizes, mps);
    CHECK(nb == 3 && mps[0] == 2 && mps[1] == 1 && mps[2] == 2);
    t.gain[LAB_CHAIN_IR] = 1.25;
    nb = opt_dlfusion(f, 3, &mc, &t, sizes, mps);
    CHECK(nb == 1 && sizes[0] == 3 && mps[0] == 2);
    /* a profile of 2 cores on 4: nothing predicted against MP 4, the rules
     * (one block, where on 2 cores gain 1.1 split it) */
    int s4[4], m4[4];
    mc.cores = 4, t.gain[LAB_CHAIN_IR] = 1.1;
    nb = opt_dlfusion(f, 3, &mc, &t, sizes, mps);
    CHECK(nb == 1 && nb == opt_alg1_profile(f, 3, &mc, &t, s4, m4) && sizes[0] == s4[0] && mps[0] == m4[0]);
    mc.cores = 2;
    /* no layer timings: the rules of opt_alg1_profile */
    int s2[4], m2[4];
    t.n_pts = 0;
    nb = opt_dlfusion(f, 3, &mc, &t, sizes, mps);
    CHECK(nb == opt_alg1_profile(f, 3, &mc, &t, s2, m2) && !memcmp(sizes, s2, (size_t)nb * sizeof(int)) &&
          !memcmp(mps, m2, (size_t)nb * sizeof(int)));
}

static int has_schedule(const opt_candidate *c, int nc, const int *sizes, const int *mps, int nb)
{
    for (int i = 0; i < nc; i++)
        if (c[i].n_blocks == nb && !memcmp(c[i].sizes, sizes, (size_t)nb * sizeof(int)) &&
            !memcmp(c[i].mps, mps, (size_t)nb * sizeof(int)))
            return 1;
    return 0;
}

static void oracle_holds_dlfusion(void)
{
    lab_profile_tables t;
    lab_layer_point pts[3];
    tables(&t, pts);
    pz_layer_features f[L];
    net(f, 1e6);
    pz_machine mc = {2, 1e30, 0, 0, 1, 100};
    opt_candidate c[64];
    static int store[128][L];
    for (int i = 0; i < 64; i++) c[i].sizes = store[2 * i], c[i].mps = store[2 * i + 1];
    int s[L], m[L], differ = 0;
    for (double g = 0.5; g <= 3; g += 0.5) {
        t.gain[LAB_CHAIN_IR] = g;
        int nc = opt_oracle_seeds(f, L, 2, &mc, &t, c, 64);
        int nb = opt_dlfusion(f, L, &mc, &t, s, m);
        checkf(nb > 0 && has_schedule(c, nc, s, m, nb), "gain %.1f: the oracle's seeds hold dlfusion's", g);
        int s2[L], m2[L], n2 = opt_alg1_profile(f, L, &mc, &t, s2, m2);
        differ += n2 != nb || memcmp(s, s2, (size_t)nb * sizeof(int)) || memcmp(m, m2, (size_t)nb * sizeof(int));
    }
    /* the seed is the checked schedule, not the rules' (they differ here) */
    CHECK(differ > 0);
}

/* The oracle's last step between its two fastest: paired rounds, the
 * median of the ratios, so that one slow round decides nothing. */
static void paired(void)
{
    double a[9], b[9];
    for (int k = 0; k < 9; k++) a[k] = 10 + k % 2, b[k] = 0.97 * a[k];
    CHECK(fabs(opt_paired_ratio(a, b, 9) - 0.97) < 1e-12);
    b[4] = 40, b[7] = 35;   /* two rounds under a passing load: b's mean is worse */
    CHECK(opt_paired_ratio(a, b, 9) < 1);
    for (int k = 0; k < 9; k++) b[k] = 1.01 * a[k];
    CHECK(opt_paired_ratio(a, b, 9) > 1);
    CHECK(opt_paired_ratio(a, a, 9) == 1);   /* a tie keeps the first */
    CHECK(opt_paired_ratio(a, b, 0) == 1);
}

int main(void)
{
    paired();
    never_slower();
    decisions();
    profile_predictor();
    oracle_holds_dlfusion();
    return test_summary("opt_predict");
}
