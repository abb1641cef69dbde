/* passes.c - the graph passes (src/passes) and the lowering splits of
 * Max/Min and PRelu, on small graphs built by hand:
 *   - what was fused and into which node (names kept), what was not and why
 *     (a second reader, a graph output, non-constant statistics or bounds,
 *     broadcasting, an Add after an activation, options off);
 *   - the values: every graph runs through the runtime and is compared with
 *     a direct double-precision computation written here (naive loops, not
 *     the runtime's kernels), max |got - want| / max |want| <= 1e-5;
 *   - each pass's preconditions (test_*_preconditions, issue 38): for every
 *     precondition a variant of the pattern that breaks it alone (an act
 *     or a Z an earlier pass fused, a second reader, a graph output, a
 *     broadcast shape, an attribute), which must be left as it is, and the
 *     positive variants; all of passes_stats and the node count checked,
 *     and the output equal to the same graph run without the passes.
 * Prints `N passed, N failed`.
 *
 * `passes --count MODEL.onnx` instead loads a model and prints its run-time
 * layer count without and with the passes, and what they did (used by
 * tests/parts/20-passes.sh):
 *   layers before=49 after=24 eliminated=0 bn_folded=0 residuals=8 acts=17 gates=0 ... cse=0 */
#include <math.h>
#include <string.h>

#include "front/onnx_load.h"
#include "gen/net_build.h"
#include "ops/op_infer.h"
#include "ir/model.h"
#include "ops/op_lower.h"
#include "ops/op.h"
#include "passes/passes.h"
#include "passes/passes_internal.h"

#include "test_check.h"

/* ---- building graphs ----------------------------------------------------- */

/* The passes but common subexpressions: the graphs that put several copies
 * of one pattern side by side (one fused, one kept for a reason) keep them. */
static const passes_opts KEEP_COPIES = {.no_cse = 1};

static uint32_t rng_state = 12345;
static float frand(float lo, float hi)   /* xorshift32 -> [lo, hi) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) / 16777216.0f;
}

static ir_tensor shape_of(int rank, const int64_t *dims)
{
    ir_tensor t = {.dtype = IR_F32, .rank = rank};
    for (int d = 0; d < rank; d++) t.dims[d] = dims[d];
    return t;
}

/* A float32 graph input; its data (random in [-1, 1)) is returned in *data. */
static int add_input(ir_graph *g, const char *name, int rank, const int64_t *dims, float **data)
{
    int v = ir_graph_add_value(g, name);
    g->values[v].t = shape_of(rank, dims);
    ir_graph_add_input(g, v);
    int64_t n = ir_tensor_numel(&g->values[v].t);
    *data = pz_xmalloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++) (*data)[i] = frand(-1, 1);
    return v;
}

/* A float32 initializer with values in [lo, hi); returns its id. */
static int add_const(ir_graph *g, const char *name, int rank, const int64_t *dims, float lo,
                     float hi)
{
    int v = ir_graph_add_value(g, name);
    g->values[v].t = shape_of(rank, dims);
    size_t n = (size_t)ir_tensor_numel(&g->values[v].t);
    float *d = pz_xmalloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) d[i] = frand(lo, hi);
    ir_value_set_data(g, v, d, n * sizeof(float));
    free(d);
    g->values[v].is_initializer = 1;
    return v;
}

static const float *cdata(const ir_graph *g, int v)
{
    return g->values[v].t.data;
}

static int add_node(ir_graph *g, const char *name, const char *op, int n_in, const int *in,
                    int out)
{
    int k = ir_graph_add_node(g, name, op, "", n_in, 1);
    ir_node *n = &g->nodes[k];
    n->op = op_find(op);
    for (int i = 0; i < n_in; i++) n->in[i] = in[i];
    n->out[0] = out;
    return k;
}

static ir_attr *new_attr(ir_graph *g, int node, const char *name, ir_attr_type t)
{
    ir_node *n = &g->nodes[node];
    n->attrs = pz_xrealloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *n->attrs);
    ir_attr *a = &n->attrs[n->n_attrs++];
    memset(a, 0, sizeof *a);
    a->name = pz_xstrdup(name);
    a->type = t;
    return a;
}

static void attr_ints(ir_graph *g, int node, const char *name, int cnt, const int64_t *v)
{
    ir_attr *a = new_attr(g, node, name, IR_ATTR_INTS);
    a->n = cnt;
    a->ints = pz_xmalloc((size_t)cnt * sizeof(int64_t));
    memcpy(a->ints, v, (size_t)cnt * sizeof(int64_t));
}

static void attr_int(ir_graph *g, int node, const char *name, int64_t v)
{
    new_attr(g, node, name, IR_ATTR_INT)->i = v;
}

static void attr_float(ir_graph *g, int node, const char *name, float v)
{
    new_attr(g, node, name, IR_ATTR_FLOAT)->f = v;
}

/* Sorts and infers as the loader does; 1 on success. */
static int finish(ir_graph *g)
{
    pz_err err = {0};
    if (ir_graph_sort(g, &err) || ir_infer(g, &err)) {
        fprintf(stderr, "building the test graph failed: %s\n", err.msg);
        return 0;
    }
    return 1;
}

static int find_node(const ir_graph *g, const char *name)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].name, name)) return i;
    return -1;
}

static int count_op(const ir_graph *g, const char *op)
{
    int k = 0;
    for (int i = 0; i < g->n_nodes; i++) k += !strcmp(g->nodes[i].op_type, op);
    return k;
}

/* Lowers, runs on the inputs, and returns max |out0 - want| / max |want|
 * (1e30 if the net cannot be built); *layers gets the layer count. */
static double run_err(ir_graph *g, const float *const *ins, const double *want, int *layers)
{
    pz_err err = {0};
    ir_model *m = ir_model_lower(g);
    gen_net gn;
    if (layers) *layers = m->n_layers;
    if (gen_net_build(m, 1, &gn, &err)) {
        fprintf(stderr, "net build failed: %s\n", err.msg);
        ir_model_free(m);
        return 1e30;
    }
    void *outs[8] = {0};   /* every output gets a buffer; output 0 is compared */
    PZ_ASSERT(g->n_outputs <= 8);
    for (int i = 0; i < g->n_outputs; i++)
        outs[i] = pz_xcalloc((size_t)ir_tensor_numel(&g->values[g->outputs[i]].t) + 1, sizeof(float));
    size_t n = (size_t)ir_tensor_numel(&g->values[g->outputs[0]].t);
    const float *out = outs[0];
    pz_net_run(gn.net, (const void *const *)ins, outs);
    double worst = 0, ref = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)out[i] - want[i]);
        worst = d > worst || isnan(d) ? d : worst;
        ref = fabs(want[i]) > ref ? fabs(want[i]) : ref;
    }
    for (int i = 0; i < g->n_outputs; i++) free(outs[i]);
    gen_net_free(&gn);
    ir_model_free(m);
    return ref > 0 ? worst / ref : worst;
}

/* ---- the direct computations (double) ------------------------------------ */

/* y[N, M, OH, OW] = conv(x[N, C, H, W], w[M, C/G, K, K]) + b, stride s, pads p. */
static double *conv2d(const double *x, int64_t N, int64_t C, int64_t H, int64_t W, const float *w,
                      const float *b, int64_t M, int64_t K, int64_t s, int64_t p, int64_t G,
                      int64_t *OH, int64_t *OW)
{
    int64_t oh = (H + 2 * p - K) / s + 1, ow = (W + 2 * p - K) / s + 1, cg = C / G, mg = M / G;
    double *y = pz_xcalloc((size_t)(N * M * oh * ow), sizeof(double));
    for (int64_t n = 0; n < N; n++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t i = 0; i < oh; i++)
                for (int64_t j = 0; j < ow; j++) {
                    double acc = b ? b[m] : 0;
                    for (int64_t c = 0; c < cg; c++)
                        for (int64_t ki = 0; ki < K; ki++)
                            for (int64_t kj = 0; kj < K; kj++) {
                                int64_t hi = i * s - p + ki, wj = j * s - p + kj;
                                if (hi < 0 || hi >= H || wj < 0 || wj >= W) continue;
                                acc += x[((n * C + (m / mg) * cg + c) * H + hi) * W + wj] *
                                       w[((m * cg + c) * K + ki) * K + kj];
                            }
                    y[((n * M + m) * oh + i) * ow + j] = acc;
                }
    *OH = oh;
    *OW = ow;
    return y;
}

/* ConvTranspose, no pads: y[n, m, i*s + ki, j*s + kj] += x[n, c, i, j] * w[c, m % (M/G), ki, kj]
 * for c in m's group. */
static double *conv_t2d(const double *x, int64_t N, int64_t C, int64_t H, int64_t W,
                        const float *w, int64_t M, int64_t K, int64_t s, int64_t G, int64_t *OH,
                        int64_t *OW)
{
    int64_t oh = (H - 1) * s + K, ow = (W - 1) * s + K, cg = C / G, mg = M / G;
    double *y = pz_xcalloc((size_t)(N * M * oh * ow), sizeof(double));
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t jm = 0; jm < mg; jm++) {
                int64_t m = (c / cg) * mg + jm;
                for (int64_t i = 0; i < H; i++)
                    for (int64_t j = 0; j < W; j++)
                        for (int64_t ki = 0; ki < K; ki++)
                            for (int64_t kj = 0; kj < K; kj++)
                                y[((n * M + m) * oh + i * s + ki) * ow + j * s + kj] +=
                                    x[((n * C + c) * H + i) * W + j] *
                                    w[((c * mg + jm) * K + ki) * K + kj];
            }
    *OH = oh;
    *OW = ow;
    return y;
}

/* In place: y = (y - mean) / sqrt(var + eps) * scale + bias over [N, M, HW]. */
static void bn(double *y, int64_t N, int64_t M, int64_t HW, const float *scale, const float *bias,
               const float *mean, const float *var, double eps)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t m = 0; m < M; m++)
            for (int64_t k = 0; k < HW; k++) {
                double *v = &y[(n * M + m) * HW + k];
                *v = (*v - mean[m]) / sqrt(var[m] + eps) * scale[m] + bias[m];
            }
}

static void relu(double *y, int64_t n)
{
    for (int64_t i = 0; i < n; i++) y[i] = y[i] < 0 ? 0 : y[i];
}

static double *to_double(const float *x, int64_t n)
{
    double *d = pz_xmalloc((size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) d[i] = x[i];
    return d;
}

/* ---- the cases ------------------------------------------------------------ */

static const int64_t PADS1[4] = {1, 1, 1, 1};

/* A ResNet basic block:
 *   x -> conv1(W1, B1) -> bn1 -> relu1 -> drop (Dropout) -> conv2(W2) -> bn2 -> add(., x) -> relu2 -> y
 * becomes conv1 (act Relu) -> conv2 (Z = x, act Relu), named as before. */
static void test_basic_block(void)
{
    const int64_t N = 1, C = 16, H = 9, W = 7;
    ir_graph *g = ir_graph_new();
    g->opset = 9;
    float *xd;
    int x = add_input(g, "x", 4, (int64_t[]){N, C, H, W}, &xd);
    int w1 = add_const(g, "w1", 4, (int64_t[]){C, C, 3, 3}, -0.3f, 0.3f);
    int b1 = add_const(g, "b1", 1, (int64_t[]){C}, -0.5f, 0.5f);
    int w2 = add_const(g, "w2", 4, (int64_t[]){C, C, 3, 3}, -0.3f, 0.3f);
    int st[2][4];
    for (int k = 0; k < 2; k++) {
        char nm[32];
        const char *what[4] = {"scale", "bias", "mean", "var"};
        for (int j = 0; j < 4; j++) {
            snprintf(nm, sizeof nm, "bn%d.%s", k + 1, what[j]);
            st[k][j] = add_const(g, nm, 1, (int64_t[]){C}, j == 3 ? 0.2f : -1.0f, j == 3 ? 2.0f : 1.0f);
        }
    }
    int c1 = ir_graph_add_value(g, "c1"), n1 = ir_graph_add_value(g, "n1");
    int r1 = ir_graph_add_value(g, "r1"), d1 = ir_graph_add_value(g, "d1");
    int c2 = ir_graph_add_value(g, "c2"), n2 = ir_graph_add_value(g, "n2");
    int a2 = ir_graph_add_value(g, "a2"), y = ir_graph_add_value(g, "y");
    int k = add_node(g, "conv1", "Conv", 3, (int[]){x, w1, b1}, c1);
    attr_ints(g, k, "pads", 4, PADS1);
    k = add_node(g, "bn1", "BatchNormalization", 5, (int[]){c1, st[0][0], st[0][1], st[0][2], st[0][3]}, n1);
    attr_float(g, k, "epsilon", 1e-3f);
    add_node(g, "relu1", "Relu", 1, (int[]){n1}, r1);
    add_node(g, "drop", "Dropout", 1, (int[]){r1}, d1);
    k = add_node(g, "conv2", "Conv", 2, (int[]){d1, w2}, c2);
    attr_ints(g, k, "pads", 4, PADS1);
    add_node(g, "bn2", "BatchNormalization", 5, (int[]){c2, st[1][0], st[1][1], st[1][2], st[1][3]}, n2);
    add_node(g, "add", "Add", 2, (int[]){x, n2}, a2);   /* the conv on the right */
    add_node(g, "relu2", "Relu", 1, (int[]){a2}, y);
    ir_graph_add_output(g, y);
    CHECK(finish(g));

    /* expected, in double, before the passes touch the weights */
    int64_t oh, ow, hw = H * W, numel = N * C * hw;
    double *xx = to_double(xd, numel);
    double *t1 = conv2d(xx, N, C, H, W, cdata(g, w1), cdata(g, b1), C, 3, 1, 1, 1, &oh, &ow);
    bn(t1, N, C, hw, cdata(g, st[0][0]), cdata(g, st[0][1]), cdata(g, st[0][2]), cdata(g, st[0][3]), 1e-3);
    relu(t1, numel);
    double *t2 = conv2d(t1, N, C, H, W, cdata(g, w2), NULL, C, 3, 1, 1, 1, &oh, &ow);
    bn(t2, N, C, hw, cdata(g, st[1][0]), cdata(g, st[1][1]), cdata(g, st[1][2]), cdata(g, st[1][3]), 1e-5);
    for (int64_t i = 0; i < numel; i++) t2[i] += xx[i];
    relu(t2, numel);

    pz_err err = {0};
    passes_stats ps;
    CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK);
    CHECK(ps.eliminated == 1 && ps.bn_folded == 2 && ps.residuals == 1 && ps.acts == 2);
    CHECK(g->n_nodes == 2);
    int i1 = find_node(g, "conv1"), i2 = find_node(g, "conv2");
    CHECK(i1 == 0 && i2 == 1);
    if (i1 == 0 && i2 == 1) {
        const ir_node *n = &g->nodes[0], *m = &g->nodes[1];
        CHECK(n->act.kind == IR_ACT_RELU && n->n_in == 3);
        CHECK(n->in[1] == w1 && n->in[2] == b1);      /* sole reader: folded in place */
        CHECK(m->act.kind == IR_ACT_RELU && m->n_in == 4 && m->in[3] == x);
        CHECK(m->in[0] == n->out[0]);                  /* Dropout gone: reads conv1 */
        CHECK(m->in[2] >= 0 && !strcmp(g->values[m->in[2]].name, "conv2:bias"));
        CHECK(m->out[0] == y);
        CHECK(m->cost.bytes_in == 2 * numel * 4);     /* X and Z */
    }
    int layers = 0;
    CHECK(run_err(g, (const float *const[]){xd}, t2, &layers) <= 1e-5);
    CHECK(layers == 2);
    free(xx);
    free(t1);
    free(t2);
    free(xd);
    ir_graph_free(g);
}

