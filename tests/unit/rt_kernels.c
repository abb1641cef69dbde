/* rt_kernels.c - the runtime's layers through its public API (pz_net_*),
 * against hand-computed results and, for conv, against a naive loop written
 * here independently of the kernels. Each net runs with MP 1 and MP 2 (the
 * results must be bitwise equal). Also: memory planning reuses buffers, and
 * bad layers give messages that name them.
 *
 * Prints `rt_kernels: P passed, F failed`; exit 1 on a failure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/pz_rt.h"

#include "test_check.h"

static void report(bool ok, const char *what, const char *detail)
{
    checkf(ok, "%s%s%s", what, detail && detail[0] ? ": " : "", detail ? detail : "");
}

/* ---- a one-layer net ------------------------------------------------------ */

typedef struct {
    int dtype, rank;
    int64_t dims[PZ_MAX_RANK];
    const void *data;   /* inputs: the data; outputs: ignored */
    bool constant;      /* an input given as a constant */
} spec;

/* Builds X -> layer -> Y, compiles with `mp` cores, runs, copies the outputs
 * into out[i]. Returns 0, or 1 with the compile error in err. */
static int run_layer(pz_op_kind kind, const void *params, size_t psize, const spec *in, int n_in,
                     const spec *outs, int n_out, void **out, int mp, char *err, size_t errsize)
{
    pz_net *net = pz_net_new("test");
    int ids_in[16], ids_out[16];
    const void *inputs[16];
    int ni = 0;
    for (int i = 0; i < n_in; i++) {
        if (in[i].dtype == 0) { ids_in[i] = -1; continue; }   /* omitted */
        char name[16];
        snprintf(name, sizeof name, "in%d", i);
        if (in[i].constant) {
            ids_in[i] = pz_net_const(net, name, in[i].dtype, in[i].rank, in[i].dims, in[i].data);
        } else {
            ids_in[i] = pz_net_input(net, name, in[i].dtype, in[i].rank, in[i].dims);
            inputs[ni++] = in[i].data;
        }
    }
    for (int i = 0; i < n_out; i++) {
        char name[16];
        snprintf(name, sizeof name, "out%d", i);
        ids_out[i] = pz_net_tensor(net, name, outs[i].dtype, outs[i].rank, outs[i].dims);
        pz_net_output(net, ids_out[i]);
    }
    pz_net_layer(net, "the_layer", kind, params, psize, ids_in, n_in, ids_out, n_out);
    pz_net_block(net, 0, 1, mp);
    if (pz_net_compile(net, 2, NULL, err, errsize)) {
        pz_net_free(net);
        return 1;
    }
    pz_net_run(net, inputs, out);
    pz_net_free(net);
    return 0;
}

static size_t spec_bytes(const spec *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) n *= s->dims[i];
    return (size_t)n * pz_dtype_size(s->dtype);
}

/* Runs the layer with MP 1 and 2, checks both against `want` (one output)
 * within tol (floats) or exactly (others), and MP 1 == MP 2 bitwise. */
static void expect(const char *what, pz_op_kind kind, const void *params, size_t psize,
                   const spec *in, int n_in, spec out, const void *want, double tol)
{
    size_t bytes = spec_bytes(&out);
    void *got[2] = {calloc(1, bytes + 1), calloc(1, bytes + 1)};
    char err[512] = "", detail[600] = "";
    bool ok = true;
    for (int m = 0; m < 2 && ok; m++) {
        if (run_layer(kind, params, psize, in, n_in, &out, 1, &got[m], m + 1, err, sizeof err)) {
            snprintf(detail, sizeof detail, "compile: %s", err);
            ok = false;
        }
    }
    if (ok && memcmp(got[0], got[1], bytes) != 0) {
        snprintf(detail, sizeof detail, "MP 1 and MP 2 differ");
        ok = false;
    }
    int64_t n = (int64_t)(bytes / pz_dtype_size(out.dtype));
    for (int64_t i = 0; ok && i < n; i++) {
        double g, w;
        switch (out.dtype) {
        case PZ_F32: g = ((float *)got[0])[i]; w = ((const float *)want)[i]; break;
        case PZ_F64: g = ((double *)got[0])[i]; w = ((const double *)want)[i]; break;
        case PZ_I64:
            if (((int64_t *)got[0])[i] != ((const int64_t *)want)[i]) {
                snprintf(detail, sizeof detail, "element %lld: got %lld, want %lld", (long long)i,
                         (long long)((int64_t *)got[0])[i], (long long)((const int64_t *)want)[i]);
                ok = false;
            }
            continue;
        case PZ_I32: g = ((int32_t *)got[0])[i]; w = ((const int32_t *)want)[i]; break;
        case PZ_I8: g = ((int8_t *)got[0])[i]; w = ((const int8_t *)want)[i]; break;
        case PZ_U8: g = ((uint8_t *)got[0])[i]; w = ((const uint8_t *)want)[i]; break;
        default: g = w = 0; break;
        }
        bool same = (isnan(g) && isnan(w)) || fabs(g - w) <= tol * (1 + fabs(w));
        if (!same) {
            snprintf(detail, sizeof detail, "element %lld: got %.7g, want %.7g", (long long)i, g, w);
            ok = false;
        }
    }
    report(ok, what, detail);
    free(got[0]);
    free(got[1]);
}

