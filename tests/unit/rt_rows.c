/* rt_rows.c - one rule per fact (issue 37): the redundant MACs that the
 * compiler's halo accounting (src/opt/halo.c, what `paleozoic inspect`
 * prints) reports for a block split in bands equal the ones the runtime's
 * fused run recomputes (rt/fuse.c's plan, pz_net_block_fuse_info: the rows
 * each worker computes of each layer, from the same need_rows walk the
 * workers run), on every ISA path this CPU has, scalar included (PZ_ISA
 * caps the ISA of both: the compiler asks the runtime, rt/rows.h).
 *
 * Random chains of layers: convs (kernels 1/3/5, strides 1/2, dilation 1/2,
 * pads, 3 to 32 channels, outputs about 7 wide, where AVX-512's two-row tiles
 * start), depthwise 3x3, max/average pools, Relu and a same-shaped Add, batch
 * 1 or 2; random partitions into blocks of MP 1 to 3, split bands, strips
 * 0 to 3. A block the runtime runs as one fused run in bands (or on one
 * core) is compared; others (a layer the runtime runs alone, too few rows
 * for bands) are counted and must be no more than those compared. The row
 * rules themselves (rt/rows.c) are checked by hand below. An argument sets
 * the models drawn per ISA (150).
 *
 * Prints `rt_rows: P passed, F failed`; exits 1 on a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/net_build.h"
#include "ops/op_infer.h"
#include "ir/model.h"
#include "ops/op_lower.h"
#include "ops/op.h"
#include "opt/halo.h"
#include "rt/fuse.h"
#include "rt/kernels/kernels.h"
#include "rt/rows.h"

#include "test_check.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int pick(int n)
{
    return (int)(next() % (uint64_t)n);
}

/* ---- hand-made models (as tests/unit/schedule.c) ------------------------- */

static int add_const(ir_graph *g, const char *name, int rank, const int64_t *dims)
{
    int v = ir_graph_add_value(g, name);
    g->values[v].t.dtype = IR_F32;
    g->values[v].t.rank = rank;
    memcpy(g->values[v].t.dims, dims, (size_t)rank * sizeof(int64_t));
    size_t n = (size_t)ir_tensor_numel(&g->values[v].t) * 4;
    float *w = pz_xcalloc(n ? n : 4, 1);
    for (size_t i = 0; i < n / 4; i++) w[i] = (float)((int)(i % 7) - 3) * 0.01f;
    ir_value_set_data(g, v, w, n);
    free(w);
    g->values[v].is_initializer = 1;
    return v;
}

static void set_ints(ir_node *n, const char *name, int count, const int64_t *vals)
{
    n->attrs = pz_xrealloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *n->attrs);
    ir_attr *a = &n->attrs[n->n_attrs++];
    memset(a, 0, sizeof *a);
    a->name = pz_xstrdup(name);
    a->type = IR_ATTR_INTS;
    a->n = count;
    a->ints = pz_xmalloc((size_t)count * sizeof(int64_t));
    memcpy(a->ints, vals, (size_t)count * sizeof(int64_t));
}

static void set_int(ir_node *n, const char *name, int64_t v)
{
    n->attrs = pz_xrealloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *n->attrs);
    ir_attr *a = &n->attrs[n->n_attrs++];
    memset(a, 0, sizeof *a);
    a->name = pz_xstrdup(name);
    a->type = IR_ATTR_INT;
    a->i = v;
}

static ir_node *add_node(ir_graph *g, const char *name, const char *op, int n_in, const int *in,
                         int out)
{
    int k = ir_graph_add_node(g, name, op, "", n_in, 1);
    ir_node *n = &g->nodes[k];
    n->op = op_find(op);
    for (int i = 0; i < n_in; i++) n->in[i] = in[i];
    n->out[0] = out;
    return n;
}

/* The chain's values and their shapes (NCHW), as the generator tracks them. */
typedef struct {
    int v;
    int64_t d[4];
} val;

