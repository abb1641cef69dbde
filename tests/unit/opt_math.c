/* opt_math.c - the optimizer's arithmetic: the knob-space size (Paleozoic
 * Eq. 3) against the figures of the papers and its closed form; Jacobi
 * eigen-decomposition and PCA against analytic answers; least squares. */
#include <math.h>
#include <string.h>

#include "opt/opt.h"
#include "opt/opt_internal.h"

#include "test_check.h"

static void space(void)
{
    char buf[64];
    /* DLFusion III.C: n = 50 layers, 32 cores: 8.17e75 */
    opt_space_format(opt_space_log10(50, 32), buf, sizeof buf);
    CHECK(!strcmp(buf, "8.17e75"));
    /* Paleozoic 4.3 prints 3.79e38 for n = 32; its own Eq. 3 gives 3.79e48 */
    opt_space_format(opt_space_log10(32, 32), buf, sizeof buf);
    CHECK(!strcmp(buf, "3.79e48"));
    /* the sum is sum_i c^(i+1) C(n-1, i) = c ((c+1)^(n-1) - 1): compare */
    for (int c = 1; c <= 64; c *= 2)
        for (int n = 2; n <= 200; n += 7) {
            long double exact = log10l((long double)c) + log10l(powl(c + 1.0L, n - 1) - 1.0L);
            long double got = opt_space_log10(n, c);
            CHECK(fabsl(got - exact) < 1e-9L * (exact > 1 ? exact : 1));
        }
    /* small cases by hand: n = 2 has 1 cut: c^2; n = 3: 2 c^2 + c^3 */
    CHECK(fabsl(powl(10, opt_space_log10(2, 32)) - 1024) < 1e-6L);
    CHECK(fabsl(powl(10, opt_space_log10(3, 2)) - 16) < 1e-9L);
    CHECK(opt_space_log10(1, 32) == -INFINITY);
    opt_space_format(log10l(9.996e5L), buf, sizeof buf);
    CHECK(!strcmp(buf, "1.00e6"));
}

static void jacobi(void)
{
    /* [[2,1],[1,2]]: eigenvalues 3 and 1, vectors (1,1)/sqrt2 and (1,-1)/sqrt2 */
    double a[4] = {2, 1, 1, 2}, w[2], v[4];
    lab_jacobi_eigen(a, 2, w, v);
    CHECK(fabs(w[0] - 3) < 1e-12 && fabs(w[1] - 1) < 1e-12);
    CHECK(fabs(fabs(v[0]) - M_SQRT1_2) < 1e-12 && fabs(v[0] - v[2]) < 1e-12);
    /* a random symmetric 6x6: A v = lambda v, V orthonormal, trace kept */
    enum { D = 6 };
    double m[D * D], orig[D * D], ww[D], vv[D * D];
    unsigned s = 7;
    for (int i = 0; i < D; i++)
        for (int j = 0; j <= i; j++) {
            s = s * 1103515245u + 12345u;
            m[i * D + j] = m[j * D + i] = (double)(s >> 16) / 65536.0 - 0.5;
        }
    memcpy(orig, m, sizeof m);
    double trace = 0, sum_w = 0;
    for (int i = 0; i < D; i++) trace += m[i * D + i];
    lab_jacobi_eigen(m, D, ww, vv);
    double worst = 0, orth = 0;
    for (int k = 0; k < D; k++) {
        sum_w += ww[k];
        for (int i = 0; i < D; i++) {
            double av = 0;
            for (int j = 0; j < D; j++) av += orig[i * D + j] * vv[j * D + k];
            worst = fmax(worst, fabs(av - ww[k] * vv[i * D + k]));
        }
        for (int l = 0; l < D; l++) {
            double dot = 0;
            for (int i = 0; i < D; i++) dot += vv[i * D + k] * vv[i * D + l];
            orth = fmax(orth, fabs(dot - (k == l)));
        }
    }
    CHECK(worst < 1e-10);
    CHECK(orth < 1e-10);
    CHECK(fabs(trace - sum_w) < 1e-10);
    for (int k = 1; k < D; k++) CHECK(ww[k - 1] >= ww[k]);
}