/* What is not fused:
 *   conv_a's output is a graph output too       -> its BN stays
 *   conv_b's output is read twice (bn_b, relu_b) -> its BN stays, no Relu
 *   bn_c's mean is a graph input                 -> stays
 *   conv_d -> relu_d -> add_d(., e)              -> act fused, Add not
 *   conv_e -> add_e(., bias [1,C,1,1])           -> broadcast: Add not fused */
static void test_not_fused(void)
{
    const int64_t C = 4;
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *xd, *md;
    int x = add_input(g, "x", 4, (int64_t[]){1, C, 5, 5}, &xd);
    int mean = add_input(g, "mean", 1, (int64_t[]){C}, &md);
    int w = add_const(g, "w", 4, (int64_t[]){C, C, 1, 1}, -1, 1);
    int s = add_const(g, "s", 1, (int64_t[]){C}, 0.5f, 1), bb = add_const(g, "bb", 1, (int64_t[]){C}, -1, 1);
    int mu = add_const(g, "mu", 1, (int64_t[]){C}, -1, 1), var = add_const(g, "var", 1, (int64_t[]){C}, 0.5f, 1);
    int per_c = add_const(g, "per_c", 4, (int64_t[]){1, C, 1, 1}, -1, 1);
    const char *names = "abcde";
    int out[5][4];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) {
            char nm[32];
            snprintf(nm, sizeof nm, "%c%d", names[i], j);
            out[i][j] = ir_graph_add_value(g, nm);
        }
    add_node(g, "conv_a", "Conv", 2, (int[]){x, w}, out[0][0]);
    add_node(g, "bn_a", "BatchNormalization", 5, (int[]){out[0][0], s, bb, mu, var}, out[0][1]);
    ir_graph_add_output(g, out[0][0]);
    ir_graph_add_output(g, out[0][1]);
    add_node(g, "conv_b", "Conv", 2, (int[]){x, w}, out[1][0]);
    add_node(g, "bn_b", "BatchNormalization", 5, (int[]){out[1][0], s, bb, mu, var}, out[1][1]);
    add_node(g, "relu_b", "Relu", 1, (int[]){out[1][0]}, out[1][2]);
    ir_graph_add_output(g, out[1][1]);
    ir_graph_add_output(g, out[1][2]);
    add_node(g, "conv_c", "Conv", 2, (int[]){x, w}, out[2][0]);
    add_node(g, "bn_c", "BatchNormalization", 5, (int[]){out[2][0], s, bb, mean, var}, out[2][1]);
    ir_graph_add_output(g, out[2][1]);
    add_node(g, "conv_d", "Conv", 2, (int[]){x, w}, out[3][0]);
    add_node(g, "relu_d", "Relu", 1, (int[]){out[3][0]}, out[3][1]);
    add_node(g, "add_d", "Add", 2, (int[]){out[3][1], x}, out[3][2]);
    ir_graph_add_output(g, out[3][2]);
    add_node(g, "conv_e", "Conv", 2, (int[]){x, w}, out[4][0]);
    add_node(g, "add_e", "Add", 2, (int[]){out[4][0], per_c}, out[4][1]);
    ir_graph_add_output(g, out[4][1]);
    CHECK(finish(g));

    /* options off: nothing changes */
    pz_err err = {0};
    passes_stats ps;
    passes_opts off = {.no_fold_bn = 1, .no_epilogues = 1, .no_eliminate = 1, .no_cse = 1};
    int before = g->n_nodes;
    CHECK(passes_run_stats(g, &off, &ps, &err) == PZ_OK);
    CHECK(g->n_nodes == before && ps.bn_folded + ps.acts + ps.residuals + ps.eliminated == 0);

    CHECK(passes_run_stats(g, &KEEP_COPIES, &ps, &err) == PZ_OK);
    CHECK(ps.bn_folded == 0 && ps.residuals == 0 && ps.acts == 1 && ps.eliminated == 0);
    CHECK(count_op(g, "BatchNormalization") == 3);
    CHECK(find_node(g, "relu_b") >= 0 && find_node(g, "relu_d") < 0);
    int d = find_node(g, "conv_d"), ad = find_node(g, "add_d"), e = find_node(g, "conv_e");
    CHECK(d >= 0 && g->nodes[d].act.kind == IR_ACT_RELU && g->nodes[d].out[0] == out[3][1]);
    CHECK(ad >= 0 && g->nodes[ad].in[0] == out[3][1]);
    /* a constant per channel after a Conv is no residual: bn_fold.c makes it the bias */
    CHECK(e >= 0 && g->nodes[e].n_in == 3 && find_node(g, "add_e") < 0 && ps.affine_folded == 1);
    for (int i = 0; i < g->n_nodes; i++)
        if (!strcmp(g->nodes[i].op_type, "Conv") && i != d) CHECK(g->nodes[i].act.kind == IR_ACT_NONE);
    free(xd);
    free(md);
    ir_graph_free(g);
}

/* Clip: opset 6 attributes and opset 11 constant inputs fuse (with their
 * bounds); a bound given as a graph input, or lo > hi, does not. Gemm takes
 * the activation too. Values checked for the opset 11 graph. */
static void test_clip_gemm(void)
{
    for (int opset = 6; opset <= 11; opset += 5) {
        ir_graph *g = ir_graph_new();
        g->opset = opset;
        float *xd, *hid;
        int x = add_input(g, "x", 4, (int64_t[]){1, 3, 6, 6}, &xd);
        int hi_in = add_input(g, "hi_in", 0, (int64_t[]){0}, &hid);
        int w = add_const(g, "w", 4, (int64_t[]){8, 3, 3, 3}, -1, 1);
        int c = ir_graph_add_value(g, "c"), y = ir_graph_add_value(g, "y");
        int c2 = ir_graph_add_value(g, "c2"), y2 = ir_graph_add_value(g, "y2");
        int c3 = ir_graph_add_value(g, "c3"), y3 = ir_graph_add_value(g, "y3");
        add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
        add_node(g, "conv2", "Conv", 2, (int[]){x, w}, c2);
        add_node(g, "conv3", "Conv", 2, (int[]){x, w}, c3);
        int k, k3;
        if (opset < 11) {
            k = add_node(g, "clip", "Clip", 1, (int[]){c}, y);
            attr_float(g, k, "min", -0.5f);
            attr_float(g, k, "max", 1.5f);
            k = add_node(g, "clip2", "Clip", 1, (int[]){c2}, y2);   /* max only */
            attr_float(g, k, "max", 0.25f);
            k3 = add_node(g, "clip3", "Clip", 1, (int[]){c3}, y3);
            attr_float(g, k3, "min", 2.0f);                          /* lo > hi */
            attr_float(g, k3, "max", 1.0f);
        } else {
            int lo = add_const(g, "lo", 0, NULL, -0.5f, -0.5f), hi = add_const(g, "hi", 0, NULL, 1.5f, 1.5f);
            add_node(g, "clip", "Clip", 3, (int[]){c, lo, hi}, y);
            add_node(g, "clip2", "Clip", 3, (int[]){c2, lo, hi_in}, y2);   /* runtime bound */
            add_node(g, "clip3", "Clip", 3, (int[]){c3, -1, hi}, y3);      /* min omitted */
        }
        ir_graph_add_output(g, y);
        ir_graph_add_output(g, y2);
        ir_graph_add_output(g, y3);
        CHECK(finish(g));
        pz_err err = {0};
        CHECK(passes_run(g, &KEEP_COPIES, &err) == PZ_OK);
        const ir_node *n1 = &g->nodes[find_node(g, "conv")];
        CHECK(n1->act.kind == IR_ACT_CLIP && n1->act.lo == -0.5f && n1->act.hi == 1.5f && n1->out[0] == y);
        CHECK(find_node(g, "clip") < 0);
        const ir_node *n2 = &g->nodes[find_node(g, "conv2")], *n3 = &g->nodes[find_node(g, "conv3")];
        if (opset < 11) {
            CHECK(n2->act.kind == IR_ACT_CLIP && isinf(n2->act.lo) && n2->act.lo < 0 && n2->act.hi == 0.25f);
            CHECK(n3->act.kind == IR_ACT_NONE && find_node(g, "clip3") >= 0);
        } else {
            CHECK(n2->act.kind == IR_ACT_NONE && find_node(g, "clip2") >= 0);
            CHECK(n3->act.kind == IR_ACT_CLIP && isinf(n3->act.lo) && n3->act.hi == 1.5f);
        }
        free(xd);
        free(hid);
        ir_graph_free(g);
    }

    /* Gemm (transB) -> Relu: the values */
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *ad;
    int a = add_input(g, "a", 2, (int64_t[]){3, 40}, &ad);
    int b = add_const(g, "b", 2, (int64_t[]){17, 40}, -0.3f, 0.3f);
    int cb = add_const(g, "cb", 1, (int64_t[]){17}, -0.2f, 0.2f);
    int t = ir_graph_add_value(g, "t"), y = ir_graph_add_value(g, "y");
    int k = add_node(g, "fc", "Gemm", 3, (int[]){a, b, cb}, t);
    attr_int(g, k, "transB", 1);
    add_node(g, "relu", "Relu", 1, (int[]){t}, y);
    ir_graph_add_output(g, y);
    CHECK(finish(g));
    double want[3 * 17];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 17; j++) {
            double acc = cdata(g, cb)[j];
            for (int q = 0; q < 40; q++) acc += (double)ad[i * 40 + q] * cdata(g, b)[j * 40 + q];
            want[i * 17 + j] = acc < 0 ? 0 : acc;
        }
    pz_err err = {0};
    CHECK(passes_run(g, &KEEP_COPIES, &err) == PZ_OK);
    CHECK(g->n_nodes == 1 && !strcmp(g->nodes[0].name, "fc") && g->nodes[0].act.kind == IR_ACT_RELU);
    int layers = 0;
    CHECK(run_err(g, (const float *const[]){ad}, want, &layers) <= 1e-5 && layers == 1);
    free(ad);
    ir_graph_free(g);
}

/* Identity into a graph output stays (it names the output); Identity and
 * Dropout in the middle go; a BN whose W is shared folds into a copy. */
static void test_eliminate_shared(void)
{
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *xd;
    int x = add_input(g, "x", 4, (int64_t[]){1, 2, 4, 4}, &xd);
    int w = add_const(g, "w", 4, (int64_t[]){2, 2, 1, 1}, -1, 1);
    int s = add_const(g, "s", 1, (int64_t[]){2}, 0.5f, 1), bb = add_const(g, "bb", 1, (int64_t[]){2}, -1, 1);
    int mu = add_const(g, "mu", 1, (int64_t[]){2}, -1, 1), var = add_const(g, "var", 1, (int64_t[]){2}, 0.5f, 1);
    int i1 = ir_graph_add_value(g, "i1"), c1 = ir_graph_add_value(g, "c1"), n1 = ir_graph_add_value(g, "n1");
    int c2 = ir_graph_add_value(g, "c2"), y = ir_graph_add_value(g, "y"), y2 = ir_graph_add_value(g, "y2");
    add_node(g, "id_in", "Identity", 1, (int[]){x}, i1);
    add_node(g, "conv1", "Conv", 2, (int[]){i1, w}, c1);
    add_node(g, "bn1", "BatchNormalization", 5, (int[]){c1, s, bb, mu, var}, n1);
    add_node(g, "id_out", "Identity", 1, (int[]){n1}, y);
    add_node(g, "conv2", "Conv", 2, (int[]){x, w}, c2);
    add_node(g, "relu2", "Relu", 1, (int[]){c2}, y2);
    ir_graph_add_output(g, y);
    ir_graph_add_output(g, y2);
    CHECK(finish(g));
    /* y = bn(conv(x, w)) */
    double want[32];
    const float *wd = cdata(g, w);
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 16; p++) {
            double v = wd[m * 2] * (double)xd[p] + wd[m * 2 + 1] * (double)xd[16 + p];
            want[m * 16 + p] = (v - cdata(g, mu)[m]) / sqrt(cdata(g, var)[m] + 1e-5) * cdata(g, s)[m] + cdata(g, bb)[m];
        }
    pz_err err = {0};
    passes_stats ps;
    CHECK(passes_run_stats(g, &KEEP_COPIES, &ps, &err) == PZ_OK);
    CHECK(ps.eliminated == 1 && ps.bn_folded == 1 && ps.acts == 1);
    CHECK(find_node(g, "id_in") < 0 && find_node(g, "id_out") >= 0);
    int k1 = find_node(g, "conv1"), k2 = find_node(g, "conv2");
    CHECK(k1 >= 0 && g->nodes[k1].in[0] == x);
    /* w is also conv2's: conv1 reads a folded copy, conv2 the original */
    CHECK(k1 >= 0 && g->nodes[k1].in[1] != w && !strcmp(g->values[g->nodes[k1].in[1]].name, "w:bn"));
    CHECK(k2 >= 0 && g->nodes[k2].in[1] == w && g->nodes[k2].n_in == 2);
    CHECK(run_err(g, (const float *const[]){xd}, want, NULL) <= 1e-5);
    free(xd);
    ir_graph_free(g);
}

/* A BatchNormalization on a graph input (nothing to fold into) takes the
 * Relu after it as its activation; the values against double loops. */
static void test_bn_relu(void)
{
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *xd;
    int x = add_input(g, "x", 4, (int64_t[]){1, 3, 4, 5}, &xd);
    int s = add_const(g, "s", 1, (int64_t[]){3}, 0.5f, 1.5f), bb = add_const(g, "bb", 1, (int64_t[]){3}, -1, 1);
    int mu = add_const(g, "mu", 1, (int64_t[]){3}, -1, 1), var = add_const(g, "var", 1, (int64_t[]){3}, 0.5f, 1);
    int n1 = ir_graph_add_value(g, "n1"), y = ir_graph_add_value(g, "y");
    add_node(g, "bn", "BatchNormalization", 5, (int[]){x, s, bb, mu, var}, n1);
    add_node(g, "relu", "Relu", 1, (int[]){n1}, y);
    ir_graph_add_output(g, y);
    CHECK(finish(g));
    double want[60];
    for (int c = 0; c < 3; c++)
        for (int p = 0; p < 20; p++) {
            double v = (xd[c * 20 + p] - cdata(g, mu)[c]) / sqrt(cdata(g, var)[c] + 1e-5) *
                           cdata(g, s)[c] + cdata(g, bb)[c];
            want[c * 20 + p] = v < 0 ? 0 : v;
        }
    pz_err err = {0};
    passes_stats ps;
    CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK && ps.acts == 1);
    int k = find_node(g, "bn");
    CHECK(k >= 0 && g->nodes[k].act.kind == IR_ACT_RELU && g->nodes[k].out[0] == y &&
          find_node(g, "relu") < 0);
    int layers = 0;
    CHECK(run_err(g, (const float *const[]){xd}, want, &layers) <= 1e-5 && layers == 1);
    free(xd);
    ir_graph_free(g);
}

/* An int64 initializer of n values. */
static int add_const_i64(ir_graph *g, const char *name, int64_t n, const int64_t *v)
{
    int id = ir_graph_add_value(g, name);
    g->values[id].t = shape_of(1, &n);
    g->values[id].t.dtype = IR_I64;
    ir_value_set_data(g, id, v, (size_t)n * sizeof(int64_t));
    g->values[id].is_initializer = 1;
    return id;
}

/* A Pad of zero pads goes (opset 13: pads an input; opset 2: an attribute);
 * a Pad with a pad stays. y = relu(pad0(x)) against double loops. */
