/* opt_search.c - the strategies' decisions without a machine: DLFusion
 * Algorithm 1 against an example worked by hand, the MP model, and the
 * exact searches (DP, branch-and-bound enumeration) against a plain brute
 * force over every partition on synthetic additive cost tables. */
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
static double brute(int n, int max_size, int unit, int *best_sizes, int *best_nb, double *all, int *n_all)
{
    double best = INFINITY;
    *n_all = 0;
    for (unsigned cuts = 0; cuts < (1u << (n - 1)); cuts++) {
        int sizes[N], nb = 0, start = 0, ok = 1;
        double c = 0;
        for (int i = 0; i < n; i++)
            if (i == n - 1 || (cuts >> i & 1)) {
                int s = i + 1 - start;
                if (s > max_size || (s % unit && i != n - 1)) ok = 0;
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
        double want = brute(N, max_size, 1, bs, &bnb, all, &n_all);
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
        int kept = opt_enumerate(N, 1, max_size, tcost, NULL, c, 4, NULL);
        CHECK(kept == (n_all < 4 ? n_all : 4));
        for (int i = 0; i < kept; i++) CHECK(fabs(c[i].cost - all[i]) < 1e-9);
        /* the oracle's space: multiples of 4 layers, the last block what is left */
        double want4 = brute(N, N, 4, bs, &bnb, all, &n_all);
        kept = opt_enumerate(N, 4, N, tcost, NULL, c, 4, NULL);
        qsort(all, (size_t)n_all, sizeof *all, cmp_double);
        CHECK(kept == (n_all < 4 ? n_all : 4) && fabs(c[0].cost - want4) < 1e-9);
        CHECK(c[0].n_blocks == bnb && same(c[0].sizes, bs, bnb));
        for (int i = 0; i < kept; i++) CHECK(fabs(c[i].cost - all[i]) < 1e-9);
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

int main(void)
{
    alg1();
    searches();
    return test_summary("opt_search");
}