static void pca(void)
{
    /* x1 = t, x2 = 2t (perfectly correlated), x3 = an independent
     * alternating sign: the correlation matrix has eigenvalues 2, 1, 0 */
    enum { N = 40 };
    double x[N * 3], w[3], v[9];
    for (int i = 0; i < N; i++) {
        double t = i - N / 2.0;
        x[i * 3 + 0] = t;
        x[i * 3 + 1] = 2 * t + 5;
        x[i * 3 + 2] = (i % 2 ? 1 : -1) * ((i / 2) % 2 ? 1 : -1);   /* uncorrelated with t */
    }
    CHECK(lab_pca(x, N, 3, w, v) == 0);
    double cov = 0;   /* the exact correlation of x3 with t, to know the answer */
    for (int i = 0; i < N; i++) cov += (i - N / 2.0 + 0.5) * x[i * 3 + 2];
    CHECK(fabs(cov) < 1e-9);
    CHECK(fabs(w[0] - 2) < 1e-9);
    CHECK(fabs(w[1] - 1) < 1e-9);
    CHECK(fabs(w[2]) < 1e-9);
    /* the first component loads x1 and x2 equally, not x3 */
    CHECK(fabs(fabs(v[0 * 3 + 0]) - M_SQRT1_2) < 1e-9 && fabs(fabs(v[1 * 3 + 0]) - M_SQRT1_2) < 1e-9);
    CHECK(fabs(v[2 * 3 + 0]) < 1e-9);
    CHECK(lab_pca(x, 1, 3, w, v) == -1);
}

static void lstsq(void)
{
    /* y = 0.3 a - 1.5 b + 2 exactly */
    enum { N = 12 };
    double x[N * 3], y[N], b[3];
    for (int i = 0; i < N; i++) {
        double a = i * 0.7, c = (i * i) % 5;
        x[i * 3 + 0] = a, x[i * 3 + 1] = c, x[i * 3 + 2] = 1;
        y[i] = 0.3 * a - 1.5 * c + 2;
    }
    CHECK(lab_lstsq(x, y, N, 3, b) == 0);
    CHECK(fabs(b[0] - 0.3) < 1e-6 && fabs(b[1] + 1.5) < 1e-6 && fabs(b[2] - 2) < 1e-6);
    /* a constant feature next to the intercept: still solvable, same predictions */
    for (int i = 0; i < N; i++) x[i * 3 + 1] = 4, y[i] = 0.3 * x[i * 3] + 1;
    CHECK(lab_lstsq(x, y, N, 3, b) == 0);
    CHECK(fabs(b[0] - 0.3) < 1e-6 && fabs(4 * b[1] + b[2] - 1) < 1e-6);
}

/* OpCount_critical off one core's timings: t = t0 + ops / P exactly gives
 * (0.85 / 0.15) t0 P; 5% noise moves it by a fraction, not a decade. */
static void critical_single(void)
{
    enum { N = 24 };
    double ops[N], ms[N];
    const double t0 = 0.002, p = 1.7e8;   /* 2 us, 170 GFLOP/s in FLOP per ms */
    for (int i = 0; i < N; i++) {
        ops[i] = pow(10, 4.5 + 0.2 * i);
        ms[i] = t0 + ops[i] / p;
    }
    double want = 0.85 / 0.15 * t0 * p;
    CHECK(fabs(lab_critical_single(ops, ms, N) / want - 1) < 1e-9);
    for (int i = 0; i < N; i++) ms[i] *= 1 + 0.05 * ((i * 7) % 3 - 1);
    double got = lab_critical_single(ops, ms, N);
    CHECK(got > want / 2 && got < want * 2);
    /* no fixed cost: the smallest op count timed; nothing timed: 1e8 */
    for (int i = 0; i < N; i++) ms[i] = ops[i] / p;
    CHECK(lab_critical_single(ops, ms, N) == ops[0]);
    CHECK(lab_critical_single(ops, ms, 0) == 1e8);
}

/* OpCount_critical off the fused chains: the median block op count of the
 * chains that fusing speeds up by LAB_FUSE_GAIN_MIN or more. */
