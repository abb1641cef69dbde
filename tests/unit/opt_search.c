/* opt_search.c - the strategies' decisions without a machine: DLFusion
 * Algorithm 1 against an example worked by hand, the MP model, Algorithm 1
 * following a profile (tables written here: no fused block of a chain kind
 * whose gain is under 1.02, no MP measured slower), the oracle's space (its
 * MPs hold the cores, its sizes one-layer blocks, its seeds the other
 * strategies' schedules), bench's beats-the-oracle test on made-up paired
 * runs, and the exact searches (DP, branch-and-bound enumeration) against a
 * plain brute force over every partition on synthetic additive cost tables. */
#include <math.h>
#include <string.h>

#include "opt/opt_internal.h"

#include "test_check.h"

static pz_layer_features layer(int conv, int c, double ops)
{
    pz_layer_features f;
    memset(&f, 0, sizeof f);
    f.is_conv_fc = conv;
    f.c_in = f.c_out = c;
    f.ops = ops;
    f.macs = (int64_t)(ops / 2);
    return f;
}

static int same(const int *a, const int *b, int n)
{
    return !memcmp(a, b, (size_t)n * sizeof(int));
}

/* The MP model log2 MP = log2 C - 5 gives MP 1 for C = 32, 2 for 64, 4 for
 * 128 (4 cores). Layers: conv32 (60 ops), relu, conv64 (80), conv128 (300),
 * relu, conv128 (50), pool, fc32 (10), relu.
 *
 * OpCount_critical = 20, by hand (avg = mean MP of the block's conv/FC):
 *   i=0 conv: sum 60, avg 1, 60/1 >= 20 -> cut: block [0] MP 1
 *   i=1 relu: no conv in the block yet -> nothing
 *   i=2 conv: sum 80, avg 2, 40 >= 20 -> cut: block [1,2] MP 2
 *   i=3 conv: sum 300, avg 4, 75 >= 20 -> cut: block [3] MP 4
 *   i=4 relu: nothing; i=5 conv: 50 / 4 = 12.5 < 20; i=6 pool: 12.5
 *   i=7 fc: sum 60, avg (4+1)/2 = 2.5, 24 >= 20 -> cut: block [4..7],
 *           MP 2^floor(log2 2.5) = 2
 *   i=8 relu: left over -> block [8], no conv: MP 1
 * OpCount_critical = 100:
 *   i=0..2: 60/1, 60/1, 140/1.5 = 93.3 < 100; i=3: 440/(7/3) = 188.6 -> cut
 *           block [0..3] MP 2^floor(log2 2.33) = 2
 *   i=5: 50/4; i=7: 60/2.5 = 24 -> no cut; left over [4..8] MP 2 */
static void alg1(void)
{
    pz_layer_features f[9] = {layer(1, 32, 60), layer(0, 32, 0), layer(1, 64, 80),
                              layer(1, 128, 300), layer(0, 128, 0), layer(1, 128, 50),
                              layer(0, 128, 0), layer(1, 32, 10), layer(0, 32, 0)};
    pz_machine mc = {4, 20, 1.0, 0.0, -5.0, 100};
    CHECK(opt_mp_model(&mc, &f[0]) == 1 && opt_mp_model(&mc, &f[2]) == 2 && opt_mp_model(&mc, &f[3]) == 4);
    int sizes[9], mps[9];
    int nb = opt_alg1(f, 9, &mc, 0, sizes, mps);
    CHECK(nb == 5);
    CHECK(same(sizes, (int[]){1, 2, 1, 4, 1}, 5));
    CHECK(same(mps, (int[]){1, 2, 4, 2, 1}, 5));
    mc.opcount_critical = 100;
    nb = opt_alg1(f, 9, &mc, 0, sizes, mps);
    CHECK(nb == 2);
    CHECK(same(sizes, (int[]){4, 5}, 2));
    CHECK(same(mps, (int[]){2, 2}, 2));
    /* fusion-fixed-mp: the same blocks, one MP */
    nb = opt_alg1(f, 9, &mc, 3, sizes, mps);
    CHECK(nb == 2 && same(sizes, (int[]){4, 5}, 2) && same(mps, (int[]){3, 3}, 2));
    /* a huge threshold: one block with the rounded mean MP (1+2+4+4+1)/5 = 2.4 -> 2 */
    mc.opcount_critical = 1e30;
    nb = opt_alg1(f, 9, &mc, 0, sizes, mps);
    CHECK(nb == 1 && sizes[0] == 9 && mps[0] == 2);
    /* no conv at all: one block, MP 1 */
    pz_layer_features g[3] = {layer(0, 8, 0), layer(0, 8, 0), layer(0, 8, 0)};
    nb = opt_alg1(g, 3, &mc, 0, sizes, mps);
    CHECK(nb == 1 && sizes[0] == 3 && mps[0] == 1);
    /* dynamic-mp: per layer, the layers between take the MP before them */
    nb = opt_dynamic_mp(f, 9, &mc, sizes, mps);
    CHECK(nb == 9 && same(mps, (int[]){1, 1, 2, 4, 4, 4, 4, 1, 1}, 9));
    /* the MP model is clamped to [1, cores] */
    mc.mp_gamma = 10;
    CHECK(opt_mp_model(&mc, &f[0]) == 4);
    mc.mp_gamma = -40;
    CHECK(opt_mp_model(&mc, &f[0]) == 1);
}