static int n_nodes;

static val conv(ir_graph *g, val x, int64_t m, int k, int s, int p, int dil, int group)
{
    char wn[32], bn[32], yn[32], nn[32];
    int id = n_nodes++;
    snprintf(nn, sizeof nn, "conv%d", id);
    snprintf(wn, sizeof wn, "conv%d.w", id);
    snprintf(bn, sizeof bn, "conv%d.b", id);
    snprintf(yn, sizeof yn, "conv%d.y", id);
    int w = add_const(g, wn, 4, (int64_t[]){m, x.d[1] / group, k, k});
    int b = add_const(g, bn, 1, (int64_t[]){m});
    val y = {ir_graph_add_value(g, yn), {x.d[0], m, 0, 0}};
    for (int j = 0; j < 2; j++) y.d[2 + j] = (x.d[2 + j] + 2 * p - dil * (k - 1) - 1) / s + 1;
    ir_node *n = add_node(g, nn, "Conv", 3, (int[]){x.v, w, b}, y.v);
    set_ints(n, "pads", 4, (int64_t[]){p, p, p, p});
    set_ints(n, "strides", 2, (int64_t[]){s, s});
    set_ints(n, "dilations", 2, (int64_t[]){dil, dil});
    if (group > 1) set_int(n, "group", group);
    return y;
}

static val pool(ir_graph *g, val x, int avg, int k, int s, int p)
{
    char yn[32], nn[32];
    int id = n_nodes++;
    snprintf(nn, sizeof nn, "pool%d", id);
    snprintf(yn, sizeof yn, "pool%d.y", id);
    val y = {ir_graph_add_value(g, yn), {x.d[0], x.d[1], 0, 0}};
    for (int j = 0; j < 2; j++) y.d[2 + j] = (x.d[2 + j] + 2 * p - k) / s + 1;
    ir_node *n = add_node(g, nn, avg ? "AveragePool" : "MaxPool", 1, &x.v, y.v);
    set_ints(n, "kernel_shape", 2, (int64_t[]){k, k});
    set_ints(n, "pads", 4, (int64_t[]){p, p, p, p});
    set_ints(n, "strides", 2, (int64_t[]){s, s});
    return y;
}

static val eltwise(ir_graph *g, const char *op, val a, const val *b)
{
    char yn[32], nn[32];
    int id = n_nodes++;
    snprintf(nn, sizeof nn, "%s%d", op, id);
    snprintf(yn, sizeof yn, "%s%d.y", op, id);
    val y = a;
    y.v = ir_graph_add_value(g, yn);
    if (b) add_node(g, nn, op, 2, (int[]){a.v, b->v}, y.v);
    else add_node(g, nn, op, 1, &a.v, y.v);
    return y;
}

/* A random chain of 2 to 7 layers on a random input; NULL when the draw
 * shrank the rows below 2 before two layers. */
