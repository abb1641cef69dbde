/* rt_loop.c - loops run at run time through the runtime API (pz_rt.h):
 * LOOP_BEGIN ... LOOP with the trip count an input, a loop nested in
 * another's body (its LOOP_BEGIN reset per outer iteration), an inner loop
 * whose begin reads nothing of the outer iteration but whose body does (it
 * must still run per outer iteration, not once before), the inner loop's
 * scan output stacked per outer iteration, counts 0 included; a loop whose
 * carried value doubles per iteration (LOOP_BEGIN's grow: CONCAT(h, h))
 * beside two that swap. Expected values computed here by plain C loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/pz_rt.h"
#include "test_check.h"

enum { W = 2 };

/* x [2], n, m -> y [2] and the outer scan output s [k, 2] of each h.
 * Inner: g starts at (reset_from_x ? x : h), g <- g + h per iteration (h
 * the outer value: read from outside the inner loop's begin); outer: h <-
 * inner's g + 1 each iteration. */
static pz_net *nested_net(int reset_from_x)
{
    pz_net *net = pz_net_new(reset_from_x ? "nest_x" : "nest_h");
    int64_t one[1] = {1}, two[1] = {W};
    int x = pz_net_input(net, "x", PZ_F32, 1, two);
    int n = pz_net_input(net, "n", PZ_I64, 1, one);
    int m = pz_net_input(net, "m", PZ_I64, 1, one);
    static const float unit = 1.0f;
    int c1 = pz_net_const(net, "one", PZ_F32, 0, NULL, &unit);
    int oi = pz_net_tensor(net, "oi", PZ_I64, 1, one), oc = pz_net_tensor(net, "oc", PZ_BOOL, 1, one);
    int h = pz_net_tensor(net, "h", PZ_F32, 1, two);
    pz_net_layer(net, "outer/begin", PZ_OP_LOOP_BEGIN, NULL, 0, &x, 1, (int[]){oi, oc, h}, 3);
    int ii = pz_net_tensor(net, "ii", PZ_I64, 1, one), ic = pz_net_tensor(net, "ic", PZ_BOOL, 1, one);
    int g = pz_net_tensor(net, "g", PZ_F32, 1, two);
    int g0 = reset_from_x ? x : h;
    pz_net_layer(net, "inner/begin", PZ_OP_LOOP_BEGIN, NULL, 0, &g0, 1, (int[]){ii, ic, g}, 3);
    int g2 = pz_net_tensor(net, "g2", PZ_F32, 1, two);
    pz_binary_params add = {.func = PZ_BIN_ADD};
    pz_net_layer(net, "inner/add", PZ_OP_BINARY, &add, sizeof add, (int[]){g, h}, 2, &g2, 1);
    int gf = pz_net_tensor(net, "gf", PZ_F32, 1, two);
    /* M, cond, iter, cond_in, v_in, cond_out, v_out -> v_final */
    pz_net_layer(net, "inner", PZ_OP_LOOP, NULL, 0, (int[]){m, -1, ii, ic, g, ic, g2}, 7, &gf, 1);
    int h2 = pz_net_tensor(net, "h2", PZ_F32, 1, two);
    pz_net_layer(net, "outer/add", PZ_OP_BINARY, &add, sizeof add, (int[]){gf, c1}, 2, &h2, 1);
    int y = pz_net_tensor(net, "y", PZ_F32, 1, two);
    int s = pz_net_tensor(net, "s", PZ_F32, 2, (int64_t[]){1, W});
    pz_net_layer(net, "outer", PZ_OP_LOOP, NULL, 0, (int[]){n, -1, oi, oc, h, oc, h2, h2}, 8,
                 (int[]){y, s}, 2);
    pz_net_output(net, y);
    pz_net_output(net, s);
    return net;
}