/* A synthetic table: cost[start][size] at its best MP, random but fixed. */
enum { N = 13 };
static double table[N][N + 1];
static int table_mp[N][N + 1];

static double tcost(void *ctx, int start, int size, int *mp)
{
    (void)ctx;
    *mp = table_mp[start][size];
    return table[start][size];
}

/* Plain brute force: every one of the 2^(n-1) partitions. */
static double brute(int n, int max_size, int unit, int small, int *best_sizes, int *best_nb, double *all,
                    int *n_all)
{
    double best = INFINITY;
    *n_all = 0;
    for (unsigned cuts = 0; cuts < (1u << (n - 1)); cuts++) {
        int sizes[N], nb = 0, start = 0, ok = 1;
        double c = 0;
        for (int i = 0; i < n; i++)
            if (i == n - 1 || (cuts >> i & 1)) {
                int s = i + 1 - start;
                if (s > max_size || (s % unit && s > small && i != n - 1)) ok = 0;
                if (ok) c += table[start][s];
                sizes[nb++] = s;
                start = i + 1;
            }
        if (!ok) continue;
        all[(*n_all)++] = c;
        if (c < best) {
            best = c;
            *best_nb = nb;
            memcpy(best_sizes, sizes, (size_t)nb * sizeof(int));
        }
    }
    return best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void searches(void)
{
    unsigned s = 99;
    static double all[1 << N];
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < N; i++)
            for (int k = 0; k <= N; k++) {
                s = s * 1664525u + 1013904223u;
                /* a block costs its layers plus a random saving or penalty */
                table[i][k] = k + ((double)(s >> 8) / 16777216.0 - 0.5) * k * 0.8;
                table_mp[i][k] = 1 + (int)(s >> 28) % 4;
            }
        int max_size = 1 + trial % 6, bs[N], bnb = 0, n_all;
        double want = brute(N, max_size, 1, 0, bs, &bnb, all, &n_all);
        int sizes[N], mps[N];
        double got;
        int nb = opt_dp(N, max_size, tcost, NULL, sizes, mps, &got);
        CHECK(fabs(got - want) < 1e-9);
        CHECK(nb == bnb && same(sizes, bs, nb));
        for (int b = 0, p = 0; b < nb; p += sizes[b], b++) CHECK(mps[b] == table_mp[p][sizes[b]]);
        /* enumeration, unit 1: the 4 best costs are brute force's 4 best */
        opt_candidate c[4];
        int store[8][N];
        for (int i = 0; i < 4; i++) c[i].sizes = store[2 * i], c[i].mps = store[2 * i + 1];
        qsort(all, (size_t)n_all, sizeof *all, cmp_double);
        int kept = opt_enumerate(N, 1, 0, max_size, tcost, NULL, c, 4, NULL);
        CHECK(kept == (n_all < 4 ? n_all : 4));
        for (int i = 0; i < kept; i++) CHECK(fabs(c[i].cost - all[i]) < 1e-9);
        /* the oracle's space: multiples of 4 layers, the last block what is left */
        double want4 = brute(N, N, 4, 0, bs, &bnb, all, &n_all);
        kept = opt_enumerate(N, 4, 0, N, tcost, NULL, c, 4, NULL);
        qsort(all, (size_t)n_all, sizeof *all, cmp_double);
        CHECK(kept == (n_all < 4 ? n_all : 4) && fabs(c[0].cost - want4) < 1e-9);
        CHECK(c[0].n_blocks == bnb && same(c[0].sizes, bs, bnb));
        for (int i = 0; i < kept; i++) CHECK(fabs(c[i].cost - all[i]) < 1e-9);
        /* the widened oracle's: multiples of 4, or up to `small` layers anywhere */
        int small = 1 + trial % 3;
        double wants = brute(N, N, 4, small, bs, &bnb, all, &n_all);
        int kept_s = opt_enumerate(N, 4, small, N, tcost, NULL, c, 4, NULL);
        qsort(all, (size_t)n_all, sizeof *all, cmp_double);
        CHECK(kept_s == 4 && fabs(c[0].cost - wants) < 1e-9 && wants <= want4 + 1e-9);
        for (int i = 0; i < kept_s; i++) CHECK(fabs(c[i].cost - all[i]) < 1e-9);
        kept = opt_enumerate(N, 4, 0, N, tcost, NULL, c, 4, NULL);
        for (int i = 0; i < kept; i++) {
            int sum = 0;
            for (int b = 0; b < c[i].n_blocks; b++) {
                sum += c[i].sizes[b];
                CHECK(c[i].sizes[b] % 4 == 0 || b == c[i].n_blocks - 1);
            }
            CHECK(sum == N);
        }
    }
    /* an unavailable block (INFINITY) is never chosen */
    for (int i = 0; i < N; i++)
        for (int k = 0; k <= N; k++) table[i][k] = k == 2 ? INFINITY : 1;
    int sizes[N], mps[N];
    double got;
    int nb = opt_dp(N, 3, tcost, NULL, sizes, mps, &got);
    CHECK(nb > 0 && isfinite(got));
    for (int b = 0; b < nb; b++) CHECK(sizes[b] != 2);
}