static void test_eliminate_pad(void)
{
    for (int opset = 2; opset <= 13; opset += 11) {
        ir_graph *g = ir_graph_new();
        g->opset = opset;
        float *xd;
        int x = add_input(g, "x", 4, (int64_t[]){1, 2, 3, 3}, &xd);
        int p0 = ir_graph_add_value(g, "p0"), y = ir_graph_add_value(g, "y");
        int p1 = ir_graph_add_value(g, "p1");
        static const int64_t zero[8] = {0}, one[8] = {0, 0, 1, 0, 0, 0, 0, 1};
        int k0, k1;
        if (opset >= 11) {
            int z = add_const_i64(g, "zeros", 8, zero), o = add_const_i64(g, "ones", 8, one);
            k0 = add_node(g, "pad0", "Pad", 2, (int[]){x, z}, p0);
            k1 = add_node(g, "pad1", "Pad", 2, (int[]){x, o}, p1);
        } else {
            k0 = add_node(g, "pad0", "Pad", 1, (int[]){x}, p0);
            attr_ints(g, k0, "pads", 8, zero);
            k1 = add_node(g, "pad1", "Pad", 1, (int[]){x}, p1);
            attr_ints(g, k1, "pads", 8, one);
        }
        (void)k0;
        (void)k1;
        add_node(g, "relu", "Relu", 1, (int[]){p0}, y);
        ir_graph_add_output(g, y);
        ir_graph_add_output(g, p1);
        CHECK(finish(g));
        double want[18];
        for (int i = 0; i < 18; i++) want[i] = xd[i] < 0 ? 0 : xd[i];
        pz_err err = {0};
        passes_stats ps;
        CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK && ps.eliminated == 1);
        CHECK(find_node(g, "pad0") < 0 && find_node(g, "pad1") >= 0);
        int r = find_node(g, "relu");
        CHECK(r >= 0 && g->nodes[r].in[0] == x);
        CHECK(run_err(g, (const float *const[]){xd}, want, NULL) <= 1e-6);
        free(xd);
        ir_graph_free(g);
    }
}

/* ConvTranspose (group 2, stride 2) -> BN: folded, per output channel. */
static void test_conv_transpose_bn(void)
{
    const int64_t C = 4, M = 6, G = 2, K = 3, H = 3, W = 4;
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *xd;
    int x = add_input(g, "x", 4, (int64_t[]){1, C, H, W}, &xd);
    int w = add_const(g, "w", 4, (int64_t[]){C, M / G, K, K}, -1, 1);
    int b = add_const(g, "b", 1, (int64_t[]){M}, -1, 1);
    int s = add_const(g, "s", 1, (int64_t[]){M}, 0.5f, 2), bb = add_const(g, "bb", 1, (int64_t[]){M}, -1, 1);
    int mu = add_const(g, "mu", 1, (int64_t[]){M}, -1, 1), var = add_const(g, "var", 1, (int64_t[]){M}, 0.1f, 1);
    int c = ir_graph_add_value(g, "c"), y = ir_graph_add_value(g, "y");
    int k = add_node(g, "up", "ConvTranspose", 3, (int[]){x, w, b}, c);
    attr_int(g, k, "group", G);
    attr_ints(g, k, "strides", 2, (int64_t[]){2, 2});
    add_node(g, "bn", "BatchNormalization", 5, (int[]){c, s, bb, mu, var}, y);
    ir_graph_add_output(g, y);
    CHECK(finish(g));
    int64_t oh, ow;
    double *xx = to_double(xd, C * H * W);
    double *want = conv_t2d(xx, 1, C, H, W, cdata(g, w), M, K, 2, G, &oh, &ow);
    for (int64_t m = 0; m < M; m++)
        for (int64_t p = 0; p < oh * ow; p++) want[m * oh * ow + p] += cdata(g, b)[m];
    bn(want, 1, M, oh * ow, cdata(g, s), cdata(g, bb), cdata(g, mu), cdata(g, var), 1e-5);
    pz_err err = {0};
    passes_stats ps;
    CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK);
    CHECK(ps.bn_folded == 1 && g->n_nodes == 1 && !strcmp(g->nodes[0].name, "up"));
    CHECK(run_err(g, (const float *const[]){xd}, want, NULL) <= 1e-5);
    free(xx);
    free(want);
    free(xd);
    ir_graph_free(g);
}

/* Max of 4 inputs with broadcasting, Min of 3: chains of 2-input layers
 * named "<node>:1", "<node>:2" and the node itself. */
static void test_variadic(void)
{
    for (int is_min = 0; is_min <= 1; is_min++) {
        ir_graph *g = ir_graph_new();
        g->opset = 13;
        float *d[4];
        int64_t shapes[4][3] = {{3, 1, 5}, {4, 5}, {1, 4, 1}, {5}};
        int in[4];
        int k_in = is_min ? 3 : 4;
        for (int i = 0; i < k_in; i++) {
            char nm[32];
            snprintf(nm, sizeof nm, "in%d", i);
            in[i] = add_input(g, nm, i == 0 || i == 2 ? 3 : i == 1 ? 2 : 1, shapes[i], &d[i]);
        }
        int y = ir_graph_add_value(g, "y");
        add_node(g, "M", is_min ? "Min" : "Max", k_in, in, y);
        ir_graph_add_output(g, y);
        CHECK(finish(g));
        double want[60];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 4; b++)
                for (int c = 0; c < 5; c++) {
                    double v[4] = {d[0][a * 5 + c], d[1][b * 5 + c], d[2][b], k_in > 3 ? d[3][c] : 0};
                    double r = v[0];
                    for (int i = 1; i < k_in; i++) r = is_min ? fmin(r, v[i]) : fmax(r, v[i]);
                    want[(a * 4 + b) * 5 + c] = r;
                }
        int layers = 0;
        CHECK(run_err(g, (const float *const *)d, want, &layers) == 0);
        CHECK(layers == k_in - 1 && g->n_nodes == k_in - 1);
        CHECK(find_node(g, "M:1") == 0 && g->nodes[g->n_nodes - 1].out[0] == y);
        CHECK(!strcmp(g->nodes[g->n_nodes - 1].name, "M") && g->nodes[g->n_nodes - 1].n_in == 2);
        if (!is_min) CHECK(find_node(g, "M:2") == 1 && g->values[g->nodes[1].out[0]].t.rank == 3);
        /* lowering again finds nothing more to split */
        CHECK(run_err(g, (const float *const *)d, want, &layers) == 0 && layers == k_in - 1);
        for (int i = 0; i < k_in; i++) free(d[i]);
        ir_graph_free(g);
    }
}

/* PRelu before opset 7 with a slope [C] along dim 1: constant (a [C,1,1]
 * copy) and computed at run time (a Reshape view inserted). */
static void test_prelu_legacy(void)
{
    for (int runtime_slope = 0; runtime_slope <= 1; runtime_slope++) {
        ir_graph *g = ir_graph_new();
        g->opset = 6;
        float *xd, *sd = NULL;
        int x = add_input(g, "x", 4, (int64_t[]){2, 3, 4, 5}, &xd);
        int s = runtime_slope ? add_input(g, "slope", 1, (int64_t[]){3}, &sd)
                              : add_const(g, "slope", 1, (int64_t[]){3}, -2, 2);
        const float *slope = runtime_slope ? sd : cdata(g, s);
        int y = ir_graph_add_value(g, "y");
        add_node(g, "pr", "PRelu", 2, (int[]){x, s}, y);
        ir_graph_add_output(g, y);
        CHECK(finish(g));
        double want[120];
        for (int i = 0; i < 120; i++) {
            int ch = (i / 20) % 3;
            want[i] = xd[i] < 0 ? (double)slope[ch] * xd[i] : xd[i];
        }
        int layers = 0;
        const float *ins[2] = {xd, sd};
        CHECK(run_err(g, ins, want, &layers) <= 1e-6);
        CHECK(layers == 1);   /* the Reshape of the slope, a graph input too, is a view */
        int pr = find_node(g, "pr");
        CHECK(pr >= 0 && g->values[g->nodes[pr].in[1]].t.rank == 3 &&
              g->values[g->nodes[pr].in[1]].t.dims[0] == 3);
        if (runtime_slope) CHECK(find_node(g, "pr:slope") == 0);
        free(xd);
        free(sd);
        ir_graph_free(g);
    }
}

/* After the passes on g (node `name` -> PRelu "pr" writing y; inputs x and
 * slope): fused, node `name` with act PRELU and its m slopes as input 4,
 * writing y; or not, the PRelu kept. The net's values against want. */
static void prelu_check(ir_graph *g, const char *name, int fused, int64_t m, int y,
                        const float *xd, const float *sd, const double *want)
{
    passes_stats ps;
    pz_err err = {0};
    CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK);
    int i = find_node(g, name);
    CHECK(i >= 0 && (find_node(g, "pr") < 0) == fused);
    if (i >= 0 && fused) {
        const ir_node *n = &g->nodes[i];
        CHECK(n->act.kind == IR_ACT_PRELU && n->n_in == 5 && n->in[4] >= 0 &&
              g->values[n->in[4]].t.rank == 1 && g->values[n->in[4]].t.dims[0] == m &&
              n->out[0] == y);
    } else if (i >= 0) {
        CHECK(g->nodes[i].act.kind == IR_ACT_NONE);
    }
    int layers = 0;
    const float *ins[2] = {xd, sd};
    CHECK(run_err(g, ins, want, &layers) <= 1e-5 && layers == 2 - fused);
}

/* y[m, p] = the 1x1 conv of x[C, HW] by w[M, C] (no bias), in double. */
static void conv1x1_ref(const float *w, const float *x, int64_t C, int64_t M, int64_t HW, double *y)
{
    for (int64_t m = 0; m < M; m++)
        for (int64_t p = 0; p < HW; p++) {
            double a = 0;
            for (int64_t q = 0; q < C; q++) a += (double)w[m * C + q] * x[q * HW + p];
            y[m * HW + p] = a;
        }
}

/* Conv (1x1, 3 -> 5 channels, 4x5 pixels) -> PRelu, the slope of each shape:
 * [5,1,1], [1], [1,5,1,1] fuse into the Conv (act PRELU, input 4 the 5
 * slopes, one layer); [5] (along W, of 5 too) and a slope computed at run
 * time stay a layer of their own. The values against double loops. */
static void test_prelu_epilogue(void)
{
    static const struct { int rank; int64_t dims[4]; int fused, runtime; } V[] = {
        {3, {5, 1, 1}, 1, 0}, {1, {1}, 1, 0}, {4, {1, 5, 1, 1}, 1, 0},
        {1, {5}, 0, 0}, {3, {5, 1, 1}, 0, 1},
    };
    for (int v = 0; v < (int)(sizeof V / sizeof V[0]); v++) {
        ir_graph *g = ir_graph_new();
        g->opset = 13;
        float *xd, *sd = NULL;
        const int64_t C = 3, M = 5, HW = 20;
        int x = add_input(g, "x", 4, (int64_t[]){1, C, 4, 5}, &xd);
        int w = add_const(g, "w", 4, (int64_t[]){M, C, 1, 1}, -0.6f, 0.6f);
        int s = V[v].runtime ? add_input(g, "slope", V[v].rank, V[v].dims, &sd)
                             : add_const(g, "slope", V[v].rank, V[v].dims, -1.5f, 1.5f);
        const float *slope = V[v].runtime ? sd : cdata(g, s);
        int c = ir_graph_add_value(g, "c"), y = ir_graph_add_value(g, "y");
        add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
        add_node(g, "pr", "PRelu", 2, (int[]){c, s}, y);
        ir_graph_add_output(g, y);
        CHECK(finish(g));
        double want[5 * 20];
        conv1x1_ref(cdata(g, w), xd, C, M, HW, want);
        for (int64_t m = 0; m < M; m++)
            for (int64_t p = 0; p < HW; p++) {
                const double a = want[m * HW + p];
                const int64_t k = V[v].rank == 1 ? (V[v].dims[0] == 1 ? 0 : p % 5) : m;
                want[m * HW + p] = a < 0 ? slope[k] * a : a;
            }
        prelu_check(g, "conv", V[v].fused, M, y, xd, sd, want);
        free(xd);
        free(sd);
        ir_graph_free(g);
    }
}

/* PRelu after a MatMul (A [2, 3, 8], B constant [8, 6]) or a Gemm (A [3, 8]):
 * fused, the slope one per column as input 4, for a slope [6], [1, 6], [1]
 * and a scalar; a slope per row ([3, 1]) or read at run time stays a PRelu.
 * The values against double loops. */
static void test_prelu_gemm_epilogue(void)
{
    static const struct { int rank; int64_t dims[2]; int fused, runtime; } V[] = {
        {1, {6}, 1, 0}, {2, {1, 6}, 1, 0}, {1, {1}, 1, 0}, {0, {0}, 1, 0},
        {2, {3, 1}, 0, 0}, {1, {6}, 0, 1},
    };
    for (int gemm = 0; gemm < 2; gemm++)
        for (int v = 0; v < (int)(sizeof V / sizeof V[0]); v++) {
            ir_graph *g = ir_graph_new();
            g->opset = 13;
            float *xd, *sd = NULL;
            const int64_t R = gemm ? 3 : 6, K = 8, N = 6;   /* rows of A (every batch) */
            int x = gemm ? add_input(g, "x", 2, (int64_t[]){3, K}, &xd)
                         : add_input(g, "x", 3, (int64_t[]){2, 3, K}, &xd);
            int w = add_const(g, "w", 2, (int64_t[]){K, N}, -0.6f, 0.6f);
            int s = V[v].runtime ? add_input(g, "slope", V[v].rank, V[v].dims, &sd)
                                 : add_const(g, "slope", V[v].rank, V[v].dims, -1.5f, 1.5f);
            const float *slope = V[v].runtime ? sd : cdata(g, s);
            int c = ir_graph_add_value(g, "c"), y = ir_graph_add_value(g, "y");
            add_node(g, "mm", gemm ? "Gemm" : "MatMul", 2, (int[]){x, w}, c);
            add_node(g, "pr", "PRelu", 2, (int[]){c, s}, y);
            ir_graph_add_output(g, y);
            CHECK(finish(g));
            double want[6 * 6];
            const int64_t ns = ir_tensor_numel(&g->values[s].t);
            for (int64_t r = 0; r < R; r++)
                for (int64_t n = 0; n < N; n++) {
                    double a = 0;
                    for (int64_t k = 0; k < K; k++) a += (double)xd[r * K + k] * cdata(g, w)[k * N + n];
                    const int64_t i = ns == 1 ? 0 : V[v].dims[0] == 3 ? r % 3 : n;
                    want[r * N + n] = a < 0 ? slope[i] * a : a;
                }
            prelu_check(g, "mm", V[v].fused, N, y, xd, sd, want);
            free(xd);
            free(sd);
            ir_graph_free(g);
        }
}

/* Layers of the lowered graph (the run-time nodes). */
/* Gated activations (gate.c): Conv -> Mul(c, Sigmoid(c)) becomes Swish,
 * Mul(HardSigmoid(c; 1/6, 1/2), c) HardSwish; a HardSigmoid of other
 * parameters and a Sigmoid with a second reader (a graph output) stay. The
 * values against double loops; `first` picks which output is compared. */
