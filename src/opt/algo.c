/* algo.c - the per-layer algorithm knob: which conv layers run Winograd
 * F(4x4, 3x3) and which run direct convolution.
 *
 * Winograd applies where the runtime's conv op would take its kernel
 * (rt/rows.h, pz_conv_query_make): a 2-D conv with a 3x3 kernel, stride 1,
 * dilation 1, group 1, constant weights and 16-channel input blocks (at
 * least 5 input channels, or fewer from a layer's blocked output), on a
 * CPU with AVX-512 (the only ISA with a Winograd kernel). Where it applies, the optimizer takes it when
 * pz_winograd_pays says so (src/rt/kernels/conv/winograd.h: a cost model, the
 * GEMMs' FLOPs and the transformed weights' traffic against the direct
 * conv's FLOPs, with the layers it was measured on). The runtime's AUTO rule
 * (src/rt/ops/conv.c) is the same function; the optimizer states the choice
 * so that schedules and generated programs show it and users can change it. */
#include <string.h>

#include "../ops/op.h"
#include "../gen/net_build.h"       /* gen_run_isa */
#include "../rt/kernels/kernels.h"
#include "../rt/kernels/conv/winograd.h"  /* pz_winograd_pays */
#include "../rt/rows.h"              /* pz_conv_query_make */
#include "opt_internal.h"

int opt_winograd_applies(const ir_model *m, int li, int64_t shape[4])
{
    const ir_graph *g = m->g;
    const ir_node *n = &g->nodes[m->layers[li].node];
    if (!n->op || strcmp(n->op->name, "Conv") || !n->op->lower) return 0;
    op_lowered low;
    pz_err e = {0};
    if (n->op->lower(g, n, &low, &e) || low.kind != PZ_OP_CONV || low.n_in < 2 || low.n_out < 1 ||
        low.in[0] < 0 || low.in[1] < 0 || low.out[0] < 0)
        return 0;
    const ir_tensor *x = &g->values[low.in[0]].t, *y = &g->values[low.out[0]].t;
    if (x->rank != 4 || y->rank != 4) return 0;
    /* the runtime's rule (rt/rows.h): its conv op would take the Winograd
     * kernel for this layer on AVX-512, the ISA that has one (whether this
     * CPU has it is opt_have_winograd) */
    pz_conv_params cp = low.p.conv;
    cp.algo = PZ_CONV_DIRECT;
    int w_const = g->values[low.in[1]].t.data != NULL &&
                  (low.n_in < 3 || low.in[2] < 0 || g->values[low.in[2]].t.data != NULL);
    int x_blocked = g->values[low.in[0]].t.data == NULL && !g->values[low.in[0]].is_input;
    pz_conv_query q;
    pz_conv_query_make(&cp, 4, x->dims, y->dims, x_blocked, w_const, PZ_ISA_AVX512, &q);
    if (!q.winograd_applies) return 0;
    if (shape) {
        shape[0] = x->dims[1];   /* C */
        shape[1] = y->dims[1];   /* M */
        shape[2] = y->dims[2];   /* OH */
        shape[3] = y->dims[3];   /* OW */
    }
    return 1;
}

int opt_winograd_pays(const ir_model *m, int li)
{
    int64_t s[4];
    return opt_winograd_applies(m, li, s) && pz_winograd_pays(s[0], s[1], s[2], s[3]);
}

int opt_have_winograd(void)
{
    return gen_run_isa() == PZ_ISA_AVX512;
}

int opt_choose_algos(ir_model *m)
{
    int avx512 = opt_have_winograd(), n_wino = 0;
    m->algos_measured = 0;
    for (int i = 0; i < m->n_layers; i++) {
        const ir_node *n = &m->g->nodes[m->layers[i].node];
        if (!n->op || strcmp(n->op->name, "Conv")) {
            m->layers[i].algo = IR_ALGO_AUTO;
            continue;
        }
        int w = avx512 && opt_winograd_pays(m, i);
        m->layers[i].algo = w ? IR_ALGO_WINOGRAD : IR_ALGO_DIRECT;
        n_wino += w;
    }
    return n_wino;
}