static void critical_fusion(void)
{
    enum { N = 6 };
    double ops[N] = {4e7, 1e7, 9e7, 2e9, 5e7, 3e6}, g[N] = {1.2, 1.1, 1.3, 0.9, 1.25, 1.0};
    /* 2e9 and 3e6 did not gain: the median of 1e7, 4e7, 5e7, 9e7 is the
     * geometric mean of 4e7 and 5e7 */
    CHECK(fabs(lab_critical_fusion(ops, g, N) - sqrt(4e7 * 5e7)) < 1);
    /* an odd count: the middle one */
    g[1] = LAB_FUSE_GAIN_MIN - 1e-9;
    CHECK(lab_critical_fusion(ops, g, N) == 5e7);
    /* exactly the minimum gain counts */
    g[1] = LAB_FUSE_GAIN_MIN;
    CHECK(fabs(lab_critical_fusion(ops, g, N) - sqrt(4e7 * 5e7)) < 1);
    /* one disturbed chain (a gain of 3 at a huge block) moves it one rank */
    g[3] = 3;
    CHECK(lab_critical_fusion(ops, g, N) == 5e7);
    /* no chain gains, or no chain at all: NAN (the caller falls back) */
    for (int i = 0; i < N; i++) g[i] = 0.99;
    CHECK(isnan(lab_critical_fusion(ops, g, N)));
    CHECK(isnan(lab_critical_fusion(ops, g, 0)));
    /* non-finite or non-positive op counts are ignored */
    double bad[2] = {NAN, -1}, gb[2] = {1.5, 1.5};
    CHECK(isnan(lab_critical_fusion(bad, gb, 2)));
}

/* best's choice: the fastest, unless Algorithm 1's is within the margin. */
static void best_pick(void)
{
    double med[4] = {10.0, 9.9, 10.1, 9.85};
    /* no Algorithm 1 candidate: the fastest */
    CHECK(opt_best_pick(med, 4, -1) == 3);
    /* the fastest (9.85) is 1.5% under Algorithm 1's (10.0): keep Algorithm 1 */
    CHECK(opt_best_pick(med, 4, 0) == 0);
    /* more than 2% under it: the fastest */
    med[3] = 9.7;
    CHECK(opt_best_pick(med, 4, 0) == 3);
    /* exactly 2% under: not more than the margin, Algorithm 1 */
    med[3] = 10.0 / (1 + OPT_BEST_MARGIN);
    CHECK(opt_best_pick(med, 4, 0) == 0);
    /* Algorithm 1 fastest itself */
    CHECK(opt_best_pick(med, 4, 3) == 3);
    /* one candidate; none */
    CHECK(opt_best_pick(med, 1, 0) == 0);
    CHECK(opt_best_pick(med, 0, -1) == -1);
    /* a NaN time (a failed candidate) never wins over Algorithm 1 */
    double nan_med[2] = {10.0, NAN};
    CHECK(opt_best_pick(nan_med, 2, 0) == 0);
    /* nor is a NaN Algorithm 1 kept */
    nan_med[0] = NAN;
    nan_med[1] = 10.0;
    CHECK(opt_best_pick(nan_med, 2, 0) == 1);
}

/* best's stitching: the fastest partition from the candidates' measured
 * blocks, a shortest path checked against brute force. */
