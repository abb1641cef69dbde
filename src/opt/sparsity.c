/* sparsity.c - the per-layer sparsity knob: weight blocks pruned by
 * magnitude at compile time, skipped by the block-sparse kernel at run time.
 *
 * A block is the sparse kernel's tile: on a Conv (src/rt/kernels/conv/
 * spconv16c.h) 16 output channels x 16 input channels x one kernel tap of
 * W[M][C][KH][KW], or x all 9 taps on a conv the Winograd rule takes
 * (opt_winograd_pays, on any CPU, so the pruned model does not depend on
 * it): that block stays zero in the Winograd domain, which the sparse
 * Winograd skips (winograd.h, pz_spwino_plan), and the sparse direct conv
 * skips its 9 taps alike; on a Gemm with a constant B (src/rt/kernels/gemm/
 * spgemm.h) PZ_SPGEMM_KB rows of K x one 32-column panel of B[K][N]
 * (transB: of B as [N][K], the same weights). Pruning a layer to R zeroes its blocks of smallest L1
 * norm (ties: the earlier block) until round(R x blocks) are zero; blocks
 * already zero count first, so pruning twice to R is pruning once. The
 * rule for R = auto (IR_SPARSITY_AUTO): nothing is pruned, the kernel skips
 * the model's own all-zero blocks. R = 0 is the dense kernel, bit for bit
 * the knob off. The runtime takes the sparse kernel wherever the knob is
 * not 0 (pz_conv_params.sparsity, pz_gemm_params.sparsity) and skips every all-zero block it finds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ops/op.h"
#include "../rt/kernels/conv/spconv16c.h"
#include "../rt/kernels/gemm/spgemm.h"
#include "../rt/rows.h"
#include "../rt/kernels/conv/winograd.h"
#include "opt.h"
#include "opt_internal.h"

/* Layer li as the runtime sees it: its lowered conv or GEMM, X (A), W (B),
 * Y; 0 when it is neither. */
static int lowered_conv(const ir_model *m, int li, op_lowered *low)
{
    const ir_graph *g = m->g;
    const ir_node *n = &g->nodes[m->layers[li].node];
    pz_err e = {0};
    if (!n->op || !n->op->lower || n->op->lower(g, n, low, &e) ||
        (low->kind != PZ_OP_CONV && low->kind != PZ_OP_GEMM && low->kind != PZ_OP_MATMUL) ||
        low->n_in < 2 || low->n_out < 1 || low->in[0] < 0 || low->in[1] < 0 || low->out[0] < 0)
        return 0;
    return 1;
}

int opt_sparsity_applies(const ir_model *m, int li, char *why, size_t n)
{
    const ir_graph *g = m->g;
    op_lowered low;
    if (!lowered_conv(m, li, &low)) {
        if (why) snprintf(why, n, "it has no block-sparse kernel (Conv, Gemm, MatMul have one)");
        return 0;
    }
    if (low.kind != PZ_OP_CONV) {
        /* an fp16-weight block (--weights fp16) runs its own dense GEMM */
        for (int k = 0; k < m->n_blocks; k++)
            if (li >= m->blocks[k].first && li < m->blocks[k].first + m->blocks[k].count &&
                m->blocks[k].weights == IR_WEIGHTS_FP16) {
                if (why) snprintf(why, n, "its block stores fp16 weights (--weights fp16), "
                                  "which the block-sparse GEMM does not read");
                return 0;
            }
        const ir_tensor *a = &g->values[low.in[0]].t, *b = &g->values[low.in[1]].t;
        if (b->data && b->dtype == IR_F32 && b->rank == 2 && a->dtype == IR_F32 &&
            (low.kind == PZ_OP_MATMUL || !low.p.gemm.trans_a) &&
            m->layers[li].precision == IR_PREC_FP32)
            return 1;
        if (why)
            snprintf(why, n, "the block-sparse GEMM needs a constant 2-D fp32 B, fp32 A (not "
                     "transposed), fp32 precision");
        return 0;
    }
    const ir_tensor *x = &g->values[low.in[0]].t, *w = &g->values[low.in[1]].t,
                    *y = &g->values[low.out[0]].t;
    int w_const = w->data != NULL && w->dtype == IR_F32 &&
                  (low.n_in < 3 || low.in[2] < 0 || g->values[low.in[2]].t.data != NULL);
    int x_blocked = g->values[low.in[0]].t.data == NULL && !g->values[low.in[0]].is_input;
    pz_conv_params cp = low.p.conv;
    cp.sparsity = 1;
    /* the sparse kernels' epilogue is a clamp (conv.c refuses the others) */
    if (cp.act.kind != PZ_ACT_NONE && cp.act.kind != PZ_ACT_RELU && cp.act.kind != PZ_ACT_CLIP) {
        if (why) snprintf(why, n, "the block-sparse conv fuses only Relu and Clip, not this "
                          "layer's activation");
        return 0;
    }
    pz_conv_query q;
    if (x->rank == 4 && y->rank == 4 && w->rank == 4 && w_const &&
        pz_conv_query_make(&cp, 4, x->dims, y->dims, x_blocked, 1, PZ_ISA_AVX512, &q) ==
            PZ_CONV_PATH_SPARSE)
        return 1;
    if (why)
        snprintf(why, n, "the block-sparse conv needs a 2-D Conv with group 1, constant fp32 "
                 "weights and input in 16-channel blocks (more than 4 input channels)");
    return 0;
}