/* Measured choice: every layer its own block on `cores` workers; the net is
 * built once with each eligible conv on the rule's algorithm and once with
 * each on the other one, `rounds` times alternately, and each layer's time
 * is taken from the runtime's profiler (median over rounds). A conv runs
 * Winograd when that is at least 3% faster. A sparse layer (the sparsity
 * knob, set before the strategy: cli_lower) is timed on its sparse kernels,
 * the sparse Winograd against the sparse direct conv. Layers' times in the two nets
 * are comparable: both kernels read and write the same blocked layout.
 * Not every conv on Winograd in one net: there one stage's transformed
 * weights push the next stage's out of the caches, and the layers read
 * slower than in the net the rule builds, so the choice would be wrong
 * (bench/RESULTS.md, 'algo: measured choice'). */
int opt_measure_algos(ir_model *m, int cores, int rounds, int quiet, pz_err *err)
{
    int n = m->n_layers, n_wino = 0, n_elig = 0;
    opt_choose_algos(m);   /* the rule, also what stays if nothing applies */
    if (!opt_have_winograd()) return 0;
    int *elig = pz_xcalloc((size_t)(n ? n : 1), sizeof(int));
    int *rule = pz_xcalloc((size_t)(n ? n : 1), sizeof(int));   /* 1: the rule says Winograd */
    for (int i = 0; i < n; i++) {
        n_elig += elig[i] = opt_winograd_applies(m, i, NULL);
        rule[i] = m->layers[i].algo == IR_ALGO_WINOGRAD;
    }
    if (!n_elig) {
        free(elig);
        free(rule);
        return 0;
    }
    if (rounds < 1) rounds = 1;
    int *sizes = pz_xmalloc((size_t)n * sizeof(int)), *mps = pz_xmalloc((size_t)n * sizeof(int));
    opt_each_layer(n, cores, sizes, mps);
    double *t = pz_xmalloc((size_t)2 * rounds * n * sizeof(double));   /* [v][r][layer] */
    lab_meter *mt = lab_meter_new(m, cores, 3);
    int rc = 0;
    for (int r = 0; r < rounds && !rc; r++)
        for (int v = 0; v < 2 && !rc; v++) {
            /* v 0: the rule's algorithm (rule[i]); v 1: the other one */
            for (int i = 0; i < n; i++)
                if (elig[i]) m->layers[i].algo = (rule[i] ^ v) ? IR_ALGO_WINOGRAD : IR_ALGO_DIRECT;
            if (lab_meter_schedule(mt, sizes, mps, n, t + ((size_t)v * rounds + r) * n, err) < 0)
                rc = -1;
        }
    double *col = pz_xmalloc((size_t)rounds * sizeof(double));
    for (int i = 0; i < n && !rc; i++) {
        if (!elig[i]) continue;
        double med[2];   /* [0] Winograd, [1] direct */
        for (int a = 0; a < 2; a++) {
            int v = rule[i] ? a : 1 - a;   /* the variant that ran algorithm a */
            for (int r = 0; r < rounds; r++) col[r] = t[((size_t)v * rounds + r) * n + i];
            med[a] = util_median(col, rounds);
        }
        int w = med[0] < 0.97 * med[1];
        m->layers[i].algo = w ? IR_ALGO_WINOGRAD : IR_ALGO_DIRECT;
        n_wino += w;
        const char *sp = m->layers[i].sparsity != 0 ? "sparse " : "";
        if (!quiet)
            fprintf(stderr, "algo: layer %3d %-40.40s %swinograd %8.3f ms, %sdirect %8.3f ms -> %s%s\n",
                    i, m->g->nodes[m->layers[i].node].name, sp, med[0], sp, med[1],
                    w ? "winograd" : "direct", w == opt_winograd_pays(m, i) ? "" : " (the rule says otherwise)");
    }
    m->algos_measured = !rc;
    lab_meter_free(mt);
    free(col);
    free(t);
    free(sizes);
    free(mps);
    free(elig);
    free(rule);
    return rc ? -1 : n_wino;
}