static void check_nested(int reset_from_x)
{
    pz_net *net = nested_net(reset_from_x);
    char err[256] = "";
    int rc = pz_net_compile(net, 2, NULL, err, sizeof err);
    checkf(rc == 0, "compile: %s", err);
    if (rc) {
        pz_net_free(net);
        return;
    }
    static const int64_t counts[][2] = {{3, 2}, {0, 2}, {2, 0}, {4, 5}, {1, 1}, {3, 2}};
    const float x[W] = {0.5f, -1.25f};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int64_t n = counts[c][0], m = counts[c][1];
        float y[W], s[8 * W], want_s[8 * W];
        float hw[W] = {x[0], x[1]};
        for (int64_t i = 0; i < n; i++)
            for (int k = 0; k < W; k++) {
                float gv = reset_from_x ? x[k] : hw[k];
                for (int64_t j = 0; j < m; j++) gv += hw[k];
                hw[k] = gv + 1.0f;
                want_s[i * W + k] = hw[k];
            }
        const void *ins[3] = {x, &n, &m};
        void *outs[2] = {y, s};
        pz_net_run(net, ins, outs);
        const char *re = pz_net_run_error(net);
        checkf(!re, "n %lld m %lld: %s", (long long)n, (long long)m, re ? re : "");
        /* a layer with an output allocated at run time has them all so */
        const float *yv = pz_net_output_data(net, 0);
        if (!yv) yv = y;
        for (int k = 0; k < W; k++)
            checkf(fabsf(yv[k] - hw[k]) <= 1e-5f * (1 + fabsf(hw[k])),
                   "%s n %lld m %lld: y[%d] %g, want %g", reset_from_x ? "x" : "h",
                   (long long)n, (long long)m, k, yv[k], hw[k]);
        int64_t dims[PZ_MAX_RANK];
        CHECK(pz_net_output_shape(net, 1, dims) == 2 && dims[0] == n && dims[1] == W);
        const float *sv = pz_net_output_data(net, 1);
        for (int64_t e = 0; e < n * W && sv; e++)
            checkf(fabsf(sv[e] - want_s[e]) <= 1e-5f * (1 + fabsf(want_s[e])),
                   "n %lld m %lld: s[%lld] %g, want %g", (long long)n, (long long)m,
                   (long long)e, sv[e], want_s[e]);
        CHECK(sv || n == 0);
    }
    pz_net_free(net);
}

/* x [2], n -> y = x repeated 2^n times, and p, q swapped n times. */
static void check_grow(void)
{
    pz_net *net = pz_net_new("grow");
    int64_t one[1] = {1}, two[1] = {W}, four[1] = {2 * W};
    int x = pz_net_input(net, "x", PZ_F32, 1, two);
    int n = pz_net_input(net, "n", PZ_I64, 1, one);
    static const float pv = 3.0f, qv = 5.0f;
    int p0 = pz_net_const(net, "p0", PZ_F32, 1, one, &pv), q0 = pz_net_const(net, "q0", PZ_F32, 1, one, &qv);
    int it = pz_net_tensor(net, "it", PZ_I64, 1, one), c = pz_net_tensor(net, "c", PZ_BOOL, 1, one);
    int h = pz_net_tensor(net, "h", PZ_F32, 1, two);
    int p = pz_net_tensor(net, "p", PZ_F32, 1, one), q = pz_net_tensor(net, "q", PZ_F32, 1, one);
    pz_loop_params grow = {1};
    pz_net_layer(net, "loop/begin", PZ_OP_LOOP_BEGIN, &grow, sizeof grow, (int[]){x, p0, q0}, 3,
                 (int[]){it, c, h, p, q}, 5);
    int h2 = pz_net_tensor(net, "h2", PZ_F32, 1, four);
    pz_axis_params ax = {0};
    pz_net_layer(net, "loop/cat", PZ_OP_CONCAT, &ax, sizeof ax, (int[]){h, h}, 2, &h2, 1);
    int y = pz_net_tensor(net, "y", PZ_F32, 1, two);
    int pf = pz_net_tensor(net, "pf", PZ_F32, 1, one), qf = pz_net_tensor(net, "qf", PZ_F32, 1, one);
    /* M, cond, iter, cond_in, v_in (h, p, q), cond_out, v_out (h2, q, p) */
    pz_net_layer(net, "loop", PZ_OP_LOOP, NULL, 0, (int[]){n, -1, it, c, h, p, q, c, h2, q, p}, 11,
                 (int[]){y, pf, qf}, 3);
    pz_net_output(net, y);
    pz_net_output(net, pf);
    pz_net_output(net, qf);
    char err[256] = "";
    int rc = pz_net_compile(net, 1, NULL, err, sizeof err);
    checkf(rc == 0, "grow compile: %s", err);
    const float xs[W] = {1.5f, -2.0f};
    for (int64_t k = 0; k < 8 && !rc; k += k < 2 ? 1 : 3) {
        float yb[W], pb, qb;
        const void *ins[2] = {xs, &k};
        void *outs[3] = {yb, &pb, &qb};
        pz_net_run(net, ins, outs);
        const char *re = pz_net_run_error(net);
        checkf(!re, "grow n %lld: %s", (long long)k, re ? re : "");
        int64_t dims[PZ_MAX_RANK];
        int64_t len = (int64_t)W << k;
        CHECK(pz_net_output_shape(net, 0, dims) == 1 && dims[0] == len);
        const float *yv = pz_net_output_data(net, 0), *pp = pz_net_output_data(net, 1),
                    *qq = pz_net_output_data(net, 2);
        CHECK(yv && pp && qq);
        for (int64_t e = 0; yv && e < len; e++)
            checkf(yv[e] == xs[e % W], "grow n %lld: y[%lld] %g, want %g", (long long)k,
                   (long long)e, yv[e], xs[e % W]);
        if (pp && qq)
            checkf(*pp == (k % 2 ? qv : pv) && *qq == (k % 2 ? pv : qv),
                   "grow n %lld: p %g q %g", (long long)k, *pp, *qq);
    }
    pz_net_free(net);
}