static void stitch(void)
{
    /* 5 layers. A: every layer alone (1 ms each, MP 1); B: blocks 2+3 at
     * MP 2 (1.5, 2.5); C: 1+2+2 at MP 2 (0.9, 2.5, 1.2) */
    const int sa[] = {1, 1, 1, 1, 1}, ma[] = {1, 1, 1, 1, 1};
    const int sb[] = {2, 3}, mb[] = {2, 2};
    const int sc[] = {1, 2, 2}, mc[] = {2, 2, 2};
    const double ta[] = {1, 1, 1, 1, 1}, tb[] = {1.5, 2.5}, tc[] = {0.9, 2.5, 1.2};
    const int *sz[3] = {sa, sb, sc}, *mp[3] = {ma, mb, mc}, nb[3] = {5, 2, 3};
    const double *bt[3] = {ta, tb, tc};
    int os[5], om[5];
    /* the best: B's first block [0,2) 1.5, A's [2,3) 1.0, C's [3,5) 1.2 = 3.7 */
    int ns = opt_stitch(5, 3, sz, mp, nb, bt, os, om);
    CHECK(ns == 3);
    CHECK(ns == 3 && os[0] == 2 && om[0] == 2 && os[1] == 1 && om[1] == 1 && os[2] == 2 &&
          om[2] == 2);
    /* brute force over the 16 partitions of 5 layers: none under 3.7 */
    double bestt = INFINITY;
    for (int cut = 0; cut < 16; cut++) {
        int s0 = 0;
        double tot = 0;
        for (int e = 1; e <= 5 && isfinite(tot); e++) {
            if (e < 5 && !(cut >> (e - 1) & 1)) continue;
            double t = INFINITY;   /* the cheapest measured block [s0, e) */
            for (int k = 0; k < 3; k++)
                for (int b = 0, f = 0; b < nb[k]; f += sz[k][b++])
                    if (f == s0 && f + sz[k][b] == e && bt[k][b] < t) t = bt[k][b];
            tot += t;
            s0 = e;
        }
        if (tot < bestt) bestt = tot;
    }
    CHECK(fabs(bestt - 3.7) < 1e-12);
    /* a NaN block is never used: without B's 1.5, C's 0.9 + A's 1 + ... */
    const double tb2[] = {NAN, 2.5};
    const double *bt2[3] = {ta, tb2, tc};
    ns = opt_stitch(5, 3, sz, mp, nb, bt2, os, om);
    CHECK(ns == 4 && os[0] == 1 && om[0] == 2 && os[1] == 1 && os[2] == 1 && os[3] == 2);
    /* no candidate covers layer 4: no partition */
    const int sd[] = {4}, md[] = {1}, nbd[1] = {1};
    const double td[] = {1.0};
    const int *szd[1] = {sd}, *mpd[1] = {md};
    const double *btd[1] = {td};
    CHECK(opt_stitch(5, 1, szd, mpd, nbd, btd, os, om) == -1);
    /* paths of one time (5 ms): opt_dp's rule, the shortest last block
     * at each boundary, so A's five layers alone, not B's 2 + 3 */
    const double te[] = {1, 1, 1, 1, 1}, tf[] = {2, 3};
    const double *bte[2] = {te, tf};
    const int *sze[2] = {sa, sb}, *mpe[2] = {ma, mb}, nbe[2] = {5, 2};
    ns = opt_stitch(5, 2, sze, mpe, nbe, bte, os, om);
    CHECK(ns == 5 && os[0] == 1 && os[4] == 1 && om[0] == 1 && om[4] == 1);
    /* and between the same block of two candidates, the earlier's: A's
     * [0,1) at MP 1 over C's at MP 2 */
    const double tg[] = {1, 9, 9};
    const double *btg[2] = {te, tg};
    const int *szg[2] = {sa, sc}, *mpg[2] = {ma, mc}, nbg[2] = {5, 3};
    ns = opt_stitch(5, 2, szg, mpg, nbg, btg, os, om);
    CHECK(ns == 5 && om[0] == 1);
    const double *btg2[2] = {tg, te};
    const int *szg2[2] = {sc, sa}, *mpg2[2] = {mc, ma}, nbg2[2] = {3, 5};
    ns = opt_stitch(5, 2, szg2, mpg2, nbg2, btg2, os, om);
    CHECK(ns == 5 && om[0] == 2);
}

/* The build's knobs a replanned program takes (opt_knobs_format, _parse):
 * what is written reads back, unset ones stay unset, a bad line fails. */
static void knobs(void)
{
    opt_knobs k = {"fuse-all", NULL, "bf16", "fp16", 1, 0.25f, 1, 4, "s.json"}, r;
    char buf[512], bad[] = "strategy=fixed-mp\nprecison=bf16\n", noeq[] = "strategy";
    CHECK(opt_knobs_format(&k, buf, sizeof buf) < (int)sizeof buf);
    CHECK(!strcmp(buf, "strategy=fuse-all\nprecision=bf16\nweights=fp16\nschedule=s.json\n"
                       "sparsity=0.25\nconcat=1\nbatch=4\n"));
    pz_err e = {0};
    CHECK(opt_knobs_parse(buf, &r, &e) == PZ_OK);
    CHECK(!strcmp(r.strategy, "fuse-all") && !r.target && !strcmp(r.precision, "bf16") &&
          !strcmp(r.weights, "fp16") && r.has_sparsity && r.sparsity == 0.25f && r.concat == 1 &&
          r.batch == 4 && !strcmp(r.schedule, "s.json"));
    opt_knobs d = {0};   /* the defaults: the strategy named, nothing else set */
    opt_knobs_format(&d, buf, sizeof buf);
    CHECK(!strcmp(buf, "strategy=" OPT_DEFAULT_STRATEGY "\nconcat=0\nbatch=0\n"));
    CHECK(opt_knobs_parse(bad, &r, &e) == PZ_ERR_INPUT && strstr(e.msg, "precison"));
    pz_err e2 = {0};
    CHECK(opt_knobs_parse(noeq, &r, &e2) == PZ_ERR_INPUT && strstr(e2.msg, "key=value"));
}

int main(void)
{
    knobs();
    space();
    jacobi();
    pca();
    lstsq();
    critical_single();
    critical_fusion();
    best_pick();
    stitch();
    return test_summary("opt_math");
}