#define F32(r, ...) {PZ_F32, r, {__VA_ARGS__}, NULL, false}
#define I64(r, ...) {PZ_I64, r, {__VA_ARGS__}, NULL, false}

/* ---- conv ----------------------------------------------------------------- */

/* 3x3 input 1..9, 2x2 kernel of ones, padding 1 on every side, stride 1:
 * each output is the sum of the window inside the input. */
static void test_conv_hand(void)
{
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b[1] = {0.5f};
    float want[16] = {
        1, 3, 5, 3,
        5, 12, 16, 9,
        11, 24, 28, 15,
        7, 15, 17, 9,
    };
    for (int i = 0; i < 16; i++) want[i] += 0.5f;
    pz_conv_params p = {.nsp = 2, .group = 1, .kernel = {2, 2}, .stride = {1, 1},
                        .dilation = {1, 1}, .pad_begin = {1, 1}, .pad_end = {1, 1}};
    spec in[3] = {F32(4, 1, 1, 3, 3), F32(4, 1, 1, 2, 2), F32(1, 1)};
    in[0].data = x;
    in[1].data = w, in[1].constant = true;
    in[2].data = b, in[2].constant = true;
    spec out = F32(4, 1, 1, 4, 4);
    expect("conv 2x2 pads 1 on every side, bias", PZ_OP_CONV, &p, sizeof p, in, 3, out, want, 0);
}

/* The naive definition, written again here. */
static void conv_naive(const pz_conv_params *p, const int64_t *xd, const int64_t *wd,
                       const int64_t *yd, const float *x, const float *w, const float *b,
                       const float *z, float *y)
{
    int64_t N = xd[0], C = xd[1], M = yd[1], G = p->group, Cg = C / G, Mg = M / G;
    int64_t H = xd[2], W = xd[3], OH = yd[2], OW = yd[3], KH = wd[2], KW = wd[3];
    for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < M; m++)
    for (int64_t oh = 0; oh < OH; oh++)
    for (int64_t ow = 0; ow < OW; ow++) {
        double s = b ? b[m] : 0;
        for (int64_t c = 0; c < Cg; c++)
        for (int64_t kh = 0; kh < KH; kh++)
        for (int64_t kw = 0; kw < KW; kw++) {
            int64_t ih = oh * p->stride[0] - p->pad_begin[0] + kh * p->dilation[0];
            int64_t iw = ow * p->stride[1] - p->pad_begin[1] + kw * p->dilation[1];
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            s += x[((n * C + (m / Mg) * Cg + c) * H + ih) * W + iw] *
                 w[((m * Cg + c) * KH + kh) * KW + kw];
        }
        int64_t yi = ((n * M + m) * OH + oh) * OW + ow;
        if (z) s += z[yi];
        if (p->act.kind == PZ_ACT_RELU && s < 0) s = 0;
        y[yi] = (float)s;
    }
}