/* A conv layer's features: op type, channels, kernel, group. */
static pz_layer_features conv(const char *op, int c_in, int c_out, int k, int group, double ops)
{
    pz_layer_features f = layer(1, c_in, ops);
    f.op_type = op;
    f.c_in = c_in, f.c_out = c_out;
    f.kernel_h = f.kernel_w = k;
    f.group = group;
    return f;
}

/* Algorithm 1 following the profile (dlfusion) against the published one
 * (dlfusion:paper), on tables written here. Layers: a dense 3x3 conv, an
 * inverted residual (1x1 expand, depthwise, 1x1 project), a pool, a dense
 * 3x3 conv, a dense 3x3 conv, FC, FC. */
static void alg1_profile(void)
{
    pz_layer_features f[9] = {conv("Conv", 3, 32, 3, 1, 10), conv("Conv", 32, 192, 1, 1, 10),
                              conv("Conv", 192, 192, 3, 192, 10), conv("Conv", 192, 32, 1, 1, 10),
                              layer(0, 32, 0), conv("Conv", 32, 64, 3, 1, 10),
                              conv("Conv", 64, 64, 3, 1, 10), conv("Gemm", 64, 64, 0, 1, 10),
                              conv("Gemm", 64, 10, 0, 1, 10)};
    f[4].op_type = "MaxPool";
    static const int KIND[9] = {LAB_CHAIN_CONV, LAB_CHAIN_IR, LAB_CHAIN_IR, LAB_CHAIN_IR, -1,
                                LAB_CHAIN_CONV, LAB_CHAIN_CONV, LAB_N_CHAIN_KINDS, LAB_N_CHAIN_KINDS};
    for (int i = 0; i < 9; i++) CHECK(opt_chain_kind(f, 9, i) == KIND[i]);
    /* MP 2 for every layer (gamma 1), a threshold no block reaches: the
     * published rules make one block of everything */
    pz_machine mc = {2, 1e30, 0, 0, 1.0, 100};
    int sizes[9], mps[9];
    CHECK(opt_alg1(f, 9, &mc, 0, sizes, mps) == 1 && sizes[0] == 9);
    /* a profile where fusing lost for both chain kinds: no fused block */
    lab_profile_tables t;
    memset(&t, 0, sizeof t);
    t.n_chains[LAB_CHAIN_CONV] = t.n_chains[LAB_CHAIN_IR] = 3;
    t.gain[LAB_CHAIN_CONV] = 0.9, t.gain[LAB_CHAIN_IR] = 0.65;
    CHECK(!lab_fusion_pays(&t, LAB_CHAIN_IR) && !lab_fusion_pays(&t, LAB_CHAIN_CONV));
    int nb = opt_alg1_profile(f, 9, &mc, &t, sizes, mps);
    CHECK(nb == 9);
    for (int b = 0; b < nb; b++) CHECK(sizes[b] == 1 && mps[b] == 2);
    /* inverted residuals gain 1.5: they fuse, the rest stays alone; the
     * pool after them joins their block (the paper's rule for layers
     * without an op count) */
    t.gain[LAB_CHAIN_IR] = 1.5;
    nb = opt_alg1_profile(f, 9, &mc, &t, sizes, mps);
    CHECK(nb == 6 && same(sizes, (int[]){1, 4, 1, 1, 1, 1}, 6));
    /* a gain just under LAB_FUSE_GAIN_MIN does not count, nor a kind never
     * measured (no chains) */
    t.gain[LAB_CHAIN_IR] = LAB_FUSE_GAIN_MIN - 0.01;
    CHECK(opt_alg1_profile(f, 9, &mc, &t, sizes, mps) == 9);
    t.gain[LAB_CHAIN_IR] = 1.5, t.n_chains[LAB_CHAIN_IR] = 0;
    CHECK(opt_alg1_profile(f, 9, &mc, &t, sizes, mps) == 9);
    /* both kinds gain: the convs fuse too, the FC layers never */
    t.n_chains[LAB_CHAIN_IR] = 3, t.gain[LAB_CHAIN_CONV] = 1.2;
    nb = opt_alg1_profile(f, 9, &mc, &t, sizes, mps);
    CHECK(nb == 3 && same(sizes, (int[]){7, 1, 1}, 3));
    /* the cut of line 12 still applies: threshold 15 with ops 10 per layer
     * on MP 2 ends a block once it holds 3 convs (30 / 2 >= 15) */
    mc.opcount_critical = 15;
    nb = opt_alg1_profile(f, 9, &mc, &t, sizes, mps);
    CHECK(nb == 4 && same(sizes, (int[]){3, 4, 1, 1}, 4));   /* the FC layers alone */

    /* the MP check: depthwise layers measured 3x slower on MP 2 than on 1;
     * dense convs 1.6x faster on 2; FC layers within noise */
    t.n_mp = 2, t.mp[0] = 1, t.mp[1] = 2;
    lab_layer_point pts[3] = {{LAB_LAYER_DEPTHWISE, log2(192), log2(10), 3, {0.01, 0.03}},
                              {LAB_LAYER_CONV, log2(64), log2(10), 3, {1.0, 0.6}},
                              {LAB_LAYER_FC, log2(64), log2(10), 0, {1.0, 0.98}}};
    t.pts = pts, t.n_pts = 3;
    CHECK(opt_mp_model(&mc, &f[2]) == 2 && opt_mp_checked(&mc, &t, &f[2]) == 1);
    CHECK(opt_mp_checked(&mc, &t, &f[5]) == 2 && opt_mp_checked(&mc, &t, &f[7]) == 2);
    mc.mp_gamma = -1;   /* the model says MP 1 for all */
    CHECK(opt_mp_model(&mc, &f[5]) == 1 && opt_mp_checked(&mc, &t, &f[5]) == 2);
    CHECK(opt_mp_checked(&mc, &t, &f[7]) == 1);   /* within noise: the model's */
    CHECK(opt_mp_checked(&mc, &t, &f[2]) == 1);
    CHECK(opt_mp_checked(&mc, NULL, &f[5]) == 1);
    /* no fusion: each layer on its checked MP; the pool on the MP of the
     * conv before it */
    mc.mp_gamma = 1;
    t.gain[LAB_CHAIN_IR] = t.gain[LAB_CHAIN_CONV] = 0.5;
    nb = opt_alg1_profile(f, 9, &mc, &t, sizes, mps);
    CHECK(nb == 9 && same(mps, (int[]){2, 2, 1, 2, 2, 2, 2, 2, 2}, 9));
    /* a fused block's MP: the closest of 1 and 2 to the mean of its
     * convs' checked MPs, (1+1+2)/3 = 1.33 -> 1, and (2+1+2)/3 = 1.67 -> 2
     * (where line 14's floor says 1) */
    t.gain[LAB_CHAIN_IR] = 1.5;
    mc.opcount_critical = 1e30;
    f[1].kernel_h = f[1].kernel_w = 3, f[1].group = 32, f[1].c_out = 32;   /* depthwise too */
    CHECK(opt_chain_kind(f, 9, 1) == LAB_CHAIN_IR);
    nb = opt_alg1_profile(f, 9, &mc, &t, sizes, mps);
    CHECK(sizes[1] == 4 && mps[1] == 1);
    f[1] = conv("Conv", 32, 192, 1, 1, 10);
    nb = opt_alg1_profile(f, 9, &mc, &t, sizes, mps);
    CHECK(sizes[1] == 4 && mps[1] == 2);
}