static void test_gates(int first)
{
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *xd;
    const int64_t C = 20, HW = 25;
    int x = add_input(g, "x", 4, (int64_t[]){1, C, 5, 5}, &xd);
    int w = add_const(g, "w", 4, (int64_t[]){C, C, 1, 1}, -0.6f, 0.6f);
    int c = ir_graph_add_value(g, "c");
    int s = ir_graph_add_value(g, "s"), y = ir_graph_add_value(g, "y");
    int h = ir_graph_add_value(g, "h"), y2 = ir_graph_add_value(g, "y2");
    int h3 = ir_graph_add_value(g, "h3"), y3 = ir_graph_add_value(g, "y3");
    int s4 = ir_graph_add_value(g, "s4"), y4 = ir_graph_add_value(g, "y4");
    add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
    add_node(g, "sig", "Sigmoid", 1, (int[]){c}, s);
    add_node(g, "mul", "Mul", 2, (int[]){c, s}, y);
    int k = add_node(g, "hs", "HardSigmoid", 1, (int[]){c}, h);
    attr_float(g, k, "alpha", (float)(1.0 / 6.0));
    attr_float(g, k, "beta", 0.5f);
    add_node(g, "mul2", "Mul", 2, (int[]){h, c}, y2);
    k = add_node(g, "hs3", "HardSigmoid", 1, (int[]){c}, h3);   /* alpha 0.2: not HardSwish */
    attr_float(g, k, "beta", 0.5f);
    add_node(g, "mul3", "Mul", 2, (int[]){c, h3}, y3);
    add_node(g, "sig4", "Sigmoid", 1, (int[]){c}, s4);          /* s4 is also an output */
    add_node(g, "mul4", "Mul", 2, (int[]){c, s4}, y4);
    ir_graph_add_output(g, first ? y2 : y);
    ir_graph_add_output(g, first ? y : y2);
    ir_graph_add_output(g, y3);
    ir_graph_add_output(g, y4);
    ir_graph_add_output(g, s4);
    CHECK(finish(g));
    double want[20 * 25];
    for (int64_t m = 0; m < C; m++)
        for (int64_t p = 0; p < HW; p++) {
            double v = 0;
            for (int64_t q = 0; q < C; q++) v += (double)cdata(g, w)[m * C + q] * xd[q * HW + p];
            double hs = v / 6 + 0.5;
            hs = hs < 0 ? 0 : hs > 1 ? 1 : hs;
            want[m * HW + p] = first ? v * hs : v / (1 + exp(-v));
        }
    passes_stats ps;
    pz_err err = {0};
    CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK && ps.gates == 2);
    int sig = find_node(g, "sig"), hs = find_node(g, "hs");
    CHECK(sig >= 0 && !strcmp(g->nodes[sig].op_type, "Swish") && g->nodes[sig].out[0] == y);
    CHECK(hs >= 0 && !strcmp(g->nodes[hs].op_type, "HardSwish") && g->nodes[hs].out[0] == y2);
    CHECK(find_node(g, "mul") < 0 && find_node(g, "mul2") < 0);
    CHECK(find_node(g, "mul3") >= 0 && find_node(g, "mul4") >= 0 && count_op(g, "Sigmoid") == 1 &&
          count_op(g, "HardSigmoid") == 1);
    int layers = 0;
    CHECK(run_err(g, (const float *const[]){xd}, want, &layers) <= 1e-5 && layers == 7);
    free(xd);
    ir_graph_free(g);
}

/* The end of a rewrite test: the graph, lowered and run on xd, matches want
 * within 1e-5 in `layers` layers; frees xd and g. */
static void check_run(ir_graph *g, float *xd, const double *want, int layers, const char *what)
{
    int got = 0;
    double e = run_err(g, (const float *const[]){xd}, want, &got);
    CHECK(e <= 1e-5 && got == layers);
    if (e > 1e-5 || got != layers) fprintf(stderr, "%s: error %g, %d layers\n", what, e, got);
    free(xd);
    ir_graph_free(g);
}

/* A float32 scalar constant (rank 0). */
static int add_scalar(ir_graph *g, const char *name, float v)
{
    int id = ir_graph_add_value(g, name);
    g->values[id].t = shape_of(0, NULL);
    ir_value_set_data(g, id, &v, sizeof v);
    g->values[id].is_initializer = 1;
    return id;
}

/* select.c's masks: Conv (1x1, 3 -> 5, 4x5 pixels) -> Cmp(c, 0.1) (the
 * constant on either side) -> [Not] -> Cast(to) -> [Mul by k or by c]:
 * a Cast to float32 fuses as SELECT with constant branches (1, 0), the Mul
 * by a finite scalar k as (k, 0 k: -0 for k < 0), Not swaps the branches;
 * a Cast to double (then back to float: the Cmp fused as the conv's bool,
 * pass_fuse_mask, the Casts layers) and a Mul by a per-channel tensor
 * (the Cast fused alone, the Mul a layer) are the negatives. The act's
 * fields, the layer count, and the values against double loops. */
static void test_select_masks(void)
{
    enum { NONE, BY_K, BY_Y, BY_T };
    static const struct {
        const char *cmp;
        int left, neg, dbl, mul;
        float k;
        int layers, cmp_id, sel;
    } V[] = {
        {"Greater", 0, 0, 0, NONE, 0, 1, PZ_CMP_GT, 3},
        {"Less", 1, 0, 0, BY_K, -2.5f, 1, PZ_CMP_GT, 3},   /* Less(0.1, c): c > 0.1 */
        {"GreaterOrEqual", 0, 1, 0, NONE, 0, 1, PZ_CMP_GE, 3},
        {"LessOrEqual", 0, 1, 0, BY_Y, 0, 1, PZ_CMP_LE, 0},
        {"Greater", 0, 1, 0, BY_K, 4.0f, 1, PZ_CMP_GT, 3},
        {"Greater", 0, 0, 1, NONE, 0, 3, -1, 0},   /* the conv writes the bool, two Casts */
        {"Greater", 0, 0, 0, BY_T, 0, 2, PZ_CMP_GT, 3},
    };
    for (int v = 0; v < (int)(sizeof V / sizeof V[0]); v++) {
        ir_graph *g = ir_graph_new();
        g->opset = 13;
        float *xd;
        const int64_t C = 3, M = 5, HW = 20;
        const float t = 0.1f;
        int x = add_input(g, "x", 4, (int64_t[]){1, C, 4, 5}, &xd);
        int w = add_const(g, "w", 4, (int64_t[]){M, C, 1, 1}, -0.6f, 0.6f);
        int th = add_scalar(g, "t", t), k = add_scalar(g, "k", V[v].k);
        int tk = add_const(g, "tk", 3, (int64_t[]){M, 1, 1}, -2, 2);
        int c = ir_graph_add_value(g, "c"), b = ir_graph_add_value(g, "b");
        int nb = ir_graph_add_value(g, "nb"), f = ir_graph_add_value(g, "f");
        int f2 = ir_graph_add_value(g, "f2"), y = ir_graph_add_value(g, "y");
        add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
        add_node(g, "cmp", V[v].cmp, 2, V[v].left ? (int[]){th, c} : (int[]){c, th}, b);
        if (V[v].neg) add_node(g, "not", "Not", 1, (int[]){b}, nb);
        int cast = add_node(g, "cast", "Cast", 1, (int[]){V[v].neg ? nb : b}, f);
        attr_int(g, cast, "to", V[v].dbl ? 11 : 1);
        if (V[v].dbl) attr_int(g, add_node(g, "cast2", "Cast", 1, (int[]){f}, f2), "to", 1);
        const int mk = V[v].mul == BY_K ? k : V[v].mul == BY_Y ? c : tk;
        if (V[v].mul != NONE) add_node(g, "mul", "Mul", 2, (int[]){f, mk}, y);
        ir_graph_add_output(g, V[v].mul != NONE ? y : V[v].dbl ? f2 : f);
        CHECK(finish(g));
        double want[5 * 20];
        conv1x1_ref(cdata(g, w), xd, C, M, HW, want);
        for (int64_t m = 0; m < M; m++)
            for (int64_t p = 0; p < HW; p++) {
                const float af = (float)want[m * HW + p];   /* the conv's float: a sum near t may round across */
                int on = !strcmp(V[v].cmp, "Greater") || V[v].left ? af > t
                       : !strcmp(V[v].cmp, "GreaterOrEqual")       ? af >= t
                                                                   : af <= t;
                on ^= V[v].neg;
                want[m * HW + p] = V[v].mul == BY_K   ? on * V[v].k
                                 : V[v].mul == BY_Y   ? on * (double)af
                                 : V[v].mul == BY_T   ? on * cdata(g, tk)[m]
                                                      : on;
            }
        passes_stats ps;
        pz_err err = {0};
        CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK);
        const ir_act *act = &g->nodes[find_node(g, "conv")].act;
        if (V[v].cmp_id < 0) {
            CHECK(act->kind == IR_ACT_SELECT && act->sel == 0 && act->lo == 1 && act->hi == 1 &&
                  find_node(g, "cmp") < 0 && find_node(g, "cast") >= 0);
        } else {
            const float on = V[v].mul == BY_K ? V[v].k : 1, off = V[v].mul == BY_K ? 0.0f * V[v].k : 0;
            const float lo = V[v].neg ? off : on, hi = V[v].neg ? on : off;
            int sel = V[v].neg ? (V[v].sel & 1) << 1 | (V[v].sel & 2) >> 1 : V[v].sel;
            CHECK(act->kind == IR_ACT_SELECT && act->cmp == V[v].cmp_id && act->t == t &&
                  act->sel == sel && act->lo == lo && act->hi == hi &&
                  !signbit(act->lo) == !signbit(lo) && !signbit(act->hi) == !signbit(hi));
            CHECK(find_node(g, "cmp") < 0 && find_node(g, "cast") < 0 && find_node(g, "not") < 0);
            if (act->kind != IR_ACT_SELECT || act->sel != sel || act->lo != lo || act->hi != hi)
                fprintf(stderr, "select mask %d: kind %d sel %d lo %g hi %g\n", v, act->kind, act->sel,
                        act->lo, act->hi);
        }
        int layers = 0;
        double e = run_err(g, (const float *const[]){xd}, want, &layers);
        const double tol = V[v].mul == BY_Y ? 1e-6 : 0;   /* the conv's float sums; masks exact */
        CHECK(e <= tol && layers == V[v].layers);
        if (e > tol || layers != V[v].layers) fprintf(stderr, "select mask %d: error %g, %d layers\n", v, e, layers);
        free(xd);
        ir_graph_free(g);
    }
}

/* GELU as PyTorch exports it (gate.c): Conv -> Div(c, sqrt 2) -> Erf ->
 * Add(., 1) -> Mul(c, .) -> Mul(., 0.5) becomes Gelu; so does the variant
 * Mul(c, 1/sqrt 2) -> Erf -> Add(1, .) -> Mul(., 0.5) -> Mul(c, .); a third
 * chain adding 2 instead of 1 stays. The values against double loops. */
static void test_gelu(void)
{
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *xd;
    const int64_t C = 20, HW = 25;
    int x = add_input(g, "x", 4, (int64_t[]){1, C, 5, 5}, &xd);
    int w = add_const(g, "w", 4, (int64_t[]){C, C, 1, 1}, -0.9f, 0.9f);
    int r2 = add_scalar(g, "r2", (float)M_SQRT2), ir2 = add_scalar(g, "ir2", (float)M_SQRT1_2);
    int one = add_scalar(g, "one", 1.0f), two = add_scalar(g, "two", 2.0f);
    int half = add_scalar(g, "half", 0.5f);
    int c = ir_graph_add_value(g, "c");
    int v[15];
    char nm[16];
    for (int i = 0; i < 15; i++) {
        snprintf(nm, sizeof nm, "v%d", i);
        v[i] = ir_graph_add_value(g, nm);
    }
    add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
    add_node(g, "div", "Div", 2, (int[]){c, r2}, v[0]);
    add_node(g, "erf", "Erf", 1, (int[]){v[0]}, v[1]);
    add_node(g, "add", "Add", 2, (int[]){v[1], one}, v[2]);
    add_node(g, "mul", "Mul", 2, (int[]){c, v[2]}, v[3]);
    add_node(g, "mulh", "Mul", 2, (int[]){v[3], half}, v[4]);
    add_node(g, "m2", "Mul", 2, (int[]){ir2, c}, v[5]);
    add_node(g, "erf2", "Erf", 1, (int[]){v[5]}, v[6]);
    add_node(g, "add2", "Add", 2, (int[]){one, v[6]}, v[7]);
    add_node(g, "mulh2", "Mul", 2, (int[]){v[7], half}, v[8]);
    add_node(g, "mul2", "Mul", 2, (int[]){c, v[8]}, v[9]);
    add_node(g, "div3", "Div", 2, (int[]){c, r2}, v[10]);
    add_node(g, "erf3", "Erf", 1, (int[]){v[10]}, v[11]);
    add_node(g, "add3", "Add", 2, (int[]){v[11], two}, v[12]);   /* + 2: not a GELU */
    add_node(g, "mul3", "Mul", 2, (int[]){c, v[12]}, v[13]);
    add_node(g, "mulh3", "Mul", 2, (int[]){v[13], half}, v[14]);
    ir_graph_add_output(g, v[4]);
    ir_graph_add_output(g, v[9]);
    ir_graph_add_output(g, v[14]);
    CHECK(finish(g));
    double want[20 * 25];
    for (int64_t m = 0; m < C; m++)
        for (int64_t p = 0; p < HW; p++) {
            double s = 0;
            for (int64_t q = 0; q < C; q++) s += (double)cdata(g, w)[m * C + q] * xd[q * HW + p];
            want[m * HW + p] = 0.5 * s * (1 + erf(s / M_SQRT2));
        }
    passes_stats ps;
    pz_err err = {0};
    CHECK(passes_run_stats(g, &KEEP_COPIES, &ps, &err) == PZ_OK && ps.gates == 2);
    int e1 = find_node(g, "erf"), e2 = find_node(g, "erf2");
    CHECK(e1 >= 0 && !strcmp(g->nodes[e1].op_type, "Gelu") && g->nodes[e1].out[0] == v[4] &&
          g->nodes[e1].in[0] == c);
    CHECK(e2 >= 0 && !strcmp(g->nodes[e2].op_type, "Gelu") && g->nodes[e2].out[0] == v[9]);
    CHECK(find_node(g, "div") < 0 && find_node(g, "mulh") < 0 && find_node(g, "m2") < 0 &&
          find_node(g, "mul2") < 0);
    CHECK(find_node(g, "erf3") >= 0 && !strcmp(g->nodes[find_node(g, "erf3")].op_type, "Erf") &&
          find_node(g, "add3") >= 0);
    check_run(g, xd, want, 8, "gelu");
}

/* A linear layer (epilogue.c): MatMul(x [2,3,K], W [K,N]) -> Add(., b[N])
 * -> Gelu is one MATMUL layer with C = b and act GELU; MatMul -> Add(c, .)
 * with c [2,1,N] (not along the last axis alone) stays two layers. In a
 * second graph, Add(b [1,1,N], MatMul) -> Relu: one layer. The values
 * against double loops. */