/* A net y = loop n times { h <- body(h) } over inputs x [2], n and v (one
 * element of type vt), the body's layers added between loop_open and
 * loop_close, which compiles it (NULL on failure, checked). */
typedef struct {
    pz_net *net;
    int x, n, v, h;
    int it, lc;
} loop_net;

static loop_net loop_open(const char *name, const char *v_name, pz_dtype vt)
{
    int64_t one[1] = {1}, two[1] = {W};
    loop_net L = {pz_net_new(name), 0, 0, 0, 0, 0, 0};
    L.x = pz_net_input(L.net, "x", PZ_F32, 1, two);
    L.n = pz_net_input(L.net, "n", PZ_I64, 1, one);
    L.v = pz_net_input(L.net, v_name, vt, 1, one);
    L.it = pz_net_tensor(L.net, "it", PZ_I64, 1, one);
    L.lc = pz_net_tensor(L.net, "lc", PZ_BOOL, 1, one);
    L.h = pz_net_tensor(L.net, "h", PZ_F32, 1, two);
    pz_net_layer(L.net, "loop/begin", PZ_OP_LOOP_BEGIN, NULL, 0, &L.x, 1, (int[]){L.it, L.lc, L.h}, 3);
    return L;
}

static pz_net *loop_close(const loop_net *L, int h_out)
{
    int64_t two[1] = {W};
    int y = pz_net_tensor(L->net, "y", PZ_F32, 1, two);
    pz_net_layer(L->net, "loop", PZ_OP_LOOP, NULL, 0, (int[]){L->n, -1, L->it, L->lc, L->h, L->lc, h_out},
                 7, &y, 1);
    pz_net_output(L->net, y);
    char err[256] = "";
    int rc = pz_net_compile(L->net, 1, NULL, err, sizeof err);
    checkf(rc == 0, "loop net compile: %s", err);
    if (!rc) return L->net;
    pz_net_free(L->net);
    return NULL;
}

/* The profile's count of skipped layers: y = loop n times { h <- c ? h + x
 * : h * x }, a WHERE of the bool input c choosing (rt/guard.c). c false
 * with n 2 skips the add; n 0 then reaches neither side, which the profile
 * must not count as skipped (an earlier run's flag). */