static int has_schedule(const opt_candidate *c, int nc, const int *sizes, const int *mps, int nb)
{
    for (int i = 0; i < nc; i++)
        if (c[i].n_blocks == nb && same(c[i].sizes, sizes, nb) && same(c[i].mps, mps, nb)) return 1;
    return 0;
}

/* The oracle's space holds every other strategy's schedule: its MPs hold
 * the cores, its block sizes one layer at every offset, and its seeds the
 * schedules of none, fixed-mp, fuse-all and the profile's strategies. */
static void oracle_space(void)
{
    int mp[16];
    CHECK(opt_oracle_mps(2, mp) == 2 && mp[0] == 1 && mp[1] == 2);
    CHECK(opt_oracle_mps(6, mp) == 5 && same(mp, (int[]){1, 2, 3, 4, 6}, 5));   /* dp's 3 */
    CHECK(opt_oracle_mps(64, mp) == 11 && mp[9] == 32 && mp[10] == 64);
    CHECK(opt_oracle_mps(16, mp) == 8 && same(mp, (int[]){1, 2, 3, 4, 6, 8, 12, 16}, 8));
    CHECK(opt_alg1_mps(6, mp) == 4 && same(mp, (int[]){1, 2, 4, 6}, 4));
    int sz[64], al[64];
    int k = opt_oracle_plan(30, 30, OPT_ORACLE_SMALL, sz, al);
    CHECK(sz[0] == 1 && al[0] == 1 && sz[1] == 30 && al[1] == 30);
    for (int s = 2; s <= 8; s++) CHECK(sz[s] == s && al[s] == 1);
    CHECK(k == 2 + 7 + 5 && same(sz + 9, (int[]){12, 16, 20, 24, 28}, 5) && al[9] == 4);
    k = opt_oracle_plan(30, 6, OPT_ORACLE_SMALL, sz, al);   /* max-block=6: no fuse-all */
    CHECK(k == 6 && sz[0] == 1 && sz[5] == 6);

    enum { L = 9 };
    pz_layer_features f[L];
    for (int i = 0; i < L; i++) f[i] = conv("Conv", 64, 64, i % 3 == 1 ? 3 : 1, i % 3 == 1 ? 64 : 1, 1e6);
    pz_machine mc = {4, 3e6, 0, 0, 1.0, 100};
    opt_candidate c[64];
    int store[128][L];
    for (int i = 0; i < 64; i++) c[i].sizes = store[2 * i], c[i].mps = store[2 * i + 1];
    lab_profile_tables t;
    memset(&t, 0, sizeof t);
    t.n_chains[LAB_CHAIN_IR] = 1, t.gain[LAB_CHAIN_IR] = 1.5;
    int nc = opt_oracle_seeds(f, L, 4, &mc, &t, c, 64);
    int s[L], m[L], nb;
    for (int j = 1; j <= 4; j *= 2) {   /* none, fixed-mp:2, fixed-mp */
        nb = opt_each_layer(L, j, s, m);
        CHECK(has_schedule(c, nc, s, m, nb));
    }
    nb = opt_offset_blocks(L, L, 0, 4, s, m);   /* fuse-all */
    CHECK(nb == 1 && has_schedule(c, nc, s, m, nb));
    nb = opt_offset_blocks(L, 2, 1, 4, s, m);   /* best's blocks of 2 from layer 1 */
    CHECK(nb == 5 && s[0] == 1 && has_schedule(c, nc, s, m, nb));
    nb = opt_alg1(f, L, &mc, 0, s, m);   /* dlfusion:paper */
    CHECK(has_schedule(c, nc, s, m, nb));
    nb = opt_alg1_profile(f, L, &mc, &t, s, m);   /* dlfusion */
    CHECK(nb > 1 && has_schedule(c, nc, s, m, nb));
    nb = opt_dynamic_mp(f, L, &mc, s, m);
    CHECK(has_schedule(c, nc, s, m, nb));
    for (int i = 0; i < nc; i++)   /* distinct */
        for (int j = 0; j < i; j++)
            CHECK(!(c[i].n_blocks == c[j].n_blocks && same(c[i].sizes, c[j].sizes, c[i].n_blocks) &&
                    same(c[i].mps, c[j].mps, c[i].n_blocks)));
    /* without a profile: only the seeds that need none */
    int nc0 = opt_oracle_seeds(f, L, 4, NULL, NULL, c, 64);
    CHECK(nc0 > 3 && nc0 < nc);
    CHECK(opt_oracle_seeds(f, L, 4, &mc, &t, c, 2) == 2);   /* the cap holds */

    /* bench's schedules (dp's at MP 3, best's): legal ones kept, once each */
    int dps[] = {2, 3, 4}, dpm[] = {3, 4, 3}, bes[] = {9}, bem[] = {4};
    int lng[] = {2, 3, 5}, big[] = {9}, bigm[] = {5}, zer[] = {0, 9}, zm[] = {4, 4};
    opt_schedule g[] = {{"dp", 3, dps, dpm}, {"best", 1, bes, bem}, {"dp", 3, dps, dpm},
                        {"long", 3, lng, dpm}, {"mp5", 1, big, bigm}, {"zero", 2, zer, zm}};
    int ng = opt_oracle_add_given(c, 0, 64, g, 6, L, 4);
    CHECK(ng == 2 && has_schedule(c, ng, dps, dpm, 3) && has_schedule(c, ng, bes, bem, 1));
    CHECK(opt_oracle_add_given(c, ng, 64, g, 2, L, 4) == 2);   /* there already */
    CHECK(opt_oracle_add_given(c, 0, 1, g, 2, L, 4) == 1);     /* the cap holds */
}