static void test_linear(int second)
{
    ir_graph *g = ir_graph_new();
    g->opset = 20;
    float *xd;
    const int64_t K = 20, N = 40, R = 6;   /* R = 2 x 3 rows */
    int x = add_input(g, "x", 3, (int64_t[]){2, 3, K}, &xd);
    int w = add_const(g, "w", 2, (int64_t[]){K, N}, -0.5f, 0.5f);
    int b = second ? add_const(g, "b", 3, (int64_t[]){1, 1, N}, -1.0f, 1.0f)
                   : add_const(g, "b", 1, (int64_t[]){N}, -1.0f, 1.0f);
    int mm = ir_graph_add_value(g, "mm"), s = ir_graph_add_value(g, "s");
    int y = ir_graph_add_value(g, "y");
    add_node(g, "mm", "MatMul", 2, (int[]){x, w}, mm);
    add_node(g, "bias", "Add", 2, second ? (int[]){b, mm} : (int[]){mm, b}, s);
    add_node(g, "act", second ? "Relu" : "Gelu", 1, (int[]){s}, y);
    ir_graph_add_output(g, y);
    if (!second) {
        int c = add_const(g, "c", 3, (int64_t[]){2, 1, N}, -1.0f, 1.0f);
        int mm2 = ir_graph_add_value(g, "mm2"), y2 = ir_graph_add_value(g, "y2");
        add_node(g, "mm2", "MatMul", 2, (int[]){x, w}, mm2);
        add_node(g, "add2", "Add", 2, (int[]){c, mm2}, y2);
        ir_graph_add_output(g, y2);
    }
    CHECK(finish(g));
    double want[6 * 40];
    for (int64_t r = 0; r < R; r++)
        for (int64_t j = 0; j < N; j++) {
            double v = cdata(g, b)[j];
            for (int64_t k = 0; k < K; k++) v += (double)xd[r * K + k] * cdata(g, w)[k * N + j];
            want[r * N + j] = second ? (v > 0 ? v : 0) : 0.5 * v * (1 + erf(v / M_SQRT2));
        }
    passes_stats ps;
    pz_err err = {0};
    CHECK(passes_run_stats(g, &KEEP_COPIES, &ps, &err) == PZ_OK && ps.biases == 1 && ps.acts == 1);
    int m = find_node(g, "mm");
    CHECK(m >= 0 && g->nodes[m].n_in == 3 && g->nodes[m].in[2] == b && g->nodes[m].out[0] == y &&
          g->nodes[m].act.kind == (second ? IR_ACT_RELU : IR_ACT_GELU));
    CHECK(find_node(g, "bias") < 0 && find_node(g, "act") < 0);
    if (!second) CHECK(find_node(g, "add2") >= 0 && g->nodes[find_node(g, "mm2")].n_in == 2);
    check_run(g, xd, want, second ? 1 : 3, second ? "linear relu" : "linear gelu");
}

/* A LayerNorm as PyTorch exports it (norm.c): Conv -> Transpose to
 * channels last -> ReduceMean(-1) -> Sub -> Pow 2 -> ReduceMean(-1) ->
 * Add eps -> Sqrt -> Div -> Mul gamma -> Add beta becomes one
 * LayerNormalization; the same chain with a second reader of the centred
 * values (a graph output) stays. The values against double loops. */
static void test_norms(void)
{
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    float *xd;
    const int64_t C = 20, HW = 25;
    int x = add_input(g, "x", 4, (int64_t[]){1, C, 5, 5}, &xd);
    int w = add_const(g, "w", 4, (int64_t[]){C, C, 1, 1}, -0.9f, 0.9f);
    int gm = add_const(g, "gamma", 1, (int64_t[]){C}, 0.5f, 1.5f);
    int bt = add_const(g, "beta", 1, (int64_t[]){C}, -0.5f, 0.5f);
    int two = add_scalar(g, "two", 2.0f), eps = add_scalar(g, "eps", 1e-6f);
    int c = ir_graph_add_value(g, "c"), t = ir_graph_add_value(g, "t");
    int v[20];
    char nm[16];
    for (int i = 0; i < 20; i++) {
        snprintf(nm, sizeof nm, "v%d", i);
        v[i] = ir_graph_add_value(g, nm);
    }
    add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
    int k = add_node(g, "tr", "Transpose", 1, (int[]){c}, t);
    attr_ints(g, k, "perm", 4, (int64_t[]){0, 2, 3, 1});
    for (int chain = 0; chain < 2; chain++) {
        int *u = v + chain * 10;
        char r1[16], r2[16];
        snprintf(r1, sizeof r1, "mean%d", chain);
        snprintf(r2, sizeof r2, "var%d", chain);
        k = add_node(g, r1, "ReduceMean", 1, (int[]){t}, u[0]);
        attr_ints(g, k, "axes", 1, (int64_t[]){-1});
        add_node(g, chain ? "sub1" : "sub0", "Sub", 2, (int[]){t, u[0]}, u[1]);
        add_node(g, chain ? "pow1" : "pow0", "Pow", 2, (int[]){u[1], two}, u[2]);
        k = add_node(g, r2, "ReduceMean", 1, (int[]){u[2]}, u[3]);
        attr_ints(g, k, "axes", 1, (int64_t[]){3});
        add_node(g, chain ? "adde1" : "adde0", "Add", 2, (int[]){u[3], eps}, u[4]);
        add_node(g, chain ? "sqrt1" : "sqrt0", "Sqrt", 1, (int[]){u[4]}, u[5]);
        add_node(g, chain ? "div1" : "div0", "Div", 2, (int[]){u[1], u[5]}, u[6]);
        add_node(g, chain ? "mulg1" : "mulg0", "Mul", 2, (int[]){gm, u[6]}, u[7]);
        add_node(g, chain ? "addb1" : "addb0", "Add", 2, (int[]){u[7], bt}, u[8]);
        ir_graph_add_output(g, u[8]);
    }
    ir_graph_add_output(g, v[11]);   /* chain 1's centred values: it stays */
    CHECK(finish(g));
    double want[20 * 25];
    for (int64_t p = 0; p < HW; p++) {
        double s[20], m = 0, var = 0;
        for (int64_t o = 0; o < C; o++) {
            s[o] = 0;
            for (int64_t q = 0; q < C; q++) s[o] += (double)cdata(g, w)[o * C + q] * xd[q * HW + p];
            m += s[o] / C;
        }
        for (int64_t o = 0; o < C; o++) var += (s[o] - m) * (s[o] - m) / C;
        for (int64_t o = 0; o < C; o++)
            want[p * C + o] = (s[o] - m) / sqrt(var + 1e-6) * cdata(g, gm)[o] + cdata(g, bt)[o];
    }
    passes_stats ps;
    pz_err err = {0};
    CHECK(passes_run_stats(g, &KEEP_COPIES, &ps, &err) == PZ_OK && ps.norms == 1);
    int m0 = find_node(g, "mean0");
    CHECK(m0 >= 0 && !strcmp(g->nodes[m0].op_type, "LayerNormalization") &&
          g->nodes[m0].out[0] == v[8] && g->nodes[m0].in[0] == t);
    CHECK(find_node(g, "sub0") < 0 && find_node(g, "sqrt0") < 0 && find_node(g, "addb0") < 0);
    CHECK(find_node(g, "mean1") >= 0 && find_node(g, "sub1") >= 0 && find_node(g, "addb1") >= 0);
    check_run(g, xd, want, 12, "norms");
}

/* A channel shuffle (shuffle.c): Conv -> Reshape [1, 3, 8, 5, 5] ->
 * Transpose(0, 2, 1, 3, 4) -> Reshape [1, 24, 5, 5] becomes one Gather along
 * channels; a second chain whose Transpose has another perm stays. The
 * values against double loops: output channel k*3 + j is the conv's
 * channel j*8 + k. */
enum { SH_C = 24, SH_HW = 25, SH_G = 3, SH_CG = 8 };

/* x [1, 24, 5, 5] -> Conv "conv" (w) -> c -> Reshape "r1" [1, 3, 8, 5, 5]
 * (shape s5) -> Transpose "tr" (0, 2, 1, 3, 4) -> Reshape "r2" (shape s4)
 * -> y [1, 24, 5, 5]: the shuffle of the tests below. */
typedef struct {
    ir_graph *g;
    float *xd;
    int w, c, s5, s4, y;
} shuffle_net;

static shuffle_net add_shuffle(void)
{
    shuffle_net n = {ir_graph_new(), NULL, 0, 0, 0, 0, 0};
    ir_graph *g = n.g;
    g->opset = 13;
    int x = add_input(g, "x", 4, (int64_t[]){1, SH_C, 5, 5}, &n.xd);
    n.w = add_const(g, "w", 4, (int64_t[]){SH_C, SH_C, 1, 1}, -0.6f, 0.6f);
    n.c = ir_graph_add_value(g, "c");
    int v5 = ir_graph_add_value(g, "v5"), t5 = ir_graph_add_value(g, "t5");
    n.y = ir_graph_add_value(g, "y");
    n.s5 = add_const_i64(g, "s5", 5, (int64_t[]){1, SH_G, SH_CG, 5, 5});
    n.s4 = add_const_i64(g, "s4", 4, (int64_t[]){1, SH_C, 5, 5});
    add_node(g, "conv", "Conv", 2, (int[]){x, n.w}, n.c);
    add_node(g, "r1", "Reshape", 2, (int[]){n.c, n.s5}, v5);
    int k = add_node(g, "tr", "Transpose", 1, (int[]){v5}, t5);
    attr_ints(g, k, "perm", 5, (int64_t[]){0, 2, 1, 3, 4});
    add_node(g, "r2", "Reshape", 2, (int[]){t5, n.s4}, n.y);
    return n;
}

static void test_shuffles(void)
{
    shuffle_net sn = add_shuffle();
    ir_graph *g = sn.g;
    float *xd = sn.xd;
    const int64_t C = SH_C, HW = SH_HW, G = SH_G, CG = SH_CG;
    int w = sn.w, c = sn.c, s5 = sn.s5, s4 = sn.s4, y = sn.y;
    int u5 = ir_graph_add_value(g, "u5"), q5 = ir_graph_add_value(g, "q5");
    int y2 = ir_graph_add_value(g, "y2");
    add_node(g, "r1b", "Reshape", 2, (int[]){c, s5}, u5);
    int k = add_node(g, "trb", "Transpose", 1, (int[]){u5}, q5);   /* not a shuffle */
    attr_ints(g, k, "perm", 5, (int64_t[]){0, 1, 2, 4, 3});
    add_node(g, "r2b", "Reshape", 2, (int[]){q5, s4}, y2);
    ir_graph_add_output(g, y);
    ir_graph_add_output(g, y2);
    CHECK(finish(g));
    double want[24 * 25];
    for (int64_t kk = 0; kk < CG; kk++)
        for (int64_t j = 0; j < G; j++)
            for (int64_t p = 0; p < HW; p++) {
                double v = 0;
                for (int64_t q = 0; q < C; q++)
                    v += (double)cdata(g, w)[(j * CG + kk) * C + q] * xd[q * HW + p];
                want[(kk * G + j) * HW + p] = v;
            }
    passes_stats ps;
    pz_err err = {0};
    CHECK(passes_run_stats(g, &KEEP_COPIES, &ps, &err) == PZ_OK && ps.shuffles == 1);
    int r1 = find_node(g, "r1");
    CHECK(r1 >= 0 && !strcmp(g->nodes[r1].op_type, "Gather") && g->nodes[r1].out[0] == y);
    CHECK(find_node(g, "tr") < 0 && find_node(g, "r2") < 0);
    CHECK(find_node(g, "trb") >= 0 && count_op(g, "Reshape") == 2 && count_op(g, "Transpose") == 1);
    check_run(g, xd, want, 3, "shuffles");   /* conv, gather, trb: the Reshapes are views */
}

/* The shuffle then read by two channel Slices alone (shuffle.c, ShuffleNetV2's
 * split): the shuffle's Gather goes, each Slice becomes a Gather of the conv
 * by its run of the indices; output 0 (channels 5..16 of the shuffle, a
 * Slice with a negative start) against double loops. */
static void test_shuffle_slices(void)
{
    shuffle_net sn = add_shuffle();
    ir_graph *g = sn.g;
    float *xd = sn.xd;
    const int64_t C = SH_C, HW = SH_HW, G = SH_G, CG = SH_CG;
    int w = sn.w, c = sn.c, y = sn.y;
    int a = ir_graph_add_value(g, "a"), b = ir_graph_add_value(g, "b");
    int st0 = add_const_i64(g, "st0", 1, (int64_t[]){-19}), en0 = add_const_i64(g, "en0", 1, (int64_t[]){17});
    int st1 = add_const_i64(g, "st1", 1, (int64_t[]){17}), en1 = add_const_i64(g, "en1", 1, (int64_t[]){24});
    int ax = add_const_i64(g, "ax", 1, (int64_t[]){1});
    add_node(g, "sl0", "Slice", 4, (int[]){y, st0, en0, ax}, a);
    add_node(g, "sl1", "Slice", 4, (int[]){y, st1, en1, ax}, b);
    ir_graph_add_output(g, a);
    ir_graph_add_output(g, b);
    CHECK(finish(g));
    double want[12 * 25];
    for (int64_t o = 5; o < 17; o++) {
        int64_t kk = o / G, j = o % G;
        for (int64_t p = 0; p < HW; p++) {
            double v = 0;
            for (int64_t q = 0; q < C; q++)
                v += (double)cdata(g, w)[(j * CG + kk) * C + q] * xd[q * HW + p];
            want[(o - 5) * HW + p] = v;
        }
    }
    passes_stats ps;
    pz_err err = {0};
    CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK && ps.shuffles == 1 &&
          ps.shuffle_slices == 1);
    CHECK(find_node(g, "r1") < 0 && count_op(g, "Slice") == 0 && count_op(g, "Gather") == 2);
    int s0 = find_node(g, "sl0");
    CHECK(s0 >= 0 && !strcmp(g->nodes[s0].op_type, "Gather") && g->nodes[s0].in[0] == c);
    check_run(g, xd, want, 3, "shuffle slices");   /* conv and two gathers */
}

/* ---- preconditions: patterns almost matched -------------------------------- */

/* Output 0 of g run on the inputs, as doubles (malloc'd); NULL if the net
 * cannot be built. The graph is not changed (no passes). */
static double *run_ref(ir_graph *g, const float *const *ins)
{
    pz_err err = {0};
    ir_model *m = ir_model_lower(g);
    gen_net gn;
    if (gen_net_build(m, 1, &gn, &err)) {
        fprintf(stderr, "net build failed: %s\n", err.msg);
        ir_model_free(m);
        return NULL;
    }
    void *outs[8] = {0};
    PZ_ASSERT(g->n_outputs <= 8);
    for (int i = 0; i < g->n_outputs; i++)
        outs[i] = pz_xcalloc((size_t)ir_tensor_numel(&g->values[g->outputs[i]].t) + 1, sizeof(float));
    pz_net_run(gn.net, (const void *const *)ins, outs);
    size_t n = (size_t)ir_tensor_numel(&g->values[g->outputs[0]].t);
    double *y = pz_xmalloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++) y[i] = ((const float *)outs[0])[i];
    for (int i = 0; i < g->n_outputs; i++) free(outs[i]);
    gen_net_free(&gn);
    ir_model_free(m);
    return y;
}

/* A variant of a pattern: what the passes must do to it (every counter of
 * passes_stats) and the node count after them (-1: not checked). */
typedef struct {
    int v;
    const char *what;
    passes_stats want;
    int nodes;
} variant;

/* build(v, &xd) makes variant v's graph (the same each time: it resets the
 * rng) and its one input. Each variant is built twice: one copy runs
 * without the passes (the reference: the graph as written, every node its
 * own layer), the other with them; the passes must do exactly `want`, leave
 * `nodes` nodes, and the outputs agree within 1e-5 relative. */
typedef ir_graph *(*variant_build)(int v, float **xd);