static ir_model *random_model(char *desc, size_t n)
{
    static const int64_t CH[] = {3, 4, 5, 8, 16, 17, 24, 32};
    static const int64_t WD[] = {3, 5, 6, 7, 8, 9, 13, 14};
    ir_graph *g = ir_graph_new();
    n_nodes = 0;
    val x = {ir_graph_add_value(g, "x"), {1 + (pick(4) == 0), CH[pick(8)], 4 + pick(22), WD[pick(8)]}};
    g->values[x.v].t = (ir_tensor){.dtype = IR_F32, .rank = 4,
                                   .dims = {x.d[0], x.d[1], x.d[2], x.d[3]}};
    ir_graph_add_input(g, x.v);
    int len = snprintf(desc, n, "in %lldx%lldx%lldx%lld:", (long long)x.d[0], (long long)x.d[1],
                       (long long)x.d[2], (long long)x.d[3]);
    val vals[8];
    int nv = 0, want = 2 + pick(6);
    vals[nv++] = x;
    for (int i = 0; i < 40 && nv <= want; i++) {
        val y = x;
        int kind = pick(10);
        char what[64];
        if (kind <= 4) {
            int k = (int[]){1, 3, 3, 5}[pick(4)], s = 1 + (pick(3) == 0), dil = 1 + (pick(4) == 0);
            int p = pick((k - 1) * dil / 2 + 1);
            int64_t m = CH[2 + pick(6)];
            if (x.d[2] + 2 * p < dil * (k - 1) + 1 || x.d[3] + 2 * p < dil * (k - 1) + 1) continue;
            y = conv(g, x, m, k, s, p, dil, 1);
            snprintf(what, sizeof what, " conv%dx%d/%d p%d d%d ->%lld", k, k, s, p, dil,
                     (long long)m);
        } else if (kind <= 6) {
            int s = 1 + (pick(3) == 0);
            y = conv(g, x, x.d[1], 3, s, 1, 1, (int)x.d[1]);
            snprintf(what, sizeof what, " dw3x3/%d", s);
        } else if (kind <= 8) {
            int k = 2 + pick(2), s = 1 + pick(2), p = k == 3 ? pick(2) : 0, avg = pick(2);
            if (x.d[2] + 2 * p < k || x.d[3] + 2 * p < k) continue;
            y = pool(g, x, avg, k, s, p);
            snprintf(what, sizeof what, " %spool%d/%d p%d", avg ? "avg" : "max", k, s, p);
        } else {
            const val *same = NULL;
            for (int j = nv - 2; j >= 0 && !same; j--)
                if (!memcmp(vals[j].d, x.d, sizeof x.d)) same = &vals[j];
            y = eltwise(g, same ? "Add" : "Relu", x, same);
            snprintf(what, sizeof what, same ? " add" : " relu");
        }
        if (y.d[2] < 2 || y.d[3] < 1) break;
        len += snprintf(desc + len, n - (size_t)len, "%s", what);
        vals[nv++] = x = y;
    }
    if (nv < 3) {
        ir_graph_free(g);
        return NULL;
    }
    /* now and then an intermediate is also a graph output (read after its block) */
    if (nv > 3 && pick(4) == 0) {
        ir_graph_add_output(g, vals[1 + pick(nv - 2)].v);
        len += snprintf(desc + len, n - (size_t)len, " (+output)");
    }
    ir_graph_add_output(g, x.v);
    free(g->name);
    g->name = pz_xstrdup("rows");
    pz_err err = {0};
    if (ir_graph_sort(g, &err) || ir_infer(g, &err)) {
        printf("FAIL model: %s: %s\n", desc, err.msg);
        failed++;
        ir_graph_free(g);
        return NULL;
    }
    ir_model *m = ir_model_lower(g);
    /* Winograd would run a conv alone (its scratch): keep every conv direct */
    for (int l = 0; l < m->n_layers; l++) m->layers[l].algo = IR_ALGO_DIRECT;
    return m;
}

static void free_model(ir_model *m)
{
    ir_graph *g = m->g;
    ir_model_free(m);
    ir_graph_free(g);
}

/* ---- the row rules by hand -------------------------------------------------- */