/* bench's flag: a strategy faster than the oracle beyond noise. */
static void beats_oracle(void)
{
    double o[10], s[10], ratio, noise;
    for (int k = 0; k < 10; k++) o[k] = 10 + (k % 3) * 0.1;
    for (int k = 0; k < 10; k++) s[k] = o[k] * 0.9;   /* 10% faster in every pair */
    CHECK(opt_beats_oracle(s, o, 10, &ratio, &noise) && fabs(ratio - 0.9) < 1e-9 && noise == OPT_BENCH_NOISE);
    for (int k = 0; k < 10; k++) s[k] = o[k] * 0.99;   /* 1%: noise */
    CHECK(!opt_beats_oracle(s, o, 10, &ratio, NULL));
    for (int k = 0; k < 10; k++) s[k] = o[k];
    CHECK(!opt_beats_oracle(s, o, 10, NULL, NULL));
    /* 5% faster in the median, but the pairs scatter by +-30%: noise */
    for (int k = 0; k < 10; k++) s[k] = o[k] * (k % 2 ? 0.65 : 1.25) * (k < 5 ? 1 : 0.95);
    CHECK(!opt_beats_oracle(s, o, 10, &ratio, &noise) && noise > 0.05);
    /* the oracle slower: no flag; no rounds: no flag */
    for (int k = 0; k < 10; k++) s[k] = o[k] * 1.2;
    CHECK(!opt_beats_oracle(s, o, 10, NULL, NULL) && !opt_beats_oracle(s, o, 0, NULL, NULL));
}

int main(void)
{
    alg1();
    alg1_profile();
    oracle_space();
    beats_oracle();
    searches();
    return test_summary("opt_search");
}