static void check_variants(variant_build build, const variant *vs, int count, const char *pass)
{
    for (int k = 0; k < count; k++) {
        const variant *c = &vs[k];
        float *x0, *x1;
        ir_graph *g0 = build(c->v, &x0), *g1 = build(c->v, &x1);
        if (!g0 || !g1) {
            CHECK(!"variant builds");
            fprintf(stderr, "%s/%s: the graph did not build\n", pass, c->what);
            continue;
        }
        /* an act put on an op whose layer cannot apply it (no pass does
         * that) must be refused by the planner, with and without the passes */
        int stray_act = 0;
        for (int i = 0; i < g0->n_nodes; i++)
            stray_act |= g0->nodes[i].act.kind != IR_ACT_NONE && !g0->nodes[i].op->takes_act;
        double *want = run_ref(g0, (const float *const[]){x0});
        passes_stats ps;
        pz_err err = {0};
        int rc = passes_run_stats(g1, NULL, &ps, &err);
        int same = rc == PZ_OK && !memcmp(&ps, &c->want, sizeof ps);
        int nodes_ok = c->nodes < 0 || g1->n_nodes == c->nodes;
        double e = want ? run_err(g1, (const float *const[]){x1}, want, NULL) : 1e30;
        if (stray_act) {
            checkf(!want && e == 1e30, "%s/%s: a stray act is refused with and without the passes",
                   pass, c->what);
            e = 0;
        }
        CHECK(same);
        CHECK(nodes_ok);
        CHECK(e <= 1e-5);
        if (!same || !nodes_ok || !(e <= 1e-5))
            fprintf(stderr, "%s/%s: rc %d, stats bn %d res %d acts %d bias %d gates %d shuf %d "
                    "norms %d elim %d, %d nodes (want %d), error %g\n", pass, c->what, rc,
                    ps.bn_folded, ps.residuals, ps.acts, ps.biases, ps.gates, ps.shuffles,
                    ps.norms, ps.eliminated, g1->n_nodes, c->nodes, e);
        free(want);
        free(x0);
        free(x1);
        ir_graph_free(g0);
        ir_graph_free(g1);
    }
}

/* Gives node `name` a fused activation, as an earlier pass would have. */
static void give_act(ir_graph *g, const char *name, ir_act_kind kind)
{
    int i = find_node(g, name);
    PZ_ASSERT(i >= 0);
    g->nodes[i].act.kind = kind;
    g->nodes[i].act.lo = 0;
    g->nodes[i].act.hi = 6;
}

/* The LayerNorm of norm.c over the last axis of x [2, 5, 16]:
 *   mean -> sub -> pow -> var -> adde -> sqrt -> div -> mulg -> addb [-> act]
 * and the variants (LN_*) that break one precondition each. */
enum {
    LN_PLAIN, LN_RELU, LN_CLIP, LN_LEAKY, LN_MULSQ, LN_GAMMA_1N, LN_GAMMA_1, LN_OPSET18,
    LN_ACT_MEAN, LN_ACT_SUB, LN_ACT_POW, LN_ACT_VAR, LN_ACT_ADDE, LN_ACT_SQRT, LN_ACT_DIV,
    LN_ACT_MULG, LN_ACT_ADDB,
    LN_OUT_M, LN_OUT_D, LN_OUT_P, LN_OUT_V, LN_OUT_VE, LN_OUT_S, LN_OUT_N, LN_OUT_NG,
    LN_READ_M, LN_READ_D, LN_READ_P, LN_READ_V, LN_READ_VE, LN_READ_S, LN_READ_N, LN_READ_NG,
    LN_GAMMA_ROWS, LN_GAMMA_RANK, LN_GAMMA_BATCH, LN_BETA_RANK, LN_EPS_RANK, LN_EPS_NEG,
    LN_POW4, LN_AXES_DIFFER, LN_AXES_LEADING, LN_KEEP0, LN_SUB_SWAP, LN_DIV_SWAP, LN_TWO_RANK,
};
static const char *const LN_NAMES[] = {"mean", "sub", "pow", "var", "adde", "sqrt", "div",
                                       "mulg", "addb"};

static ir_graph *build_norm(int v, float **xd)
{
    rng_state = 777;
    ir_graph *g = ir_graph_new();
    g->opset = v == LN_OPSET18 ? 18 : 13;
    const int64_t N = 16;
    /* keepdims 0 only broadcasts back (wrongly: by columns) with X [N, N] */
    int x = v == LN_KEEP0 ? add_input(g, "x", 2, (int64_t[]){N, N}, xd)
                          : add_input(g, "x", 3, (int64_t[]){2, 5, N}, xd);
    int gm = v == LN_GAMMA_1N      ? add_const(g, "gamma", 2, (int64_t[]){1, N}, 0.5f, 1.5f)
             : v == LN_GAMMA_1     ? add_const(g, "gamma", 1, (int64_t[]){1}, 0.5f, 1.5f)
             : v == LN_GAMMA_ROWS  ? add_const(g, "gamma", 2, (int64_t[]){5, N}, 0.5f, 1.5f)
             : v == LN_GAMMA_RANK  ? add_const(g, "gamma", 4, (int64_t[]){1, 1, 1, N}, 0.5f, 1.5f)
             : v == LN_GAMMA_BATCH ? add_const(g, "gamma", 3, (int64_t[]){2, 1, N}, 0.5f, 1.5f)
                                   : add_const(g, "gamma", 1, (int64_t[]){N}, 0.5f, 1.5f);
    int bt = v == LN_BETA_RANK ? add_const(g, "beta", 4, (int64_t[]){2, 1, 1, N}, -0.5f, 0.5f)
                               : add_const(g, "beta", 1, (int64_t[]){N}, -0.5f, 0.5f);
    int two = v == LN_POW4 ? add_scalar(g, "two", 4.0f) : add_scalar(g, "two", 2.0f);
    if (v == LN_TWO_RANK) {   /* the exponent a [1, 1, 1, 1]: the square gets rank 4 */
        float t2 = 2.0f;
        two = ir_graph_add_value(g, "two4");
        g->values[two].t = shape_of(4, (int64_t[]){1, 1, 1, 1});
        ir_value_set_data(g, two, &t2, sizeof t2);
        g->values[two].is_initializer = 1;
    }
    int eps;
    if (v == LN_EPS_RANK) {   /* [1, 1, 1, 1]: v + eps gets rank 4 */
        float e = 1e-5f;
        eps = ir_graph_add_value(g, "eps4");
        g->values[eps].t = shape_of(4, (int64_t[]){1, 1, 1, 1});
        ir_value_set_data(g, eps, &e, sizeof e);
        g->values[eps].is_initializer = 1;
    } else {
        eps = add_scalar(g, "eps", v == LN_EPS_NEG ? -1e-5f : 1e-5f);
    }
    /* m d p v ve s n ng y, then the activation's output and a spare */
    int m = ir_graph_add_value(g, "m"), d = ir_graph_add_value(g, "d");
    int p = ir_graph_add_value(g, "p"), va = ir_graph_add_value(g, "v");
    int ve = ir_graph_add_value(g, "ve"), s = ir_graph_add_value(g, "s");
    int n = ir_graph_add_value(g, "n"), ng = ir_graph_add_value(g, "ng");
    int y = ir_graph_add_value(g, "y"), r = ir_graph_add_value(g, "r");
    int extra = ir_graph_add_value(g, "extra");
    const int inner[8] = {m, d, p, va, ve, s, n, ng};
    int k;
    if (v == LN_OPSET18) {
        int axes = add_const_i64(g, "axes", 1, (int64_t[]){-1});
        add_node(g, "mean", "ReduceMean", 2, (int[]){x, axes}, m);
    } else {
        k = add_node(g, "mean", "ReduceMean", 1, (int[]){x}, m);
        attr_ints(g, k, "axes", 1, (int64_t[]){v == LN_AXES_LEADING ? 1 : -1});
        if (v == LN_KEEP0) attr_int(g, k, "keepdims", 0);
    }
    add_node(g, "sub", "Sub", 2, v == LN_SUB_SWAP ? (int[]){m, x} : (int[]){x, m}, d);
    if (v == LN_MULSQ) add_node(g, "pow", "Mul", 2, (int[]){d, d}, p);
    else add_node(g, "pow", "Pow", 2, (int[]){d, two}, p);
    if (v == LN_OPSET18) {
        int axes = add_const_i64(g, "axes2", 1, (int64_t[]){2});
        add_node(g, "var", "ReduceMean", 2, (int[]){p, axes}, va);
    } else {
        k = add_node(g, "var", "ReduceMean", 1, (int[]){p}, va);
        if (v == LN_AXES_DIFFER) attr_ints(g, k, "axes", 2, (int64_t[]){1, 2});
        else attr_ints(g, k, "axes", 1, (int64_t[]){v == LN_AXES_LEADING ? 1 : v == LN_KEEP0 ? -1 : 2});
    }
    add_node(g, "adde", "Add", 2, (int[]){eps, va}, ve);
    add_node(g, "sqrt", "Sqrt", 1, (int[]){ve}, s);
    add_node(g, "div", "Div", 2, v == LN_DIV_SWAP ? (int[]){s, d} : (int[]){d, s}, n);
    add_node(g, "mulg", "Mul", 2, (int[]){n, gm}, ng);
    add_node(g, "addb", "Add", 2, (int[]){bt, ng}, y);
    if (v == LN_RELU) add_node(g, "act", "Relu", 1, (int[]){y}, r);
    if (v == LN_LEAKY) add_node(g, "act", "LeakyRelu", 1, (int[]){y}, r);
    if (v == LN_CLIP) {
        int lo = add_scalar(g, "lo", 0.0f), hi = add_scalar(g, "hi", 0.5f);
        add_node(g, "act", "Clip", 3, (int[]){y, lo, hi}, r);
    }
    int act = v == LN_RELU || v == LN_LEAKY || v == LN_CLIP;
    ir_graph_add_output(g, act ? r : y);
    if (v >= LN_OUT_M && v <= LN_OUT_NG) ir_graph_add_output(g, inner[v - LN_OUT_M]);
    if (v >= LN_READ_M && v <= LN_READ_NG) {   /* a second reader, itself a graph output */
        add_node(g, "extra", "Relu", 1, (int[]){inner[v - LN_READ_M]}, extra);
        ir_graph_add_output(g, extra);
    }
    if (!finish(g)) {
        free(*xd);
        ir_graph_free(g);
        return NULL;
    }
    if (v >= LN_ACT_MEAN && v <= LN_ACT_ADDB)
        give_act(g, LN_NAMES[v - LN_ACT_MEAN], v == LN_ACT_ADDB ? IR_ACT_RELU : IR_ACT_CLIP);
    return g;
}

/* norm.c's preconditions, one variant each (see norm.c's top): the nine
 * nodes plain (an act on any of them, as an epilogue would leave on the last
 * Add, keeps the pattern), every intermediate read only in the pattern and
 * no graph output, gamma/beta per normalised element ([N], [1, N], one
 * value: fused; [5, N], [1, 1, 1, N], [2, 1, N], beta [2, 1, 1, N]: not),
 * constants of rank <= the intermediates', eps >= 0, exponent 2 (4: not), the same
 * trailing axes, keepdims, operand order. An activation after the pattern
 * stays its own node (LayerNormalization has none fused), Relu, Clip and
 * LeakyRelu alike. */
static void test_norm_preconditions(void)
{
    static const variant vs[] = {
        {LN_PLAIN, "plain", {.norms = 1}, 1},
        {LN_RELU, "relu after", {.norms = 1}, 2},
        {LN_CLIP, "clip after", {.norms = 1}, 2},
        {LN_LEAKY, "leakyrelu after", {.norms = 1}, 2},
        {LN_MULSQ, "mul(d, d)", {.norms = 1}, 1},
        {LN_GAMMA_1N, "gamma [1, N]", {.norms = 1}, 1},
        {LN_GAMMA_1, "gamma [1]", {.norms = 1}, 1},
        {LN_OPSET18, "opset 18 axes input", {.norms = 1}, 1},
        {LN_ACT_MEAN, "act on mean", {0}, 9},
        {LN_ACT_SUB, "act on sub", {0}, 9},
        {LN_ACT_POW, "act on pow", {0}, 9},
        {LN_ACT_VAR, "act on var", {0}, 9},
        {LN_ACT_ADDE, "act on adde", {0}, 9},
        {LN_ACT_SQRT, "act on sqrt", {0}, 9},
        {LN_ACT_DIV, "act on div", {0}, 9},
        {LN_ACT_MULG, "act on mulg", {0}, 9},
        {LN_ACT_ADDB, "act on addb (the issue's Relu)", {0}, 9},
        {LN_OUT_M, "m a graph output", {0}, 9},
        {LN_OUT_D, "d a graph output", {0}, 9},
        {LN_OUT_P, "square a graph output", {0}, 9},
        {LN_OUT_V, "v a graph output", {0}, 9},
        {LN_OUT_VE, "v + eps a graph output", {0}, 9},
        {LN_OUT_S, "sqrt a graph output", {0}, 9},
        {LN_OUT_N, "quotient a graph output", {0}, 9},
        {LN_OUT_NG, "product a graph output", {0}, 9},
        {LN_READ_M, "m read twice", {0}, 10},
        {LN_READ_D, "d read thrice", {0}, 10},
        {LN_READ_P, "square read twice", {0}, 10},
        {LN_READ_V, "v read twice", {0}, 10},
        {LN_READ_VE, "v + eps read twice", {0}, 10},
        {LN_READ_S, "sqrt read twice", {0}, 10},
        {LN_READ_N, "quotient read twice", {0}, 10},
        {LN_READ_NG, "product read twice", {0}, 10},
        {LN_GAMMA_ROWS, "gamma [5, N]", {0}, 9},
        {LN_GAMMA_RANK, "gamma [1, 1, 1, N]", {0}, 9},
        {LN_GAMMA_BATCH, "gamma [2, 1, N]", {0}, 9},
        {LN_BETA_RANK, "beta [2, 1, 1, N]", {0}, 9},
        {LN_EPS_RANK, "eps [1, 1, 1, 1]", {0}, 9},
        {LN_EPS_NEG, "eps < 0", {0}, 9},
        {LN_POW4, "exponent 4", {0}, 9},
        {LN_TWO_RANK, "exponent [1, 1, 1, 1]", {0}, 9},
        {LN_AXES_DIFFER, "second mean over two axes", {0}, 9},
        {LN_AXES_LEADING, "means over axis 1", {0}, 9},
        {LN_KEEP0, "keepdims 0", {0}, 9},
        {LN_SUB_SWAP, "Sub(m, x)", {0}, 9},
        {LN_DIV_SWAP, "Div(s, d)", {0}, 9},
    };
    check_variants(build_norm, vs, (int)(sizeof vs / sizeof vs[0]), "norms");
}

/* The issue's model: a written-out LayerNorm, then Relu; and the same with
 * the Relu already fused into the last Add (what the epilogues did when they
 * ran first). Both against a double-precision LayerNorm + Relu written here;
 * the passes also run in the old order (epilogues, then norms), through
 * passes_internal.h: the norm is then not fused, and the Relu kept. */
static void test_norm_relu(void)
{
    for (int form = 0; form < 3; form++) {
        float *xd;
        ir_graph *g = build_norm(form == 1 ? LN_ACT_ADDB : LN_RELU, &xd);
        if (!g) {
            CHECK(!"norm graph builds");
            continue;
        }
        const float *gm = cdata(g, ir_graph_find(g, "gamma")), *bt = cdata(g, ir_graph_find(g, "beta"));
        double want[2 * 5 * 16];
        for (int row = 0; row < 10; row++) {
            const float *xr = xd + row * 16;
            double mean = 0, var = 0;
            for (int i = 0; i < 16; i++) mean += xr[i] / 16.0;
            for (int i = 0; i < 16; i++) var += (xr[i] - mean) * (xr[i] - mean) / 16.0;
            for (int i = 0; i < 16; i++) {
                double v = (xr[i] - mean) / sqrt(var + 1e-5) * gm[i] + bt[i];
                want[row * 16 + i] = v < 0 ? 0 : v;
            }
        }
        passes_stats ps;
        memset(&ps, 0, sizeof ps);
        pz_err err = {0};
        if (form < 2) {
            CHECK(passes_run_stats(g, NULL, &ps, &err) == PZ_OK);
            CHECK(ps.norms == (form == 0) && ps.acts == 0);
        } else {   /* the old order */
            unsigned char *dead = pz_xcalloc((size_t)g->n_nodes, 1);
            pass_epilogues(g, dead, &ps);
            ir_graph_compact(g, dead);
            free(dead);
            dead = pz_xcalloc((size_t)g->n_nodes, 1);
            pass_norms(g, dead, &ps);
            ir_graph_compact(g, dead);
            free(dead);
            CHECK(ir_graph_sort(g, &err) == PZ_OK);
            CHECK(ps.acts == 1 && ps.norms == 0);
            int b = find_node(g, "addb");
            CHECK(b >= 0 && g->nodes[b].act.kind == IR_ACT_RELU);
        }
        int r = find_node(g, "act");
        if (form == 0) {
            int ln = find_node(g, "mean");
            CHECK(ln >= 0 && !strcmp(g->nodes[ln].op_type, "LayerNormalization"));
            CHECK(r >= 0 && !strcmp(g->nodes[r].op_type, "Relu") && ln >= 0 &&
                  g->nodes[r].in[0] == g->nodes[ln].out[0]);
        }
        check_run(g, xd, want, form == 0 ? 2 : 9, form == 0 ? "norm + relu" : "norm, relu fused");
    }
}