static void test_rules(void)
{
    int64_t lo, hi, r[6];
    pz_rows_window(0, 4, 3, 1, 1, 1, 8, &lo, &hi);
    CHECK(lo == 0 && hi == 5);
    pz_rows_window(2, 4, 3, 2, 1, 1, 8, &lo, &hi);
    CHECK(lo == 3 && hi == 8);
    pz_rows_window(3, 3, 3, 1, 1, 1, 8, &lo, &hi);
    CHECK(lo == 0 && hi == 0);
    lo = 3, hi = 6;
    pz_rows_align(2, 7, &lo, &hi);
    CHECK(lo == 2 && hi == 6);
    lo = 5, hi = 7;
    pz_rows_align(2, 7, &lo, &hi);
    CHECK(lo == 4 && hi == 7);
    pz_rows_band(7, 2, 0, 2, &lo, &hi);   /* 4 pairs: 2 + 2 */
    CHECK(lo == 0 && hi == 4);
    pz_rows_band(7, 2, 1, 2, &lo, &hi);
    CHECK(lo == 4 && hi == 7);
    pz_rows_band(7, 1, 0, 3, &lo, &hi);   /* 3 + 2 + 2 */
    CHECK(lo == 0 && hi == 3);
    pz_rows_band(7, 1, 3, 3, &lo, &hi);
    CHECK(lo == 7 && hi == 7);
    r[0] = 4, r[1] = 8, r[2] = 0, r[3] = 5, r[4] = 6, r[5] = 6;
    CHECK(pz_rows_union(r, 3) == 8);

    /* two-row tiles: AVX-512's direct conv at most 7 wide, never AVX2 or scalar */
    pz_conv_params p = {0};
    p.nsp = 2;
    p.group = 1;
    for (int j = 0; j < 2; j++) p.kernel[j] = 3, p.stride[j] = 1, p.dilation[j] = 1,
                                p.pad_begin[j] = p.pad_end[j] = 1;
    int64_t xd[4] = {1, 32, 7, 7}, yd[4] = {1, 32, 7, 7};
    pz_conv_query q;
    p.algo = PZ_CONV_DIRECT;
    pz_conv_query_make(&p, 4, xd, yd, 1, 1, PZ_ISA_AVX512, &q);
    CHECK(q.path == PZ_CONV_PATH_DIRECT && q.row_step == 2 && q.winograd_applies);
    pz_conv_query_make(&p, 4, xd, yd, 1, 1, PZ_ISA_AVX2, &q);
    CHECK(q.path == PZ_CONV_PATH_DIRECT && q.row_step == 1 && !q.winograd_applies);
    pz_conv_query_make(&p, 4, xd, yd, 1, 1, PZ_ISA_SCALAR, &q);
    CHECK(q.path == PZ_CONV_PATH_DIRECT && q.row_step == 1);
    xd[3] = yd[3] = 8;
    pz_conv_query_make(&p, 4, xd, yd, 1, 1, PZ_ISA_AVX512, &q);
    CHECK(q.row_step == 1);
    /* Winograd: the kernel's rule (16-channel input blocks), so 5 channels
     * apply and 4 from a graph input (NHWC blocks of 4) do not */
    xd[1] = 5;
    pz_conv_query_make(&p, 4, xd, yd, 0, 1, PZ_ISA_AVX512, &q);
    CHECK(q.winograd_applies);
    xd[1] = 4;
    pz_conv_query_make(&p, 4, xd, yd, 0, 1, PZ_ISA_AVX512, &q);
    CHECK(!q.winograd_applies);
    pz_conv_query_make(&p, 4, xd, yd, 1, 1, PZ_ISA_AVX512, &q);
    CHECK(q.winograd_applies);
    p.algo = PZ_CONV_WINOGRAD;
    pz_conv_query_make(&p, 4, xd, yd, 1, 1, PZ_ISA_AVX512, &q);
    /* whole rows of its 4x4 output tiles in fused runs */
    CHECK(q.path == PZ_CONV_PATH_WINOGRAD && q.row_step == 4);
}

/* ---- halo accounting against the runtime's fused runs ----------------------- */

typedef struct {
    int blocks, compared, skipped;
    int redundant;           /* compared blocks with rows recomputed */
} tally;