pz_status opt_sparsity_set_all(ir_model *m, float r, pz_err *err)
{
    int any = 0;
    for (int l = 0; l < m->n_layers; l++)
        if (opt_sparsity_applies(m, l, NULL, 0)) {
            m->layers[l].sparsity = r;
            any = 1;
        }
    if (!any && r != 0)
        return pz_fail(err, PZ_ERR_INPUT, "--sparsity: no layer of this model has a block-sparse "
                       "kernel (2-D Conv, group 1, constant weights, 16-channel input blocks; "
                       "Gemm or MatMul with a constant B)");
    return PZ_OK;
}

typedef struct {
    double l1;
    int64_t index;
} block_norm;

static int by_norm(const void *a, const void *b)
{
    const block_norm *x = a, *y = b;
    if (x->l1 != y->l1) return x->l1 < y->l1 ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* A layer's block geometry: a conv's W dims (whole: a block holds all the
 * taps), or a GEMM's K, N, transB */
typedef struct {
    int gemm, trans_b, whole;
    int64_t d[4];
    int64_t k, n;
} geom;

static int64_t geom_blocks(const geom *g)
{
    if (g->gemm) return pz_spgemm_block_count(g->k, g->n);
    if (g->whole) return pz_spconv_block_count(g->d[0], g->d[1], 1, 1);
    return pz_spconv_block_count(g->d[0], g->d[1], g->d[2], g->d[3]);
}

/* The most weights a block holds: 16 x 16 x 9 taps (a GEMM's: KB x 32) */
#define BLOCK_MAX 2304

/* The weight indices of block b into idx (at most BLOCK_MAX); returns how many.
 * GEMM blocks: panel-major (panel, K block), the kernel's order. */
static int block_index(const geom *g, int64_t b, int64_t *idx)
{
    int c = 0;
    if (g->gemm) {
        int64_t nkb = (g->k + PZ_SPGEMM_KB - 1) / PZ_SPGEMM_KB;
        int64_t c0 = b / nkb * PZ_GEMM_NR, r0 = b % nkb * PZ_SPGEMM_KB;
        for (int64_t r = r0; r < r0 + PZ_SPGEMM_KB && r < g->k; r++)
            for (int64_t j = c0; j < c0 + PZ_GEMM_NR && j < g->n; j++)
                idx[c++] = g->trans_b ? j * g->k + r : r * g->n + j;
        return c;
    }
    const int64_t *d = g->d;
    int64_t taps = d[2] * d[3], cb = (d[1] + 15) / 16, bt = g->whole ? 1 : taps;
    int64_t ob = b / (cb * bt), ib = b / bt % cb, t = b % bt;
    for (int64_t o = ob * 16; o < ob * 16 + 16 && o < d[0]; o++)
        for (int64_t i = ib * 16; i < ib * 16 + 16 && i < d[1]; i++)
            if (g->whole)
                for (int64_t k = 0; k < taps; k++) idx[c++] = (o * d[1] + i) * taps + k;
            else
                idx[c++] = (o * d[1] + i) * taps + t;
    return c;
}

static geom geom_of(const ir_model *m, int li, const op_lowered *low)
{
    const ir_graph *g = m->g;
    const ir_tensor *w = &g->values[low->in[1]].t;
    geom r = {0};
    if (low->kind != PZ_OP_CONV) {   /* GEMM, MATMUL (B never transposed) */
        r.gemm = 1;
        r.trans_b = low->kind == PZ_OP_GEMM && low->p.gemm.trans_b != 0;
        r.k = r.trans_b ? w->dims[1] : w->dims[0];
        r.n = r.trans_b ? w->dims[0] : w->dims[1];
    } else {
        for (int i = 0; i < 4; i++) r.d[i] = w->dims[i];
        r.whole = w->dims[2] * w->dims[3] * 256 <= BLOCK_MAX && opt_winograd_pays(m, li);
    }
    return r;
}

static void prune(float *w, const geom *gm, float r)
{
    int64_t nb = geom_blocks(gm), idx[BLOCK_MAX];
    int64_t target = (int64_t)llround((double)r * (double)nb);
    block_norm *bn = pz_xmalloc((size_t)(nb ? nb : 1) * sizeof *bn);
    for (int64_t k = 0; k < nb; k++) {
        double s = 0;
        for (int i = 0, c = block_index(gm, k, idx); i < c; i++) s += fabs((double)w[idx[i]]);
        bn[k] = (block_norm){s, k};
    }
    qsort(bn, (size_t)nb, sizeof *bn, by_norm);
    for (int64_t j = 0; j < target && j < nb; j++)
        for (int i = 0, c = block_index(gm, bn[j].index, idx); i < c; i++) w[idx[i]] = 0.0f;
    free(bn);
}

/* Fractions of W's 16 x 16 x one-tap blocks and 16 x 16 x 9 blocks with a
 * weight. */
static void densities(const ir_tensor *w, double *tap_nz, double *blk_nz)
{
    const float *wd = w->data;
    const int64_t M = w->dims[0], C = w->dims[1], K = w->dims[2] * w->dims[3];
    const int64_t MB = (M + 15) / 16, CB = (C + 15) / 16;
    int64_t taps = 0, blks = 0;
    for (int64_t ob = 0; ob < MB; ob++)
        for (int64_t ib = 0; ib < CB; ib++) {
            int any = 0;
            for (int64_t k = 0; k < K; k++) {
                int nz = 0;
                for (int64_t o = ob * 16; o < ob * 16 + 16 && o < M && !nz; o++)
                    for (int64_t i = ib * 16; i < ib * 16 + 16 && i < C && !nz; i++)
                        nz = wd[(o * C + i) * K + k] != 0.0f;
                taps += nz;
                any |= nz;
            }
            blks += any;
        }
    *tap_nz = MB * CB > 0 ? (double)taps / (double)(MB * CB * K) : 0;
    *blk_nz = MB * CB > 0 ? (double)blks / (double)(MB * CB) : 0;
}

/* Each sparse conv the optimizer left on Winograd: the sparse Winograd
 * where pz_spwino_pays says it beats the sparse direct conv on the pruned
 * weights (the layer stays IR_ALGO_WINOGRAD: the runtime's conv op takes
 * the sparse Winograd), else direct (IR_ALGO_DIRECT: the sparse direct).
 * Not after a measured choice (m->algos_measured). */
static void choose_sparse_algos(ir_model *m)
{
    if (m->algos_measured) return;   /* timed on the sparse kernels: that choice stands */
    for (int l = 0; l < m->n_layers; l++) {
        op_lowered low;
        int64_t s[4];
        if (m->layers[l].sparsity == 0 || m->layers[l].algo != IR_ALGO_WINOGRAD ||
            !lowered_conv(m, l, &low) || low.kind != PZ_OP_CONV || !opt_winograd_applies(m, l, s))
            continue;
        double tap_nz, blk_nz;
        densities(&m->g->values[low.in[1]].t, &tap_nz, &blk_nz);
        if (!pz_spwino_pays(s[0], s[1], s[2], s[3], tap_nz, blk_nz))
            m->layers[l].algo = IR_ALGO_DIRECT;
    }
}

pz_status opt_sparsity_prune(ir_model *m, pz_err *err)
{
    ir_graph *g = m->g;
    for (int l = 0; l < m->n_layers; l++) {
        float r = m->layers[l].sparsity;
        const ir_node *n = &g->nodes[m->layers[l].node];
        if (r == 0) continue;
        char why[300];
        if (r != IR_SPARSITY_AUTO && !(r > 0 && r < 1))
            return pz_fail(err, PZ_ERR_INPUT, "layer %d \"%s\" (%s): sparsity %g is out of range "
                           "(0 to 1, 1 excluded, or auto)", l, n->name, n->op_type, (double)r);
        if (!opt_sparsity_applies(m, l, why, sizeof why))
            return pz_fail(err, PZ_ERR_INPUT, "layer %d \"%s\" (%s): sparsity %g cannot be "
                           "honoured: %s", l, n->name, n->op_type, (double)r, why);
        if (r == IR_SPARSITY_AUTO) continue;
        op_lowered low;
        lowered_conv(m, l, &low);
        int vid = low.in[1];
        if (ir_graph_count_uses(g, vid) > 1)
            return pz_fail(err, PZ_ERR_INPUT, "layer %d \"%s\" (%s): its weights \"%s\" are read "
                           "by another node too; pruning them would change it", l, n->name,
                           n->op_type, g->values[vid].name);
        const ir_tensor *t = &g->values[vid].t;
        float *w = pz_xmalloc(t->nbytes ? t->nbytes : 1);
        memcpy(w, t->data, t->nbytes);
        geom gm = geom_of(m, l, &low);
        prune(w, &gm, r);
        ir_value_take_data(g, vid, w, t->nbytes);
    }
    choose_sparse_algos(m);
    return PZ_OK;
}

int opt_sparse_winograd(const ir_model *m, int li)
{
    op_lowered low;
    return m->layers[li].sparsity != 0 && m->layers[li].algo == IR_ALGO_WINOGRAD &&
           opt_have_winograd() && lowered_conv(m, li, &low) && low.kind == PZ_OP_CONV &&
           opt_winograd_applies(m, li, NULL);
}

int opt_sparsity_count(const ir_model *m, int li, int64_t *blocks, int64_t *zero, int64_t *macs,
                       int64_t *skipped, const char **algo)
{
    *blocks = *zero = *macs = *skipped = 0;
    op_lowered low;
    if (m->layers[li].sparsity == 0 || !opt_sparsity_applies(m, li, NULL, 0) ||
        !lowered_conv(m, li, &low))
        return 0;
    const ir_tensor *w = &m->g->values[low.in[1]].t, *y = &m->g->values[low.out[0]].t;
    const float *wd = w->data;
    geom gm = geom_of(m, li, &low);
    int wino = !gm.gemm && opt_sparse_winograd(m, li);
    *algo = gm.gemm ? "gemm" : wino ? "winograd" : "direct";
    /* the output pixels (a GEMM: the rows of A) each block multiplies; on
     * the sparse Winograd each (output, input channel) pair costs 36 MACs a
     * tile and a block skips all its pairs' */
    int64_t pixels = gm.gemm ? (gm.n ? ir_tensor_numel(y) / gm.n : 0)
                             : y->dims[0] * y->dims[2] * y->dims[3], idx[BLOCK_MAX];
    int64_t per = 1;   /* MACs per weight and output pixel (Winograd: per pair and tile) */
    if (wino) {
        pixels = y->dims[0] * ((y->dims[2] + 3) / 4) * ((y->dims[3] + 3) / 4);
        per = PZ_WINO_NPT;
    }
    *blocks = geom_blocks(&gm);
    *macs = (wino ? w->dims[0] * w->dims[1] : ir_tensor_numel(w)) * pixels * per;
    for (int64_t k = 0; k < *blocks; k++) {
        int64_t nz = 0, size = block_index(&gm, k, idx);
        for (int i = 0; i < size; i++) nz += wd[idx[i]] != 0.0f;
        if (!nz) {
            ++*zero;
            *skipped += (wino ? size / (w->dims[2] * w->dims[3]) : size) * pixels * per;
        }
    }
    return 1;
}