static float frand(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (float)((*seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* One conv against the naive loop: random data, shapes from the params. */
static void conv_case(const char *what, pz_conv_params p, int64_t N, int64_t C, int64_t H,
                      int64_t W, int64_t M, bool bias, bool resid)
{
    unsigned seed = (unsigned)(N * 131 + C * 31 + H * 7 + W + M * 1009);
    int64_t G = p.group, KH = p.kernel[0], KW = p.kernel[1];
    int64_t OH = (H + p.pad_begin[0] + p.pad_end[0] - p.dilation[0] * (KH - 1) - 1) / p.stride[0] + 1;
    int64_t OW = (W + p.pad_begin[1] + p.pad_end[1] - p.dilation[1] * (KW - 1) - 1) / p.stride[1] + 1;
    int64_t xd[4] = {N, C, H, W}, wd[4] = {M, C / G, KH, KW}, yd[4] = {N, M, OH, OW};
    int64_t nx = N * C * H * W, nw = M * (C / G) * KH * KW, ny = N * M * OH * OW;
    float *x = malloc(sizeof(float) * (size_t)nx), *w = malloc(sizeof(float) * (size_t)nw);
    float *z = malloc(sizeof(float) * (size_t)ny), *want = malloc(sizeof(float) * (size_t)ny);
    float *b = malloc(sizeof(float) * (size_t)M);
    for (int64_t i = 0; i < nx; i++) x[i] = frand(&seed);
    for (int64_t i = 0; i < nw; i++) w[i] = frand(&seed);
    for (int64_t i = 0; i < ny; i++) z[i] = frand(&seed);
    for (int64_t i = 0; i < M; i++) b[i] = frand(&seed);
    conv_naive(&p, xd, wd, yd, x, w, bias ? b : NULL, resid ? z : NULL, want);
    spec in[4] = {F32(4, N, C, H, W), F32(4, M, C / G, KH, KW), F32(1, M), F32(4, N, M, OH, OW)};
    in[0].data = x;
    in[1].data = w, in[1].constant = true;
    in[2].data = b, in[2].constant = true;
    in[3].data = z;
    if (!bias) in[2].dtype = 0;   /* omitted */
    expect(what, PZ_OP_CONV, &p, sizeof p, in, resid ? 4 : 3, (spec)F32(4, N, M, OH, OW), want,
           1e-5);
    free(x);
    free(w);
    free(z);
    free(want);
    free(b);
}

#define CONVP(g, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, ak)                                   \
    ((pz_conv_params){.nsp = 2, .group = g, .kernel = {kh, kw}, .stride = {sh, sw},            \
                      .dilation = {dh, dw}, .pad_begin = {pt, pl}, .pad_end = {pb, pr},          \
                      .act = {ak, 0, 0}})

/* Groups, asymmetric pads on every side, strides, dilations, residual, ReLU;
 * widths below, at and above 8 (the vector blocks of the reference). */
static void test_conv_sweep(void)
{
    conv_case("conv groups 3, pads 2/1 1/3, stride 2x1, dilation 1x2, residual, relu",
              CONVP(3, 3, 2, 2, 1, 1, 2, 2, 1, 1, 3, PZ_ACT_RELU), 2, 6, 7, 5, 9, true, true);
    conv_case("conv 1x1", CONVP(1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, PZ_ACT_NONE), 1, 5, 4, 9, 3,
              false, false);
    conv_case("conv 3x3 pads 1, width 8", CONVP(1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, PZ_ACT_NONE),
              1, 3, 8, 8, 4, true, false);
    conv_case("conv 3x3 pads 1, width 17", CONVP(1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, PZ_ACT_RELU),
              1, 3, 5, 17, 4, true, false);
    conv_case("conv 3x3 stride 2 pads 1, width 16",
              CONVP(1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, PZ_ACT_NONE), 1, 2, 16, 16, 3, true, true);
    conv_case("conv 7x7 stride 2 pads 3", CONVP(1, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, PZ_ACT_RELU),
              1, 3, 19, 23, 5, true, false);
    conv_case("conv depthwise 3x3", CONVP(6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, PZ_ACT_NONE), 1, 6, 9,
              10, 6, true, false);
    conv_case("conv depthwise x2 5x5 dilation 2", CONVP(4, 5, 5, 1, 1, 2, 2, 4, 4, 4, 4,
              PZ_ACT_NONE), 2, 4, 9, 12, 8, false, true);
    conv_case("conv kernel larger than input + pads", CONVP(1, 5, 5, 1, 1, 1, 1, 2, 3, 2, 1,
              PZ_ACT_NONE), 1, 2, 3, 2, 2, true, false);
}

/* ---- pool ----------------------------------------------------------------- */

static void test_pool(void)
{
    float x[16];
    for (int i = 0; i < 16; i++) x[i] = (float)((i * 7) % 16);   /* 0 7 14 5 / 12 3 10 1 / ... */
    /* rows: [0 7 14 5] [12 3 10 1] [8 15 6 13] [4 11 2 9] */
    pz_pool_params mp = {.kind = PZ_POOL_MAX, .nsp = 2, .kernel = {2, 2}, .stride = {2, 2},
                         .dilation = {1, 1}};
    spec in[1] = {F32(4, 1, 1, 4, 4)};
    in[0].data = x;
    float want_max[4] = {12, 14, 15, 13};
    expect("maxpool 2x2 stride 2", PZ_OP_POOL, &mp, sizeof mp, in, 1, (spec)F32(4, 1, 1, 2, 2),
           want_max, 0);

    /* the Indices output, row-major and column-major */
    for (int order = 0; order < 2; order++) {
        mp.storage_order = order;
        spec outs[2] = {F32(4, 1, 1, 2, 2), I64(4, 1, 1, 2, 2)};
        float y[4];
        int64_t idx[4];
        void *o[2] = {y, idx};
        char err[512] = "";
        int rc = run_layer(PZ_OP_POOL, &mp, sizeof mp, in, 1, outs, 2, o, 2, err, sizeof err);
        /* maxima at (1,0), (0,2), (2,1), (2,3) */
        int64_t want_rm[4] = {4, 2, 9, 11}, want_cm[4] = {1, 8, 6, 14};
        const int64_t *want = order ? want_cm : want_rm;
        bool ok = rc == 0 && memcmp(idx, want, sizeof idx) == 0;
        char detail[600];
        snprintf(detail, sizeof detail, "%s got %lld %lld %lld %lld", err, (long long)idx[0],
                 (long long)idx[1], (long long)idx[2], (long long)idx[3]);
        report(ok, order ? "maxpool indices, column-major" : "maxpool indices, row-major",
               detail);
    }

    /* average 3x3, stride 2, pads 1: with and without the pads counted */
    pz_pool_params ap = {.kind = PZ_POOL_AVG, .nsp = 2, .kernel = {3, 3}, .stride = {2, 2},
                         .dilation = {1, 1}, .pad_begin = {1, 1}, .pad_end = {1, 1}};
    /* windows: rows -1..1 / 1..3, cols -1..1 / 1..3 */
    float s00 = 0 + 7 + 12 + 3, s01 = 7 + 14 + 5 + 3 + 10 + 1, s10 = 12 + 3 + 8 + 15 + 4 + 11,
          s11 = 3 + 10 + 1 + 15 + 6 + 13 + 11 + 2 + 9;
    float want_ex[4] = {s00 / 4, s01 / 6, s10 / 6, s11 / 9};
    float want_in[4] = {s00 / 9, s01 / 9, s10 / 9, s11 / 9};
    expect("avgpool 3x3 pads 1, pads not counted", PZ_OP_POOL, &ap, sizeof ap, in, 1,
           (spec)F32(4, 1, 1, 2, 2), want_ex, 1e-6);
    ap.count_include_pad = 1;
    expect("avgpool 3x3 pads 1, count_include_pad", PZ_OP_POOL, &ap, sizeof ap, in, 1,
           (spec)F32(4, 1, 1, 2, 2), want_in, 1e-6);
}

/* ---- gemm, matmul ----------------------------------------------------------- */

static void test_gemm(void)
{
    /* A^T stored as [K=3, M=2], B^T stored as [N=2, K=3] */
    float at[6] = {1, 4, 2, 5, 3, 6};        /* A = [[1 2 3] [4 5 6]] */
    float bt[6] = {1, 0, -1, 2, 1, 0};       /* B = [[1 2] [0 1] [-1 0]] */
    float c[2] = {10, 20};                   /* broadcast over rows */
    /* A B = [[-2 4] [-2 13]]; Y = 2 * AB + 0.5 * C */
    float want[4] = {-4 + 5, 8 + 10, -4 + 5, 26 + 10};
    pz_gemm_params p = {.trans_a = 1, .trans_b = 1, .alpha = 2, .beta = 0.5f};
    spec in[3] = {F32(2, 3, 2), F32(2, 2, 3), F32(1, 2)};
    in[0].data = at;
    in[1].data = bt, in[1].constant = true;
    in[2].data = c, in[2].constant = true;
    expect("gemm transA transB alpha beta, C [N]", PZ_OP_GEMM, &p, sizeof p, in, 3,
           (spec)F32(2, 2, 2), want, 0);

    /* matmul: [2,1,2,3] x [3,3,2] -> [2,3,2,2] (batch broadcast both ways) */
    float a[12], b[18], want_mm[24];
    for (int i = 0; i < 12; i++) a[i] = (float)(i % 5) - 2;
    for (int i = 0; i < 18; i++) b[i] = (float)(i % 7) - 3;
    for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
    for (int m = 0; m < 2; m++)
    for (int n = 0; n < 2; n++) {
        float s = 0;
        for (int k = 0; k < 3; k++) s += a[(i * 2 + m) * 3 + k] * b[(j * 3 + k) * 2 + n];
        want_mm[((i * 3 + j) * 2 + m) * 2 + n] = s;
    }
    spec mi[2] = {F32(4, 2, 1, 2, 3), F32(3, 3, 3, 2)};
    mi[0].data = a;
    mi[1].data = b;
    expect("matmul batch broadcast [2,1,2,3] x [3,3,2]", PZ_OP_MATMUL, NULL, 0, mi, 2,
           (spec)F32(4, 2, 3, 2, 2), want_mm, 0);

    /* an empty batch dim broadcast against a 1 (or an absent dim) stays
     * empty: the layer compiles and runs with no elements (the runtime once
     * took the larger of 0 and 1 and refused the shapes) */
    float unused[15] = {0};   /* B's values; A has none */
    spec e1[2] = {F32(4, 1, 0, 4, 3), F32(1, 3)};
    e1[0].data = unused;
    e1[1].data = unused;
    expect("matmul empty batch [1,0,4,3] x [3]", PZ_OP_MATMUL, NULL, 0, e1, 2,
           (spec)F32(3, 1, 0, 4), NULL, 0);
    spec e2[2] = {F32(3, 0, 4, 3), F32(3, 1, 3, 5)};
    e2[0].data = unused;
    e2[1].data = unused;
    expect("matmul empty batch [0,4,3] x [1,3,5]", PZ_OP_MATMUL, NULL, 0, e2, 2,
           (spec)F32(3, 0, 4, 5), NULL, 0);
}

/* ---- binary ------------------------------------------------------------------- */

static void test_binary(void)
{
    float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
    float want_add[6] = {11, 22, 33, 14, 25, 36};
    pz_binary_params p = {.func = PZ_BIN_ADD};
    spec in[2] = {F32(2, 2, 3), F32(1, 3)};
    in[0].data = a;
    in[1].data = b;
    expect("binary f32 add [2,3] + [3]", PZ_OP_BINARY, &p, sizeof p, in, 2, (spec)F32(2, 2, 3),
           want_add, 0);

    /* [2,1] - [1,3] with a fused relu */
    float c[2] = {5, 25}, want_sub[6] = {0, 0, 0, 15, 5, 0};
    pz_binary_params ps = {.func = PZ_BIN_SUB, .act = {PZ_ACT_RELU, 0, 0}};
    spec in2[2] = {F32(2, 2, 1), F32(2, 1, 3)};
    in2[0].data = c;
    in2[1].data = b;
    expect("binary f32 sub [2,1] - [1,3], relu", PZ_OP_BINARY, &ps, sizeof ps, in2, 2,
           (spec)F32(2, 2, 3), want_sub, 0);

    /* int64 division: truncation, x/0 = 0, MIN/-1 = MIN (no trap) */
    int64_t x[6] = {7, -7, 7, -7, INT64_MIN, 5};
    int64_t y[6] = {2, 2, -2, -2, -1, 0};
    int64_t want_div[6] = {3, -3, -3, 3, INT64_MIN, 0};
    pz_binary_params pd = {.func = PZ_BIN_DIV};
    spec in3[2] = {I64(1, 6), I64(1, 6)};
    in3[0].data = x;
    in3[1].data = y;
    expect("binary int64 div: truncation, /0, MIN/-1", PZ_OP_BINARY, &pd, sizeof pd, in3, 2,
           (spec)I64(1, 6), want_div, 0);

    /* int64 broadcast [2,3] * [2,1], with wrapping */
    int64_t m[6] = {1, 2, 3, INT64_MAX, -4, 6}, k[2] = {3, 2};
    int64_t want_mul[6] = {3, 6, 9, (int64_t)((uint64_t)INT64_MAX * 2u), -8, 12};
    pz_binary_params pm = {.func = PZ_BIN_MUL};
    spec in4[2] = {I64(2, 2, 3), I64(2, 2, 1)};
    in4[0].data = m;
    in4[1].data = k;
    expect("binary int64 mul [2,3] * [2,1], wraps", PZ_OP_BINARY, &pm, sizeof pm, in4, 2,
           (spec)I64(2, 2, 3), want_mul, 0);

    /* int64 pow and max */
    int64_t base[4] = {2, -3, 5, 1}, ex[4] = {10, 3, -1, -5};
    int64_t want_pow[4] = {1024, -27, 0, 1};
    pz_binary_params pp = {.func = PZ_BIN_POW};
    spec in5[2] = {I64(1, 4), I64(1, 4)};
    in5[0].data = base;
    in5[1].data = ex;
    expect("binary int64 pow", PZ_OP_BINARY, &pp, sizeof pp, in5, 2, (spec)I64(1, 4), want_pow, 0);
}

/* ---- softmax ----------------------------------------------------------------- */

static void test_softmax(void)
{
    float x[6] = {1, 2, 3, -1, 0, 1000};
    float want[6], wantl[6];
    for (int r = 0; r < 2; r++) {
        double mx = r ? 1000 : 3, s = 0;
        for (int j = 0; j < 3; j++) s += exp(x[r * 3 + j] - mx);
        for (int j = 0; j < 3; j++) {
            want[r * 3 + j] = (float)(exp(x[r * 3 + j] - mx) / s);
            wantl[r * 3 + j] = (float)(x[r * 3 + j] - mx - log(s));
        }
    }
    pz_softmax_params p = {.axis = 1};
    spec in[1] = {F32(2, 2, 3)};
    in[0].data = x;
    expect("softmax axis 1 (large values)", PZ_OP_SOFTMAX, &p, sizeof p, in, 1,
           (spec)F32(2, 2, 3), want, 1e-6);
    p.log = 1;
    expect("logsoftmax axis 1", PZ_OP_SOFTMAX, &p, sizeof p, in, 1, (spec)F32(2, 2, 3), wantl,
           1e-6);

    /* axis 0 of [2,3]: over columns */
    float want0[6];
    for (int j = 0; j < 3; j++) {
        double mx = fmax(x[j], x[3 + j]), s = exp(x[j] - mx) + exp(x[3 + j] - mx);
        want0[j] = (float)(exp(x[j] - mx) / s);
        want0[3 + j] = (float)(exp(x[3 + j] - mx) / s);
    }
    pz_softmax_params p0 = {.axis = 0};
    expect("softmax axis 0", PZ_OP_SOFTMAX, &p0, sizeof p0, in, 1, (spec)F32(2, 2, 3), want0, 1e-6);
}

/* ---- data movement --------------------------------------------------------- */

static void test_transpose(void)
{
    float x[24], want[24];
    for (int i = 0; i < 24; i++) x[i] = (float)i;
    /* x [2,3,4], perm (2,0,1): y[k][i][j] = x[i][j][k], y is [4,2,3] */
    for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
    for (int k = 0; k < 4; k++) want[(k * 2 + i) * 3 + j] = x[(i * 3 + j) * 4 + k];
    pz_transpose_params p = {.perm = {2, 0, 1}};
    spec in[1] = {F32(3, 2, 3, 4)};
    in[0].data = x;
    expect("transpose [2,3,4] perm (2,0,1)", PZ_OP_TRANSPOSE, &p, sizeof p, in, 1,
           (spec)F32(3, 4, 2, 3), want, 0);

    /* size-1 axes and merged axes: [1,2,1,3,2] perm (0,3,4,1,2) */
    float want2[12];
    for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
    for (int c = 0; c < 2; c++) want2[(b * 2 + c) * 2 + a] = x[(a * 3 + b) * 2 + c];
    pz_transpose_params p2 = {.perm = {0, 3, 4, 1, 2}};
    spec in2[1] = {F32(5, 1, 2, 1, 3, 2)};
    in2[0].data = x;
    expect("transpose [1,2,1,3,2] perm (0,3,4,1,2)", PZ_OP_TRANSPOSE, &p2, sizeof p2, in2, 1,
           (spec)F32(5, 1, 3, 2, 2, 1), want2, 0);
}

static void test_slice(void)
{
    float x[20];
    for (int i = 0; i < 20; i++) x[i] = (float)i;
    /* x [4,5]; rows 3,1 (start 3, step -2), cols 4,3,2,1,0 (start 4, step -1) */
    float want[10] = {19, 18, 17, 16, 15, 9, 8, 7, 6, 5};
    pz_slice_params p = {.start = {3, 4}, .step = {-2, -1}};
    spec in[1] = {F32(2, 4, 5)};
    in[0].data = x;
    expect("slice negative steps", PZ_OP_SLICE, &p, sizeof p, in, 1, (spec)F32(2, 2, 5), want, 0);

    /* int64 elements, step 2 on the last axis */
    int64_t xi[20], wanti[4] = {1, 3, 11, 13};
    for (int i = 0; i < 20; i++) xi[i] = i;
    pz_slice_params pi = {.start = {0, 1}, .step = {2, 2}};
    spec ini[1] = {I64(2, 4, 5)};
    ini[0].data = xi;
    expect("slice int64 step 2", PZ_OP_SLICE, &pi, sizeof pi, ini, 1, (spec)I64(2, 2, 2), wanti, 0);
}

static void test_pad(void)
{
    float x[3] = {1, 2, 3};
    spec in[1] = {F32(1, 3)};
    in[0].data = x;
    /* begin 2, end 3 */
    float want_r[8] = {3, 2, 1, 2, 3, 2, 1, 2}, want_e[8] = {1, 1, 1, 2, 3, 3, 3, 3};
    float want_w[8] = {2, 3, 1, 2, 3, 1, 2, 3}, want_c[8] = {9, 9, 1, 2, 3, 9, 9, 9};
    pz_pad_params p = {.mode = PZ_PAD_REFLECT, .begin = {2}, .value = 9};
    expect("pad reflect", PZ_OP_PAD, &p, sizeof p, in, 1, (spec)F32(1, 8), want_r, 0);
    p.mode = PZ_PAD_EDGE;
    expect("pad edge", PZ_OP_PAD, &p, sizeof p, in, 1, (spec)F32(1, 8), want_e, 0);
    p.mode = PZ_PAD_WRAP;
    expect("pad wrap", PZ_OP_PAD, &p, sizeof p, in, 1, (spec)F32(1, 8), want_w, 0);
    p.mode = PZ_PAD_CONSTANT;
    expect("pad constant", PZ_OP_PAD, &p, sizeof p, in, 1, (spec)F32(1, 8), want_c, 0);
    /* crop 1 at the start, pad 2 at the end, wrap: the kept [2 3] wraps */
    float want_cw[4] = {2, 3, 2, 3};
    pz_pad_params pc = {.mode = PZ_PAD_WRAP, .begin = {-1}};
    expect("pad wrap after a crop", PZ_OP_PAD, &pc, sizeof pc, in, 1, (spec)F32(1, 4), want_cw, 0);
}

static void test_gather_cast(void)
{
    float x[6] = {1, 2, 3, 4, 5, 6};
    int64_t idx[3] = {-1, 0, 2};
    float want[6] = {3, 1, 3, 6, 4, 6};
    pz_axis_params p = {.axis = 1};
    spec in[2] = {F32(2, 2, 3), I64(1, 3)};
    in[0].data = x;
    in[1].data = idx, in[1].constant = true;
    expect("gather axis 1, negative index", PZ_OP_GATHER, &p, sizeof p, in, 2, (spec)F32(2, 2, 3),
           want, 0);

    float c[6] = {-300.5f, -1.9f, 1.9f, 300, NAN, 127.4f};
    int8_t want_c[6] = {-128, -1, 1, 127, 0, 127};
    spec cin[1] = {F32(1, 6)};
    cin[0].data = c;
    expect("cast f32 -> int8 truncates, saturates, NaN -> 0", PZ_OP_CAST, NULL, 0, cin, 1,
           (spec){PZ_I8, 1, {6}, NULL, false}, want_c, 0);
}

static void test_concat_split(void)
{
    float a[4] = {1, 2, 3, 4}, b[2] = {5, 6}, want[6] = {1, 2, 5, 3, 4, 6};
    pz_axis_params p = {.axis = 1};
    spec in[2] = {F32(2, 2, 2), F32(2, 2, 1)};
    in[0].data = a;
    in[1].data = b;
    expect("concat axis 1", PZ_OP_CONCAT, &p, sizeof p, in, 2, (spec)F32(2, 2, 3), want, 0);

    spec sin[1] = {F32(2, 2, 3)};
    sin[0].data = want;
    spec outs[2] = {F32(2, 2, 2), F32(2, 2, 1)};
    float ya[4], yb[2];
    void *o[2] = {ya, yb};
    char err[512] = "";
    int rc = run_layer(PZ_OP_SPLIT, &p, sizeof p, sin, 1, outs, 2, o, 2, err, sizeof err);
    report(rc == 0 && memcmp(ya, a, sizeof a) == 0 && memcmp(yb, b, sizeof b) == 0,
           "split axis 1", err);
}

static void test_resize(void)
{
    /* [1,1,2,2] -> [1,1,4,4], linear, half_pixel */
    float x[4] = {1, 2, 3, 4};
    float row0[4] = {1, 1.25f, 1.75f, 2}, row1[4] = {1.5f, 1.75f, 2.25f, 2.5f};
    float want[16];
    for (int j = 0; j < 4; j++) {
        want[j] = row0[j];
        want[4 + j] = row1[j];
        want[8 + j] = row1[j] + 1;
        want[12 + j] = row0[j] + 2;
    }
    pz_resize_params p = {.mode = PZ_RESIZE_LINEAR, .coord = PZ_CT_HALF_PIXEL,
                          .cubic_coeff_a = -0.75f, .scale = {1, 1, 2, 2}};
    spec in[1] = {F32(4, 1, 1, 2, 2)};
    in[0].data = x;
    expect("resize linear half_pixel x2", PZ_OP_RESIZE, &p, sizeof p, in, 1,
           (spec)F32(4, 1, 1, 4, 4), want, 1e-6);
    /* nearest asymmetric floor x2 */
    float wantn[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
    pz_resize_params pn = {.mode = PZ_RESIZE_NEAREST, .coord = PZ_CT_ASYMMETRIC,
                           .nearest = PZ_NEAREST_FLOOR, .scale = {1, 1, 2, 2}};
    expect("resize nearest asymmetric floor x2", PZ_OP_RESIZE, &pn, sizeof pn, in, 1,
           (spec)F32(4, 1, 1, 4, 4), wantn, 0);
}

/* ---- the net as a whole -------------------------------------------------------- */

/* A chain of 4 relus over 1 MiB tensors needs 2 live buffers at a time, not 4;
 * and the output is right. */
static void test_arena_reuse(void)
{
    const int64_t n = 256 * 1024;
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 7) - 3;
    pz_net *net = pz_net_new("chain");
    int t = pz_net_input(net, "x", PZ_F32, 1, &n);
    pz_unary_params relu = {.func = PZ_UN_RELU}, neg = {.func = PZ_UN_LEAKY_RELU, .alpha = 2};
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        int o = pz_net_tensor(net, name, PZ_F32, 1, &n);
        pz_unary_params *p = i == 0 ? &neg : &relu;
        pz_net_layer(net, name, PZ_OP_UNARY, p, sizeof *p, &t, 1, &o, 1);
        t = o;
    }
    pz_net_output(net, t);
    pz_net_block(net, 0, 4, 2);
    char err[512] = "";
    int rc = pz_net_compile(net, 2, NULL, err, sizeof err);
    size_t arena = rc ? 0 : pz_net_arena_bytes(net);
    if (!rc) {
        const void *in[1] = {x};
        void *out[1] = {y};
        pz_net_profile(net, 1);
        pz_net_run(net, in, out);
    }
    bool ok = rc == 0 && arena == 2 * (size_t)n * sizeof(float);
    for (int64_t i = 0; ok && i < n; i++) ok = y[i] == (x[i] < 0 ? 0 : x[i]);
    char detail[600];
    snprintf(detail, sizeof detail, "%s arena %zu bytes, want %zu", err, arena,
             2 * (size_t)n * sizeof(float));
    report(ok, "arena: a chain of 4 layers uses 2 buffers", detail);
    pz_net_free(net);
    free(x);
    free(y);
}

/* Outputs may be graph inputs, constants, repeated, or read by later layers. */
static void test_outputs(void)
{
    float x[4] = {-1, 2, -3, 4}, c[2] = {7, 8};
    float o_in[4], o_in2[4], o_c[2], o_a[4], o_b[4];
    pz_net *net = pz_net_new("outs");
    int xi = pz_net_input(net, "x", PZ_F32, 1, (int64_t[]){4});
    int ci = pz_net_const(net, "c", PZ_F32, 1, (int64_t[]){2}, c);
    int ai = pz_net_tensor(net, "a", PZ_F32, 1, (int64_t[]){4});
    int bi = pz_net_tensor(net, "b", PZ_F32, 1, (int64_t[]){4});
    pz_unary_params relu = {.func = PZ_UN_RELU};
    pz_net_layer(net, "relu", PZ_OP_UNARY, &relu, sizeof relu, &xi, 1, &ai, 1);
    pz_binary_params sub = {.func = PZ_BIN_SUB};
    pz_net_layer(net, "sub", PZ_OP_BINARY, &sub, sizeof sub, (int[]){ai, xi}, 2, &bi, 1);
    pz_net_output(net, xi);
    pz_net_output(net, ai);
    pz_net_output(net, ci);
    pz_net_output(net, xi);
    pz_net_output(net, bi);
    char err[512] = "";
    int rc = pz_net_compile(net, 2, NULL, err, sizeof err);
    if (!rc) {
        const void *in[1] = {x};
        void *out[5] = {o_in, o_a, o_c, o_in2, o_b};
        pz_net_run(net, in, out);
    }
    bool ok = rc == 0 && memcmp(o_in, x, sizeof x) == 0 && memcmp(o_in2, x, sizeof x) == 0 &&
              memcmp(o_c, c, sizeof c) == 0;
    for (int i = 0; ok && i < 4; i++) {
        float a = x[i] < 0 ? 0 : x[i];
        ok = o_a[i] == a && o_b[i] == a - x[i];
    }
    report(ok, "outputs: an input, a constant, repeated, read by a later layer", err);
    pz_net_free(net);
}

/* Bad layers are reported by compile, naming the layer and what is wrong. */
static void test_errors(void)
{
    char err[512] = "";
    pz_net *net = pz_net_new("bad");
    int x = pz_net_input(net, "x", PZ_F32, 4, (int64_t[]){1, 3, 8, 8});
    float w[3 * 3 * 3 * 4] = {0};
    int wt = pz_net_const(net, "w", PZ_F32, 4, (int64_t[]){4, 3, 3, 3}, w);
    int y = pz_net_tensor(net, "y", PZ_F32, 4, (int64_t[]){1, 4, 7, 7});   /* should be 6x6 */
    pz_conv_params cp = {.nsp = 2, .group = 1, .kernel = {3, 3}, .stride = {1, 1},
                         .dilation = {1, 1}};
    pz_net_layer(net, "conv1", PZ_OP_CONV, &cp, sizeof cp, (int[]){x, wt}, 2, &y, 1);
    pz_net_output(net, y);
    int rc = pz_net_compile(net, 1, NULL, err, sizeof err);
    report(rc != 0 && strstr(err, "conv1") && strstr(err, "CONV") && strstr(err, "expected 6"),
           "error: conv output shape names the layer", err);
    pz_net_free(net);

    net = pz_net_new("bad2");
    x = pz_net_input(net, "x", PZ_F32, 1, (int64_t[]){4});
    y = pz_net_tensor(net, "y", PZ_F32, 1, (int64_t[]){4});
    int z = pz_net_tensor(net, "z", PZ_F32, 1, (int64_t[]){4});
    pz_unary_params up = {.func = PZ_UN_RELU};
    pz_net_layer(net, "reads_z", PZ_OP_UNARY, &up, sizeof up, &z, 1, &y, 1);
    pz_net_output(net, y);
    rc = pz_net_compile(net, 1, NULL, err, sizeof err);
    report(rc != 0 && strstr(err, "reads_z") && strstr(err, "never written"),
           "error: reading a tensor no layer writes", err);
    pz_net_free(net);

    net = pz_net_new("bad3");
    x = pz_net_input(net, "x", PZ_F32, 1, (int64_t[]){4});
    y = pz_net_tensor(net, "y", PZ_F32, 1, (int64_t[]){4});
    pz_net_layer(net, "small_params", PZ_OP_UNARY, &up, 4, &x, 1, &y, 1);
    rc = pz_net_compile(net, 1, NULL, err, sizeof err);
    report(rc != 0 && strstr(err, "small_params") && strstr(err, "params"),
           "error: params of the wrong size", err);
    pz_net_free(net);

    /* an activation kind out of range: a conv refuses it (GELU it takes
     * since the epilogues share gelu_ps); a MATMUL refuses a bias with a B
     * that is not a constant */
    net = pz_net_new("bad4");
    x = pz_net_input(net, "x", PZ_F32, 4, (int64_t[]){1, 3, 8, 8});
    wt = pz_net_const(net, "w", PZ_F32, 4, (int64_t[]){4, 3, 3, 3}, w);
    y = pz_net_tensor(net, "y", PZ_F32, 4, (int64_t[]){1, 4, 6, 6});
    cp.act.kind = PZ_ACT_COUNT_;
    pz_net_layer(net, "conv_badact", PZ_OP_CONV, &cp, sizeof cp, (int[]){x, wt}, 2, &y, 1);
    pz_net_output(net, y);
    rc = pz_net_compile(net, 1, NULL, err, sizeof err);
    report(rc != 0 && strstr(err, "conv_badact") && strstr(err, "activation"),
           "error: a conv with an activation kind out of range", err);
    pz_net_free(net);

    net = pz_net_new("bad5");
    x = pz_net_input(net, "a", PZ_F32, 2, (int64_t[]){2, 3});
    int bm = pz_net_input(net, "b", PZ_F32, 2, (int64_t[]){3, 4});
    int c = pz_net_const(net, "c", PZ_F32, 1, (int64_t[]){4}, w);
    y = pz_net_tensor(net, "y", PZ_F32, 2, (int64_t[]){2, 4});
    pz_matmul_params mp = {.act = {.kind = PZ_ACT_NONE}};
    pz_net_layer(net, "mm_bias", PZ_OP_MATMUL, &mp, sizeof mp, (int[]){x, bm, c}, 3, &y, 1);
    pz_net_output(net, y);
    rc = pz_net_compile(net, 1, NULL, err, sizeof err);
    report(rc != 0 && strstr(err, "mm_bias") && strstr(err, "constant 2-D"),
           "error: a MATMUL bias with a B that is an input", err);
    pz_net_free(net);
}

int main(void)
{
    test_conv_hand();
    test_conv_sweep();
    test_pool();
    test_gemm();
    test_binary();
    test_softmax();
    test_transpose();
    test_slice();
    test_pad();
    test_gather_cast();
    test_concat_split();
    test_resize();
    test_arena_reuse();
    test_outputs();
    test_errors();
    return test_summary("rt_kernels");
}