static void one_model(const char *isa, tally *t)
{
    char desc[512];
    ir_model *m = random_model(desc, sizeof desc);
    if (!m) return;
    int n = m->n_layers, sizes[16], mps[16], nb = 0;
    for (int l = 0; l < n; nb++) {
        int k = pick(3) == 0 ? 1 + pick(n - l) : n - l;   /* mostly one block of the rest */
        sizes[nb] = k;
        mps[nb] = 1 + pick(3);
        l += k;
    }
    pz_err err = {0};
    if (ir_model_partition(m, sizes, mps, nb, 3, &err)) {
        printf("FAIL partition: %s\n", err.msg);
        failed++;
        free_model(m);
        return;
    }
    for (int b = 0; b < m->n_blocks; b++) {
        m->blocks[b].split = IR_SPLIT_BANDS;
        m->blocks[b].strip = pick(4);
    }
    gen_net gn;
    if (gen_net_build(m, 3, &gn, &err)) {
        printf("FAIL %s: %s: build: %s\n", isa, desc, err.msg);
        failed++;
        free_model(m);
        return;
    }
    for (int b = 0; b < m->n_blocks; b++) {
        const ir_fblock *fb = &m->blocks[b];
        pz_fuse_info fi;
        pz_net_block_fuse_info(gn.net, b, &fi);
        t->blocks++;
        /* the runtime runs the block as one fused run, in bands (or on one
         * core): then its recomputed rows are what halo.c counts */
        int whole = fi.runs == 1 && fi.fused_layers == fb->count &&
                    (fi.split == PZ_SPLIT_BANDS || fb->mp == 1);
        if (!whole) {
            t->skipped += fb->count > 1;
            if (getenv("RT_ROWS_VERBOSE") && fb->count > 1)
                printf("skip %s: %s: block %d (layers %d..%d, MP %d): %d runs, %d fused, "
                       "split %d\n", isa, desc, b, fb->first, fb->first + fb->count - 1, fb->mp,
                       fi.runs, fi.fused_layers, (int)fi.split);
            continue;
        }
        halo_report r;
        halo_block(m, fb->first, fb->count, fb->mp, &r);
        t->compared++;
        t->redundant += fi.redundant_macs > 0;
        checkf(r.row_local && r.redundant_macs == fi.redundant_macs,
               "%s: %s: block %d (layers %d..%d, MP %d, strip %d): halo.c %s %lld redundant "
               "MACs, the runtime %lld", isa, desc, b, fb->first, fb->first + fb->count - 1,
               fb->mp, fb->strip, r.row_local ? "counts" : "(not row-local)",
               (long long)r.redundant_macs, (long long)fi.redundant_macs);
        halo_report_free(&r);
    }
    gen_net_free(&gn);
    free_model(m);
}

int main(int argc, char **argv)
{
    int trials = argc > 1 ? atoi(argv[1]) : 150;
    test_rules();
    /* the ISAs this CPU has, capped by the run options as PZ_ISA caps them */
    pz_isa best = pz_cpu_isa();
    static const struct {
        const char *name;
        pz_isa isa;
    } ISAS[] = {{"scalar", PZ_ISA_SCALAR}, {"avx2", PZ_ISA_AVX2}, {"avx512", PZ_ISA_AVX512}};
    for (int i = 0; i < 3; i++) {
        if (ISAS[i].isa > best) continue;
        pz_run_options ro = PZ_RUN_OPTIONS_DEFAULT;
        ro.isa = (int)ISAS[i].isa;
        gen_set_run_options(&ro);   /* the nets gen_net_build makes, and the halo count */
        CHECK(gen_run_isa() == (int)ISAS[i].isa);
        tally t = {0};
        for (int k = 0; k < trials; k++) one_model(ISAS[i].name, &t);
        printf("rt_rows: %s: %d blocks, %d compared (%d with rows recomputed), %d of several "
               "layers skipped (not one run in bands)\n", ISAS[i].name, t.blocks, t.compared,
               t.redundant, t.skipped);
        checkf(t.compared >= t.skipped && t.compared >= trials / 2 && t.redundant >= trials / 4,
               "%s: too few blocks compared (%d of %d, %d with rows recomputed)", ISAS[i].name,
               t.compared, t.blocks, t.redundant);
    }
    return test_summary("rt_rows");
}
