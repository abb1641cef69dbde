/* sparsity.c - the per-layer sparsity knob: weight blocks pruned by
 * magnitude at compile time, skipped by the block-sparse kernel at run time.
 *
 * A block is the sparse conv kernel's tile (src/rt/kernels/conv/
 * spconv16c.h): 16 output channels x 16 input channels x one kernel tap of
 * W[M][C][KH][KW]. Pruning a layer to R zeroes its blocks of smallest L1
 * norm (ties: the earlier block) until round(R x blocks) are zero; blocks
 * already zero count first, so pruning twice to R is pruning once. The
 * rule for R = auto (IR_SPARSITY_AUTO): nothing is pruned, the kernel skips
 * the model's own all-zero blocks. R = 0 is the dense kernel, bit for bit
 * the knob off. The runtime takes the sparse kernel wherever the knob is
 * not 0 (pz_conv_params.sparsity) and skips every all-zero block it finds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../ops/op.h"
#include "../rt/kernels/conv/spconv16c.h"
#include "../rt/rows.h"
#include "opt.h"

/* Layer li as the runtime sees it: its lowered conv, X, W, Y; 0 when it
 * is no CONV layer. */
static int lowered_conv(const ir_model *m, int li, op_lowered *low)
{
    const ir_graph *g = m->g;
    const ir_node *n = &g->nodes[m->layers[li].node];
    pz_err e = {0};
    if (!n->op || !n->op->lower || n->op->lower(g, n, low, &e) || low->kind != PZ_OP_CONV ||
        low->n_in < 2 || low->n_out < 1 || low->in[0] < 0 || low->in[1] < 0 || low->out[0] < 0)
        return 0;
    return 1;
}

int opt_sparsity_applies(const ir_model *m, int li, char *why, size_t n)
{
    const ir_graph *g = m->g;
    op_lowered low;
    if (!lowered_conv(m, li, &low)) {
        if (why) snprintf(why, n, "it has no block-sparse kernel (Conv has one)");
        return 0;
    }
    const ir_tensor *x = &g->values[low.in[0]].t, *w = &g->values[low.in[1]].t,
                    *y = &g->values[low.out[0]].t;
    int w_const = w->data != NULL && w->dtype == IR_F32 &&
                  (low.n_in < 3 || low.in[2] < 0 || g->values[low.in[2]].t.data != NULL);
    int x_blocked = g->values[low.in[0]].t.data == NULL && !g->values[low.in[0]].is_input;
    pz_conv_params cp = low.p.conv;
    cp.sparsity = 1;
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
                       "kernel (2-D Conv, group 1, constant weights, 16-channel input blocks)");
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

/* Calls fn on every weight index of block k (ob, ib, tap) of W dims d. */
#define FOR_BLOCK(d, k, idx, body)                                                          \
    do {                                                                                    \
        int64_t taps_ = (d)[2] * (d)[3], cb_ = ((d)[1] + 15) / 16;                          \
        int64_t ob_ = (k) / (cb_ * taps_), ib_ = (k) / taps_ % cb_, t_ = (k) % taps_;       \
        for (int64_t o_ = ob_ * 16; o_ < ob_ * 16 + 16 && o_ < (d)[0]; o_++)                \
            for (int64_t i_ = ib_ * 16; i_ < ib_ * 16 + 16 && i_ < (d)[1]; i_++) {          \
                int64_t idx = (o_ * (d)[1] + i_) * taps_ + t_;                              \
                body;                                                                       \
            }                                                                               \
    } while (0)

static void prune(float *w, const int64_t *d, float r)
{
    int64_t nb = pz_spconv_block_count(d[0], d[1], d[2], d[3]);
    int64_t target = (int64_t)llround((double)r * (double)nb);
    block_norm *bn = pz_xmalloc((size_t)(nb ? nb : 1) * sizeof *bn);
    for (int64_t k = 0; k < nb; k++) {
        double s = 0;
        FOR_BLOCK(d, k, i, s += fabs((double)w[i]));
        bn[k] = (block_norm){s, k};
    }
    qsort(bn, (size_t)nb, sizeof *bn, by_norm);
    for (int64_t j = 0; j < target && j < nb; j++) FOR_BLOCK(d, bn[j].index, i, w[i] = 0.0f);
    free(bn);
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
        prune(w, t->dims, r);
        ir_value_take_data(g, vid, w, t->nbytes);
    }
    return PZ_OK;
}

int opt_sparsity_count(const ir_model *m, int li, int64_t *blocks, int64_t *zero, int64_t *macs,
                       int64_t *skipped)
{
    *blocks = *zero = *macs = *skipped = 0;
    op_lowered low;
    if (m->layers[li].sparsity == 0 || !opt_sparsity_applies(m, li, NULL, 0) ||
        !lowered_conv(m, li, &low))
        return 0;
    const ir_tensor *w = &m->g->values[low.in[1]].t, *y = &m->g->values[low.out[0]].t;
    const float *wd = w->data;
    int64_t pixels = y->dims[0] * y->dims[2] * y->dims[3];
    *blocks = pz_spconv_block_count(w->dims[0], w->dims[1], w->dims[2], w->dims[3]);
    *macs = ir_tensor_numel(w) * pixels;
    for (int64_t k = 0; k < *blocks; k++) {
        int64_t nz = 0, size = 0;
        FOR_BLOCK(w->dims, k, i, (nz += wd[i] != 0.0f, size++));
        if (!nz) {
            ++*zero;
            *skipped += size * pixels;
        }
    }
    return 1;
}