/* epilogue.c: Conv -> Add(c, z) -> Relu, and MatMul -> Add(y, b) -> act. */
enum {
    EP_PLAIN, EP_Z_BCAST, EP_ADD_ACT, EP_CONV_ACT, EP_CONV_Z, EP_C_OUT, EP_ADD_GROWS,
    EP_RELU_OUT2, EP_MM_PLAIN, EP_MM_BIAS_ROWS, EP_MM_ADD_ACT, EP_MM_ACT, EP_MM_GELU_TANH,
    EP_MM_GELU_GROWS,
};

static ir_graph *build_epilogue(int v, float **xd)
{
    rng_state = 4242;
    ir_graph *g = ir_graph_new();
    g->opset = 20;
    int a = ir_graph_add_value(g, "a"), y = ir_graph_add_value(g, "y");
    int c = ir_graph_add_value(g, "c");
    if (v < EP_MM_PLAIN) {
        int x = add_input(g, "x", 4, (int64_t[]){1, 4, 5, 5}, xd);
        int w = add_const(g, "w", 4, (int64_t[]){4, 4, 1, 1}, -1, 1);
        int z = v == EP_Z_BCAST     ? add_const(g, "z", 4, (int64_t[]){1, 4, 1, 1}, -1, 1)
                : v == EP_ADD_GROWS ? add_const(g, "z", 4, (int64_t[]){2, 4, 5, 5}, -1, 1)
                                    : add_const(g, "z", 4, (int64_t[]){1, 4, 5, 5}, -1, 1);
        add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
        add_node(g, "add", "Add", 2, (int[]){z, c}, a);
        if (v != EP_ADD_ACT) add_node(g, "relu", "Relu", 1, (int[]){a}, y);
        ir_graph_add_output(g, v == EP_ADD_ACT ? a : y);
        if (v == EP_C_OUT) ir_graph_add_output(g, c);
        if (v == EP_RELU_OUT2) ir_graph_add_output(g, a);   /* Add's output an output too */
    } else {
        const int64_t K = 8, N = 12;
        int x = add_input(g, "x", 3, (int64_t[]){2, 3, K}, xd);
        int w = add_const(g, "w", 2, (int64_t[]){K, N}, -0.5f, 0.5f);
        int b = v == EP_MM_BIAS_ROWS ? add_const(g, "b", 2, (int64_t[]){3, N}, -1, 1)
                                     : add_const(g, "b", 1, (int64_t[]){N}, -1, 1);
        add_node(g, "mm", "MatMul", 2, (int[]){x, w}, c);
        add_node(g, "add", "Add", 2, (int[]){c, b}, a);
        if (v == EP_MM_GELU_TANH || v == EP_MM_GELU_GROWS) {
            int k = add_node(g, "relu", "Gelu", 1, (int[]){a}, y);
            if (v == EP_MM_GELU_TANH) {
                ir_attr *at = new_attr(g, k, "approximate", IR_ATTR_STRING);
                at->s = pz_xstrdup("tanh");
            }
        } else if (v != EP_MM_ADD_ACT) {
            add_node(g, "relu", "Relu", 1, (int[]){a}, y);
        }
        ir_graph_add_output(g, v == EP_MM_ADD_ACT ? a : y);
    }
    if (!finish(g)) {
        free(*xd);
        ir_graph_free(g);
        return NULL;
    }
    if (v == EP_ADD_ACT || v == EP_MM_ADD_ACT) give_act(g, "add", IR_ACT_RELU);
    if (v == EP_CONV_ACT) give_act(g, "conv", IR_ACT_CLIP);
    if (v == EP_MM_ACT) give_act(g, "mm", IR_ACT_CLIP);
    if (v == EP_CONV_Z) {   /* a Z fused earlier: conv(x) + x */
        ir_node *n = &g->nodes[find_node(g, "conv")];
        ir_node_set_n_in(n, 4);
        n->in[3] = n->in[0];
    }
    return g;
}

/* epilogue.c's preconditions: the consumer that goes plain (an Add with its
 * own act stays), the producer without act and without Z for a residual,
 * no broadcasting of z or of the Add's output, intermediates no graph
 * outputs, the bias along the last axis, a MatMul without act; Gelu in
 * either form. */
static void test_epilogue_preconditions(void)
{
    static const variant vs[] = {
        {EP_PLAIN, "conv add relu", {.residuals = 1, .acts = 1}, 1},
        {EP_Z_BCAST, "z [1, C, 1, 1]: the Conv's bias", {.affine_folded = 1, .acts = 1}, 1},
        {EP_ADD_ACT, "add has an act", {0}, 2},
        {EP_CONV_ACT, "conv has an act", {.acts = 1}, 2},
        {EP_CONV_Z, "conv has a Z", {.acts = 1}, 2},
        {EP_C_OUT, "conv output a graph output", {.acts = 1}, 2},
        {EP_ADD_GROWS, "add broadcasts the conv output", {.acts = 1}, 2},
        {EP_RELU_OUT2, "add output a graph output", {.residuals = 1}, 2},
        {EP_MM_PLAIN, "matmul bias relu", {.biases = 1, .acts = 1}, 1},
        {EP_MM_BIAS_ROWS, "bias [3, N]", {.acts = 1}, 2},
        {EP_MM_ADD_ACT, "bias add has an act", {0}, 2},
        {EP_MM_ACT, "matmul has an act", {.acts = 1}, 2},
        {EP_MM_GELU_TANH, "gelu tanh fused too", {.biases = 1, .acts = 1}, 1},
        {EP_MM_GELU_GROWS, "matmul bias gelu", {.biases = 1, .acts = 1}, 1},
    };
    check_variants(build_epilogue, vs, (int)(sizeof vs / sizeof vs[0]), "epilogues");
}

/* bn_fold.c: Conv(x, W, B) -> BN. */
enum { BN_PLAIN, BN_CONV_ACT, BN_CONV_Z, BN_ACT, BN_TRAIN, BN_C_OUT, BN_C_READ, BN_W_INPUT };

static ir_graph *build_bn(int v, float **xd)
{
    rng_state = 99;
    ir_graph *g = ir_graph_new();
    g->opset = 15;
    const int64_t C = 4;
    int x = add_input(g, "x", 4, (int64_t[]){2, C, 5, 5}, xd);
    int w = add_const(g, "w", 4, (int64_t[]){C, C, 1, 1}, -1, 1);
    int b = add_const(g, "b", 1, (int64_t[]){C}, -1, 1);
    int s = add_const(g, "s", 1, (int64_t[]){C}, 0.5f, 1.5f), bb = add_const(g, "bb", 1, (int64_t[]){C}, -1, 1);
    int mu = add_const(g, "mu", 1, (int64_t[]){C}, -1, 1), var = add_const(g, "var", 1, (int64_t[]){C}, 0.5f, 1);
    int c = ir_graph_add_value(g, "c"), y = ir_graph_add_value(g, "y");
    int r = ir_graph_add_value(g, "r"), wx = ir_graph_add_value(g, "wx");
    if (v == BN_W_INPUT) {   /* W computed from the input: not a constant */
        int m = ir_graph_add_value(g, "xmean");
        add_node(g, "wmean", "ReduceMean", 1, (int[]){x}, m);
        add_node(g, "wadd", "Add", 2, (int[]){w, m}, wx);
        w = wx;
    }
    add_node(g, "conv", "Conv", 3, (int[]){x, w, b}, c);
    int k = add_node(g, "bn", "BatchNormalization", 5, (int[]){c, s, bb, mu, var}, y);
    if (v == BN_TRAIN) attr_int(g, k, "training_mode", 1);
    ir_graph_add_output(g, y);
    if (v == BN_C_OUT) ir_graph_add_output(g, c);
    if (v == BN_C_READ) {
        add_node(g, "relu", "Relu", 1, (int[]){c}, r);
        ir_graph_add_output(g, r);
    }
    if (!finish(g)) {
        free(*xd);
        ir_graph_free(g);
        return NULL;
    }
    if (v == BN_CONV_ACT) give_act(g, "conv", IR_ACT_RELU);
    if (v == BN_ACT) give_act(g, "bn", IR_ACT_CLIP);
    if (v == BN_CONV_Z) {
        ir_node *n = &g->nodes[find_node(g, "conv")];
        ir_node_set_n_in(n, 4);
        n->in[3] = n->in[0];
    }
    return g;
}

/* bn_fold.c's preconditions: the Conv plain (an act between it and the BN,
 * or a Z the folded W and B would not scale, keep the BN), the BN plain and
 * in inference form, the Conv output read by the BN alone and no graph
 * output, W a constant. */
static void test_bn_preconditions(void)
{
    static const variant vs[] = {
        {BN_PLAIN, "conv bn", {.bn_folded = 1}, 1},
        {BN_CONV_ACT, "conv has an act", {0}, 2},
        {BN_CONV_Z, "conv has a Z", {0}, 2},
        {BN_ACT, "bn has an act", {0}, 2},
        {BN_TRAIN, "training_mode 1", {0}, 2},
        {BN_C_OUT, "conv output a graph output", {0}, 2},
        {BN_C_READ, "conv output read twice", {0}, 3},
        {BN_W_INPUT, "W not a constant", {0}, 4},
    };
    check_variants(build_bn, vs, (int)(sizeof vs / sizeof vs[0]), "bn");
}

/* bn_fold.c: Conv(x, W, B) -> Mul | Div | Add | Sub by a constant. */
enum {
    AF_MUL, AF_MUL_LEFT, AF_DIV, AF_ADD, AF_SUB, AF_CHAIN, AF_NO_BIAS, AF_SUB_REV,
    AF_SPATIAL, AF_WIDENS, AF_C_OUT, AF_C_INPUT
};

static ir_graph *build_affine(int v, float **xd)
{
    rng_state = 77;
    ir_graph *g = ir_graph_new();
    g->opset = 15;
    const int64_t C = 4;
    int x = add_input(g, "x", 4, (int64_t[]){1, C, 5, 5}, xd);
    int w = add_const(g, "w", 4, (int64_t[]){C, C, 1, 1}, -1, 1);
    int b = add_const(g, "b", 1, (int64_t[]){C}, -1, 1);
    int k = v == AF_MUL_LEFT ? add_const(g, "k", 0, NULL, 0.5f, 2)
          : v == AF_ADD      ? add_const(g, "k", 1, (int64_t[]){1}, -1, 1)
          : v == AF_SPATIAL  ? add_const(g, "k", 4, (int64_t[]){1, 1, 5, 5}, 0.5f, 2)
          : v == AF_WIDENS   ? add_const(g, "k", 4, (int64_t[]){2, C, 1, 1}, 0.5f, 2)
          : v == AF_DIV      ? add_const(g, "k", 4, (int64_t[]){1, C, 1, 1}, 0.5f, 2)
                             : add_const(g, "k", 3, (int64_t[]){C, 1, 1}, 0.5f, 2);
    if (v == AF_C_INPUT) {   /* c computed from the input: not a constant */
        k = ir_graph_add_value(g, "xmean");
        add_node(g, "kmean", "ReduceMean", 1, (int[]){x}, k);
    }
    int c = ir_graph_add_value(g, "c"), y = ir_graph_add_value(g, "y");
    add_node(g, "conv", "Conv", v == AF_NO_BIAS ? 2 : 3, (int[]){x, w, b}, c);
    const char *op = v == AF_DIV                     ? "Div"
                   : v == AF_ADD                     ? "Add"
                   : v == AF_SUB || v == AF_SUB_REV  ? "Sub"
                                                     : "Mul";
    int left = v == AF_MUL_LEFT || v == AF_SUB_REV;
    add_node(g, "op", op, 2, left ? (int[]){k, c} : (int[]){c, k}, y);
    int out = y;
    if (v == AF_CHAIN) {   /* Mul, then Add of a [C, 1, 1], then Relu: one Conv */
        int t = add_const(g, "t", 3, (int64_t[]){C, 1, 1}, -1, 1);
        int z = ir_graph_add_value(g, "z"), r = ir_graph_add_value(g, "r");
        add_node(g, "add2", "Add", 2, (int[]){t, y}, z);
        add_node(g, "relu", "Relu", 1, (int[]){z}, r);
        out = r;
    }
    ir_graph_add_output(g, out);
    if (v == AF_C_OUT) ir_graph_add_output(g, c);
    if (!finish(g)) {
        free(*xd);
        ir_graph_free(g);
        return NULL;
    }
    return g;
}

/* The affine fold's preconditions: c a finite constant varying along the
 * channel axis alone that does not widen y, y at the Sub's
 * or Div's slot 0, the Conv output read by the op alone. */
static void test_affine_preconditions(void)
{
    static const variant vs[] = {
        {AF_MUL, "conv mul [C,1,1]", {.affine_folded = 1}, 1},
        {AF_MUL_LEFT, "scalar mul conv", {.affine_folded = 1}, 1},
        {AF_DIV, "conv div [1,C,1,1]", {.affine_folded = 1}, 1},
        {AF_ADD, "conv add [1]", {.affine_folded = 1}, 1},
        {AF_SUB, "conv sub [C,1,1]", {.affine_folded = 1}, 1},
        {AF_CHAIN, "conv mul add relu", {.affine_folded = 2, .acts = 1}, 1},
        {AF_NO_BIAS, "conv without bias, mul", {.affine_folded = 1}, 1},
        {AF_SUB_REV, "c - conv", {0}, 2},
        {AF_SPATIAL, "c varies along H, W", {0}, 2},
        {AF_WIDENS, "c widens the batch", {0}, 2},
        {AF_C_OUT, "conv output a graph output", {0}, 2},
        {AF_C_INPUT, "c computed from the input", {0}, 3},
    };
    check_variants(build_affine, vs, (int)(sizeof vs / sizeof vs[0]), "affine");
}

/* gate.c: Conv -> Mul(c, Sigmoid(c)), and the GELU chain. */
enum {
    G_SWISH, G_MUL_ACT, G_MUL_OTHER, G_SIG_OUT, G_GELU, G_GELU_RANK, G_GELU_ADD_ACT,
    G_GELU_MUL_ACT, G_GELU_ERF_OUT, G_GELU_DIV_READ,
};