static void check_guard_in_body(void)
{
    loop_net L = loop_open("guard_body", "c", PZ_BOOL);
    int64_t two[1] = {W};
    int a = pz_net_tensor(L.net, "a", PZ_F32, 1, two), m = pz_net_tensor(L.net, "m", PZ_F32, 1, two);
    pz_binary_params add = {.func = PZ_BIN_ADD}, mul = {.func = PZ_BIN_MUL};
    pz_net_layer(L.net, "loop/then_add", PZ_OP_BINARY, &add, sizeof add, (int[]){L.h, L.x}, 2, &a, 1);
    pz_net_layer(L.net, "loop/else_mul", PZ_OP_BINARY, &mul, sizeof mul, (int[]){L.h, L.x}, 2, &m, 1);
    int w = pz_net_tensor(L.net, "w", PZ_F32, 1, two);
    pz_net_layer(L.net, "loop/pick", PZ_OP_WHERE, NULL, 0, (int[]){L.v, a, m}, 3, &w, 1);
    pz_net *net = loop_close(&L, w);
    if (!net) return;
    pz_net_profile(net, 1);
    const float xs[W] = {1.5f, -2.0f};
    static const struct { int64_t n; uint8_t c; int skipped; float y0; } runs[] = {
        {2, 0, 1, 1.5f * 1.5f * 1.5f}, {0, 0, 0, 1.5f}, {2, 1, 1, 4.5f}, {0, 1, 0, 1.5f}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        float yb[W];
        const void *ins[3] = {xs, &runs[r].n, &runs[r].c};
        void *outs[1] = {yb};
        pz_net_run(net, ins, outs);
        const char *re = pz_net_run_error(net);
        checkf(!re, "guard_body run %zu: %s", r, re ? re : "");
        checkf(yb[0] == runs[r].y0, "guard_body run %zu: y[0] %g, want %g", r, yb[0], runs[r].y0);
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f) continue;
        pz_net_print_profile(net, f);
        fclose(f);
        int says = buf && strstr(buf, ", 1 skipped by the last run") != NULL;
        checkf(says == runs[r].skipped, "guard_body run %zu (n %lld, c %d): the profile %s one "
               "layer skipped: %s", r, (long long)runs[r].n, runs[r].c,
               runs[r].skipped ? "does not count" : "counts", buf ? buf : "");
        free(buf);
    }
    pz_net_free(net);
}

/* y = loop n times { h <- h + h[i] }: with i out of range the body's
 * GATHER fails the run naming itself; a later run of n 0 does not reach it
 * and must not report that earlier error (ONNX Runtime runs no body). */
static void check_body_error_cleared(void)
{
    loop_net L = loop_open("body_error", "i", PZ_I64);
    int64_t one[1] = {1}, two[1] = {W};
    int g = pz_net_tensor(L.net, "g", PZ_F32, 1, one), h2 = pz_net_tensor(L.net, "h2", PZ_F32, 1, two);
    pz_axis_params ax = {0};
    pz_net_layer(L.net, "loop/gather", PZ_OP_GATHER, &ax, sizeof ax, (int[]){L.h, L.v}, 2, &g, 1);
    pz_binary_params add = {.func = PZ_BIN_ADD};
    pz_net_layer(L.net, "loop/add", PZ_OP_BINARY, &add, sizeof add, (int[]){L.h, g}, 2, &h2, 1);
    pz_net *net = loop_close(&L, h2);
    if (!net) return;
    const float xs[W] = {1.5f, -2.0f};
    static const struct { int64_t n, i; int fails; } runs[] = {{1, 5, 1}, {0, 5, 0}, {1, 1, 0}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        float yb[W];
        const void *ins[3] = {xs, &runs[r].n, &runs[r].i};
        void *outs[1] = {yb};
        pz_net_run(net, ins, outs);
        const char *re = pz_net_run_error(net);
        checkf(!re == !runs[r].fails, "body_error run %zu (n %lld, i %lld): %s", r,
               (long long)runs[r].n, (long long)runs[r].i, re ? re : "no error");
        if (!re) checkf(yb[0] == (runs[r].n ? 1.5f - 2.0f : 1.5f), "body_error run %zu: y[0] %g", r,
                        yb[0]);
    }
    pz_net_free(net);
}

int main(void)
{
    check_guard_in_body();
    check_body_error_cleared();
    check_grow();
    check_nested(0);
    check_nested(1);
    return test_summary("rt_loop");
}