static ir_graph *build_gate(int v, float **xd)
{
    rng_state = 31337;
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    const int64_t C = 8;
    int x = add_input(g, "x", 4, (int64_t[]){1, C, 3, 3}, xd);
    int w = add_const(g, "w", 4, (int64_t[]){C, C, 1, 1}, -0.6f, 0.6f);
    int c = ir_graph_add_value(g, "c"), y = ir_graph_add_value(g, "y");
    int u[5], extra = ir_graph_add_value(g, "extra");
    char nm[8];
    for (int i = 0; i < 5; i++) {
        snprintf(nm, sizeof nm, "u%d", i);
        u[i] = ir_graph_add_value(g, nm);
    }
    add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
    if (v < G_GELU) {
        add_node(g, "sig", "Sigmoid", 1, (int[]){c}, u[0]);
        add_node(g, "mul", "Mul", 2, (int[]){u[0], v == G_MUL_OTHER ? x : c}, y);
        if (v == G_SIG_OUT) ir_graph_add_output(g, u[0]);
    } else {
        int r2 = add_scalar(g, "r2", (float)M_SQRT2), one = add_scalar(g, "one", 1.0f);
        int half = add_scalar(g, "half", 0.5f);
        if (v == G_GELU_RANK) {   /* 0.5 as [1, 1, 1, 1, 1]: the result gets rank 5 */
            float h = 0.5f;
            half = ir_graph_add_value(g, "half5");
            g->values[half].t = shape_of(5, (int64_t[]){1, 1, 1, 1, 1});
            ir_value_set_data(g, half, &h, sizeof h);
            g->values[half].is_initializer = 1;
        }
        add_node(g, "div", "Div", 2, (int[]){c, r2}, u[0]);
        add_node(g, "erf", "Erf", 1, (int[]){u[0]}, u[1]);
        add_node(g, "add", "Add", 2, (int[]){u[1], one}, u[2]);
        add_node(g, "mul", "Mul", 2, (int[]){c, u[2]}, u[3]);
        add_node(g, "mulh", "Mul", 2, (int[]){u[3], half}, y);
        if (v == G_GELU_ERF_OUT) ir_graph_add_output(g, u[1]);
        if (v == G_GELU_DIV_READ) {
            add_node(g, "extra", "Relu", 1, (int[]){u[0]}, extra);
            ir_graph_add_output(g, extra);
        }
    }
    /* y first: it is the one compared */
    ir_graph_add_output(g, y);
    if (g->n_outputs > 1) {
        int t = g->outputs[0];
        g->outputs[0] = g->outputs[g->n_outputs - 1];
        g->outputs[g->n_outputs - 1] = t;
    }
    if (!finish(g)) {
        free(*xd);
        ir_graph_free(g);
        return NULL;
    }
    if (v == G_MUL_ACT) give_act(g, "mul", IR_ACT_RELU);
    if (v == G_GELU_ADD_ACT) give_act(g, "add", IR_ACT_RELU);
    if (v == G_GELU_MUL_ACT) give_act(g, "mulh", IR_ACT_CLIP);
    return g;
}

/* gate.c's preconditions: the nodes that go plain (an act on the Mul, on the
 * GELU's Add or last Mul keeps them), the Mul reading the Sigmoid's own X,
 * intermediates read once and no graph outputs, and the result of X's shape
 * (a 0.5 of rank 5 broadcasts it). */
static void test_gate_preconditions(void)
{
    static const variant vs[] = {
        /* the Swish, and a Sigmoid left alone, then fuse into the Conv (epilogue.c) */
        {G_SWISH, "swish", {.gates = 1, .acts = 1}, 1},
        {G_MUL_ACT, "mul has an act", {0}, 3},
        {G_MUL_OTHER, "mul(sigmoid(c), x)", {.acts = 1}, 2},
        {G_SIG_OUT, "sigmoid a graph output", {0}, 3},
        {G_GELU, "gelu, then fused into the conv", {.gates = 1, .acts = 1}, 1},
        {G_GELU_RANK, "0.5 of rank 5", {0}, 6},
        {G_GELU_ADD_ACT, "add has an act", {0}, 6},
        {G_GELU_MUL_ACT, "last mul has an act", {0}, 6},
        {G_GELU_ERF_OUT, "erf a graph output", {0}, 6},
        {G_GELU_DIV_READ, "div read twice", {0}, 7},
    };
    check_variants(build_gate, vs, (int)(sizeof vs / sizeof vs[0]), "gates");
}

/* shuffle.c and eliminate.c: a channel shuffle of Conv(x), or x -> Identity
 * / Dropout -> Conv. */
enum { S_PLAIN, S_T_OUT, S_T_READ, S_Y_SHAPE, E_ID, E_ID_OUT, E_DROP_TRAIN0, E_DROP_RATIO_IN };

static ir_graph *build_shuffle(int v, float **xd)
{
    rng_state = 2024;
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    int x = add_input(g, "x", 4, (int64_t[]){1, 6, 2, 2}, xd);
    int w = add_const(g, "w", 4, (int64_t[]){6, 6, 1, 1}, -1, 1);
    int c = ir_graph_add_value(g, "c"), v5 = ir_graph_add_value(g, "v5");
    int t5 = ir_graph_add_value(g, "t5"), y = ir_graph_add_value(g, "y");
    int extra = ir_graph_add_value(g, "extra"), i1 = ir_graph_add_value(g, "i1");
    if (v < E_ID) {
        int s5 = add_const_i64(g, "s5", 5, (int64_t[]){1, 2, 3, 2, 2});
        int s4 = v == S_Y_SHAPE ? add_const_i64(g, "s4", 4, (int64_t[]){1, 6, 4, 1})
                                : add_const_i64(g, "s4", 4, (int64_t[]){1, 6, 2, 2});
        add_node(g, "conv", "Conv", 2, (int[]){x, w}, c);
        add_node(g, "r1", "Reshape", 2, (int[]){c, s5}, v5);
        int k = add_node(g, "tr", "Transpose", 1, (int[]){v5}, t5);
        attr_ints(g, k, "perm", 5, (int64_t[]){0, 2, 1, 3, 4});
        add_node(g, "r2", "Reshape", 2, (int[]){t5, s4}, y);
        ir_graph_add_output(g, y);
        if (v == S_T_OUT) ir_graph_add_output(g, t5);
        if (v == S_T_READ) {
            k = add_node(g, "extra", "Transpose", 1, (int[]){t5}, extra);
            attr_ints(g, k, "perm", 5, (int64_t[]){0, 1, 2, 3, 4});
            ir_graph_add_output(g, extra);
        }
    } else {
        if (v == E_ID || v == E_ID_OUT) {
            add_node(g, "copy", "Identity", 1, (int[]){x}, i1);
        } else {
            int ratio = v == E_DROP_TRAIN0 ? add_scalar(g, "ratio", 0.0f) : -1;
            int tm = ir_graph_add_value(g, "tm");
            g->values[tm].t = (ir_tensor){.dtype = IR_BOOL, .rank = 0};
            unsigned char on = v == E_DROP_TRAIN0;
            ir_value_set_data(g, tm, &on, 1);
            g->values[tm].is_initializer = 1;
            add_node(g, "copy", "Dropout", 3, (int[]){x, ratio, tm}, i1);
        }
        add_node(g, "conv", "Conv", 2, (int[]){i1, w}, y);
        ir_graph_add_output(g, y);
        if (v == E_ID_OUT) ir_graph_add_output(g, i1);
    }
    if (!finish(g)) {
        free(*xd);
        ir_graph_free(g);
        return NULL;
    }
    return g;
}

/* shuffle.c's and eliminate.c's preconditions: intermediates read once and
 * no graph outputs, the result of X's shape; a copy into a graph output
 * stays, a Dropout in training mode with ratio 0 is a copy. */
static void test_shuffle_eliminate_preconditions(void)
{
    static const variant vs[] = {
        {S_PLAIN, "shuffle", {.shuffles = 1}, 2},
        {S_T_OUT, "transpose a graph output", {0}, 4},
        {S_T_READ, "transpose read twice", {0}, 5},
        {S_Y_SHAPE, "result [1, 6, 4, 1]", {0}, 4},
        {E_ID, "identity", {.eliminated = 1}, 1},
        {E_ID_OUT, "identity into a graph output", {0}, 2},
        {E_DROP_TRAIN0, "dropout training ratio 0", {.eliminated = 1}, 1},
        {E_DROP_RATIO_IN, "dropout, training_mode false", {.eliminated = 1}, 1},
    };
    check_variants(build_shuffle, vs, (int)(sizeof vs / sizeof vs[0]), "shuffle/eliminate");
}

/* An act on a node whose op does not apply one (op_def.takes_act 0) is
 * refused when the net is planned, an internal error naming the node: a
 * pass that broke its precondition must not give a silent wrong answer.
 * The same act on an Add (takes_act 1) builds and is applied. */
/* cse.c: two chains x -> Add(x, c) -> LeakyRelu, read by one Mul; the
 * second chain's constant c2 an equal copy of c1, and the variants that
 * break one precondition each. */
enum { C_PLAIN, C_CONST_DIFF, C_ALPHA, C_SWAPPED, C_OUT, C_OUT_FIRST, C_ACT, C_RANDOM };

static ir_graph *build_cse(int v, float **xd)
{
    rng_state = 4242;
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    int x = add_input(g, "x", 2, (int64_t[]){2, 6}, xd);
    int c1 = add_const(g, "c1", 1, (int64_t[]){6}, -1, 1);
    int c2 = ir_graph_add_value(g, "c2");
    g->values[c2].t = g->values[c1].t;
    g->values[c2].t.data = NULL;
    float cd[6];
    memcpy(cd, cdata(g, c1), sizeof cd);
    if (v == C_CONST_DIFF) cd[5] += 0.5f;
    ir_value_set_data(g, c2, cd, sizeof cd);
    g->values[c2].is_initializer = 1;
    int a = ir_graph_add_value(g, "a"), b = ir_graph_add_value(g, "b");
    int ra = ir_graph_add_value(g, "ra"), rb = ir_graph_add_value(g, "rb");
    int y = ir_graph_add_value(g, "y");
    if (v == C_RANDOM) {   /* uniform in [1, 1]: ones, but never merged */
        for (int k = 0; k < 2; k++) {
            int r = add_node(g, k ? "b" : "a", "RandomUniformLike", 1, (int[]){x}, k ? b : a);
            attr_float(g, r, "low", 1.0f);
            attr_float(g, r, "high", 1.0f);
        }
    } else {
        add_node(g, "a", "Add", 2, (int[]){x, c1}, a);
        add_node(g, "b", "Add", 2, v == C_SWAPPED ? (int[]){c2, x} : (int[]){x, c2}, b);
    }
    attr_float(g, add_node(g, "ra", "LeakyRelu", 1, (int[]){a}, ra), "alpha", 0.1f);
    attr_float(g, add_node(g, "rb", "LeakyRelu", 1, (int[]){b}, rb), "alpha",
               v == C_ALPHA ? 0.2f : 0.1f);
    add_node(g, "y", "Mul", 2, (int[]){ra, rb}, y);
    ir_graph_add_output(g, y);   /* first: the one compared */
    if (v == C_OUT) ir_graph_add_output(g, rb);
    if (v == C_OUT_FIRST) ir_graph_add_output(g, ra);
    if (!finish(g)) {
        free(*xd);
        ir_graph_free(g);
        return NULL;
    }
    if (v == C_ACT) give_act(g, "b", IR_ACT_RELU);
    return g;
}

/* cse.c's preconditions: equal constants are one input, a chain merges link
 * by link; a constant differing in one element, another attribute value,
 * the inputs in another order, the later output a graph output (the earlier
 * one may be), an act fused into one copy, a random op: kept. */
static void test_cse_preconditions(void)
{
    static const variant vs[] = {
        {C_PLAIN, "two equal chains", {.cse = 2}, 3},
        {C_CONST_DIFF, "constants differ", {0}, 5},
        {C_ALPHA, "alphas differ", {.cse = 1}, 4},
        {C_SWAPPED, "inputs swapped", {0}, 5},
        {C_OUT, "later output a graph output", {.cse = 1}, 4},
        {C_OUT_FIRST, "earlier output a graph output", {.cse = 2}, 3},
        {C_ACT, "an act on one copy", {0}, 5},
        {C_RANDOM, "random", {0}, 5},
    };
    check_variants(build_cse, vs, (int)(sizeof vs / sizeof vs[0]), "cse");
}

static void test_act_guard(void)
{
    static const int64_t d[2] = {3, 5};
    for (int on_add = 0; on_add < 2; on_add++) {
        ir_graph *g = ir_graph_new();
        g->opset = 13;
        float *xd;
        int x = add_input(g, "x", 2, d, &xd);
        int y = ir_graph_add_value(g, "y");
        ir_graph_add_output(g, y);
        if (on_add) add_node(g, "add", "Add", 2, (int[]){x, x}, y);
        else add_node(g, "sig", "Sigmoid", 1, (int[]){x}, y);
        if (!finish(g)) {
            CHECK(0);
            free(xd);
            ir_graph_free(g);
            continue;
        }
        give_act(g, on_add ? "add" : "sig", IR_ACT_RELU);
        ir_model *m = ir_model_lower(g);
        gen_net gn;
        pz_err err = {0};
        pz_status st = gen_net_build(m, 1, &gn, &err);
        if (on_add) {
            checkf(st == PZ_OK, "act guard: Add with a fused Relu builds (%s)", err.msg);
            if (st == PZ_OK) {
                float out[15];
                void *outs[1] = {out};
                pz_net_run(gn.net, (const void *const[]){xd}, outs);
                int ok = 1;
                for (int i = 0; i < 15; i++) ok &= out[i] == (xd[i] + xd[i] > 0 ? xd[i] + xd[i] : 0);
                check(ok, "act guard: Add with a fused Relu applies it");
                gen_net_free(&gn);
            }
        } else {
            checkf(st == PZ_ERR_INTERNAL && strstr(err.msg, "\"sig\" (Sigmoid)") &&
                       strstr(err.msg, "activation"),
                   "act guard: a Relu fused into a Sigmoid is refused, naming it (got %d: %s)",
                   (int)st, err.msg);
            if (st == PZ_OK) gen_net_free(&gn);
        }
        ir_model_free(m);
        free(xd);
        ir_graph_free(g);
    }
}

static int layer_count(ir_graph *g)
{
    ir_model *m = ir_model_lower(g);
    int n = m->n_layers;
    ir_model_free(m);
    return n;
}

static int count_mode(const char *path)
{
    onnx_load_opts opts = {0};
    pz_err err = {0};
    ir_graph *g = NULL;
    if (onnx_load_file(path, &opts, &g, &err)) {
        fprintf(stderr, "paleozoic: error: %s\n", err.msg);
        return 2;
    }
    int before = layer_count(g);
    passes_stats ps;
    if (passes_run_stats(g, NULL, &ps, &err)) {
        fprintf(stderr, "paleozoic: error: %s\n", err.msg);
        ir_graph_free(g);
        return 1;
    }
    printf("layers before=%d after=%d eliminated=%d bn_folded=%d residuals=%d acts=%d gates=%d "
           "shuffles=%d cse=%d\n",
           before, layer_count(g), ps.eliminated, ps.bn_folded, ps.residuals, ps.acts, ps.gates,
           ps.shuffles, ps.cse);
    ir_graph_free(g);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--count")) return count_mode(argv[2]);
    test_basic_block();
    test_not_fused();
    test_clip_gemm();
    test_eliminate_shared();
    test_eliminate_pad();
    test_bn_relu();
    test_conv_transpose_bn();
    test_variadic();
    test_prelu_legacy();
    test_prelu_epilogue();
    test_prelu_gemm_epilogue();
    test_gates(0);
    test_gates(1);
    test_shuffles();
    test_shuffle_slices();
    test_gelu();
    test_select_masks();
    test_norms();
    test_linear(0);
    test_linear(1);
    test_norm_preconditions();
    test_norm_relu();
    test_epilogue_preconditions();
    test_bn_preconditions();
    test_affine_preconditions();
    test_gate_preconditions();
    test_shuffle_eliminate_preconditions();
    test_act_guard();
    test_cse_preconditions();
    return test_summary("passes");
}
