/* bn_fold.c - BatchNormalization, and a Mul, Div, Add or Sub by a constant
 * per output channel, folded into the Conv (or ConvTranspose) that feeds
 * it. Each is per output channel m an affine map y' = y * s[m] + t[m]:
 *   BN:  s[m] = scale[m] / sqrt(var[m] + eps),  t[m] = bias[m] - mean[m] * s[m]
 *   Mul(y, c) / Mul(c, y): s = c, t = 0;   Div(y, c): s = 1 / c, t = 0
 *   Add(y, c) / Add(c, y): s = 1, t = c;   Sub(y, c): s = 1, t = -c
 * (ONNX Runtime's ConvMulFusion and ConvAddFusion; exporters write a BN or
 * a scale so), and x = conv(X, W)[m] + B[m] is linear in W's slice of
 * channel m, so
 *   W'[m, ...] = W[m, ...] * s[m],   B'[m] = B[m] * s[m] + t[m]
 * give one Conv with the same result (within float rounding: computed in
 * double, stored in W's type). The pass walks again while it folds, so a
 * Conv, Mul, Add chain becomes one Conv.
 *
 * Folded only when all of this is proven, else both stay as they are:
 *   - the Conv plain (pass_plain: no act, which would come between the Conv
 *     and the BN, and no Z, which W' and B' would not scale) and its output
 *     float32 of M channels (dim 1), read by the BN alone (slot 0), once,
 *     and no graph output;
 *   - W and B (if any) float32 constants, B of M values;
 *   - the BN plain (no act, nothing fused) and in inference form:
 *     training_mode 0 (or absent), statistics per channel (spatial 1 before
 *     opset 9), its four statistics constant 1-D [M] floats, its training
 *     outputs (1..4) not read and no graph outputs, its output 0 present;
 *   - the Mul, Div, Add or Sub plain, the Conv's output its input 0 (either
 *     input of a Mul or an Add), c a float32 constant that varies along the
 *     channel axis alone and does not widen y (rank <= y's, each dim 1 but
 *     the one aligned with dim 1, which is 1 or M: [M,1,1], [1,M,1,1], [1],
 *     a scalar), every c finite, a Div's c not 0 (1 / c finite too).
 * W and B are overwritten when this Conv is their only reader, else the
 * folded copies are new constants "<W>:bn", "<B>:bn" (or "<conv>:bias"). */
#include <math.h>
#include <string.h>

#include "passes_internal.h"

/* Output channel of W's element e: Conv W [M, C/G, k...];
 * ConvTranspose W [C, M/G, k...], channel (c / (C/G)) * (M/G) + j. */
static int64_t channel_of(const ir_tensor *w, int transpose, int64_t group, int64_t e)
{
    int64_t per0 = ir_tensor_numel(w) / w->dims[0];   /* elements per W[i] */
    if (!transpose) return e / per0;
    int64_t k = per0 / w->dims[1];                    /* kernel elements */
    int64_t c = e / per0, j = (e / k) % w->dims[1];
    int64_t c_per_group = w->dims[0] / group;
    return (c / c_per_group) * w->dims[1] + j;
}

/* The Conv's group attribute (1 if absent or unreadable; fold() refuses
 * a group < 1). */
static int64_t conv_group(const ir_node *n)
{
    int64_t group = 1;
    pz_err ignored = {0};
    if (op_attr_int(n, "group", 1, &group, &ignored) || group < 1) return 1;
    return group;
}

/* Whether the BN node's statistics (inputs 1..4) can be folded for m channels. */
static int stats_ok(const ir_graph *g, const ir_node *bn, int64_t m)
{
    if (bn->n_in != 5) return 0;
    /* training_mode=1 normalises with the batch's own statistics: not affine */
    const ir_attr *tm = op_attr(bn, "training_mode");
    if (tm && (tm->type != IR_ATTR_INT || tm->i != 0)) return 0;
    /* spatial=0 (before opset 9): statistics per activation, not per channel */
    const ir_attr *sp = op_attr(bn, "spatial");
    if (g->opset < 9 && sp && (sp->type != IR_ATTR_INT || sp->i != 1)) return 0;
    if (!pass_plain(g, bn) || bn->n_out < 1 || bn->out[0] < 0) return 0;
    for (int k = 1; k < 5; k++) {
        const ir_tensor *t = op_in_const(g, bn, k);
        if (!t || t->rank != 1 || t->dims[0] != m || !ir_dtype_is_float(t->dtype)) return 0;
    }
    for (int k = 1; k < bn->n_out; k++) {   /* training outputs: nobody reads them */
        int v = bn->out[k];
        if (v >= 0 && (g->values[v].is_output || ir_graph_count_uses(g, v))) return 0;
    }
    return 1;
}

/* The value to write folded data for `vid` into: vid itself when this node
 * is its only reader, else a new constant named `name` (made unique). */
static int writable(ir_graph *g, int vid, const ir_tensor *like, const char *name)
{
    if (vid >= 0 && g->values[vid].owns_data && !g->values[vid].is_output &&
        !g->values[vid].is_input && ir_graph_count_uses(g, vid) == 1)
        return vid;
    int nv = ir_graph_add_value_unique(g, name);
    ir_value *v = &g->values[nv];
    v->t = *like;
    v->t.data = NULL;
    v->t.nbytes = 0;
    v->is_initializer = 1;
    return nv;
}

/* BN node bn's s and t for m channels (stats_ok checked), in double. */
static void bn_affine(const ir_graph *g, const ir_node *bn, int64_t m, double *s, double *t)
{
    float eps = 1e-5f;
    pz_err ignored = {0};   /* attributes were checked at load */
    if (op_attr_float(bn, "epsilon", 1e-5f, &eps, &ignored)) eps = 1e-5f;
    const ir_tensor *sc = op_in(g, bn, 1), *bb = op_in(g, bn, 2), *mean = op_in(g, bn, 3),
                    *var = op_in(g, bn, 4);
    for (int64_t k = 0; k < m; k++) {
        s[k] = ir_load_f64(sc->data, sc->dtype, (size_t)k) /
               sqrt(ir_load_f64(var->data, var->dtype, (size_t)k) + (double)eps);
        t[k] = ir_load_f64(bb->data, bb->dtype, (size_t)k) -
               ir_load_f64(mean->data, mean->dtype, (size_t)k) * s[k];
    }
}

/* The element-wise node e (Mul, Div, Add, Sub) reading value y of rank yr
 * and m channels at dim 1 as an affine map per channel: 1 with s and t
 * set when it is one (the header's conditions), else 0. */
static int eltwise_affine(const ir_graph *g, const ir_node *e, int slot, int yr, int64_t m,
                          double *s, double *t)
{
    int mul = pass_is(e, OP_mul), dv = pass_is(e, OP_div), add = pass_is(e, OP_add),
        sub = pass_is(e, OP_sub);
    if (!(mul || dv || add || sub) || e->n_in != 2 || !pass_plain(g, e)) return 0;
    if ((dv || sub) && slot != 0) return 0;   /* c / y, c - y: not of the form */
    const ir_tensor *c = op_in_const(g, e, 1 - slot);
    if (!c || c->dtype != IR_F32 || c->rank > yr) return 0;
    int64_t per = 0;   /* c's stride along the channel axis: 0 if it broadcasts there */
    for (int i = 0; i < c->rank; i++) {
        int j = yr - c->rank + i;   /* the dim of y this dim of c aligns with */
        if (c->dims[i] == 1) continue;
        if (j != 1 || c->dims[i] != m) return 0;
        per = 1;
    }
    for (int64_t k = 0; k < m; k++) {
        double v = ((const float *)c->data)[per * k];
        if (!isfinite(v) || (dv && v == 0.0)) return 0;
        s[k] = mul ? v : dv ? 1.0 / v : 1.0;
        t[k] = add ? v : sub ? -v : 0.0;
        if (!isfinite(s[k])) return 0;
    }
    return 1;
}

/* Folds y' = y * s + t per channel into conv node c and makes it write node
 * b's output 0 (b then dead). */
static void fold(ir_graph *g, int c, int b, int64_t m, const double *s, const double *t)
{
    ir_node *conv = &g->nodes[c];
    int transpose = pass_is(conv, OP_conv_transpose);
    int64_t group = conv_group(conv);
    const ir_tensor *w = op_in_const(g, conv, 1), *bias = op_in(g, conv, 2);
    double *nb = pz_xmalloc((size_t)m * sizeof *nb);
    for (int64_t k = 0; k < m; k++)
        nb[k] = (bias ? ir_load_f64(bias->data, bias->dtype, (size_t)k) : 0.0) * s[k] + t[k];

    /* W' (a copy first: writable() may add values and move g->values) */
    ir_tensor wt = *w;
    size_t n = (size_t)ir_tensor_numel(w);
    float *wd = pz_xmalloc(n ? n * sizeof(float) : 1);
    for (size_t e = 0; e < n; e++)
        wd[e] = (float)(((const float *)w->data)[e] * s[channel_of(w, transpose, group, (int64_t)e)]);
    int bvid = conv->n_in > 2 ? conv->in[2] : -1;
    char wname[512], bname[512];
    snprintf(wname, sizeof wname, "%s:bn", g->values[conv->in[1]].name);
    if (bvid >= 0) snprintf(bname, sizeof bname, "%s:bn", g->values[bvid].name);
    else snprintf(bname, sizeof bname, "%s:bias", conv->name);
    int wv = writable(g, conv->in[1], &wt, wname);
    ir_value_set_data(g, wv, wd, n * sizeof(float));
    free(wd);

    ir_tensor bt = {.dtype = IR_F32, .rank = 1, .dims = {m}};
    float *bd = pz_xmalloc((size_t)m * sizeof(float));
    for (int64_t k = 0; k < m; k++) bd[k] = (float)nb[k];
    int bv = writable(g, bvid, &bt, bname);
    ir_value_set_data(g, bv, bd, (size_t)m * sizeof(float));
    free(bd);
    free(nb);

    conv = &g->nodes[c];
    if (conv->n_in < 3) ir_node_set_n_in(conv, 3);
    conv->in[1] = wv;
    conv->in[2] = bv;
    conv->out[0] = g->nodes[b].out[0];   /* the Conv now writes b's output */
}

pz_status pass_fold_bn(ir_graph *g, unsigned char *dead, passes_stats *st, pz_err *err)
{
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; i < g->n_nodes; i++) {
            ir_node *n = &g->nodes[i];
            if (dead[i] || (!pass_is(n, OP_conv) && !pass_is(n, OP_conv_transpose))) continue;
            const ir_tensor *w = op_in_const(g, n, 1), *bias = op_in(g, n, 2);
            if (!w || w->dtype != IR_F32 || w->rank < 3 || !w->dims[0] || !w->dims[1]) continue;
            if (bias && (!bias->data || bias->dtype != IR_F32)) continue;
            if (!pass_plain(g, n) || n->n_out < 1 || n->out[0] < 0) continue;
            /* the map is per channel: dim 1 of the Conv's output, M channels */
            const ir_tensor *y = &g->values[n->out[0]].t;
            int64_t m = pass_is(n, OP_conv_transpose) ? w->dims[1] * conv_group(n) : w->dims[0];
            if (y->dtype != IR_F32 || y->rank < 2 || y->dims[1] != m) continue;
            if (bias && ir_tensor_numel(bias) != m) continue;
            int slot, b = pass_sole_reader(g, n->out[0], &slot);
            if (b < 0 || dead[b]) continue;
            const ir_node *r = &g->nodes[b];
            double *s = pz_xmalloc((size_t)m * sizeof *s), *t = pz_xmalloc((size_t)m * sizeof *t);
            int is_bn = pass_is(r, OP_batch_normalization) && slot == 0 && stats_ok(g, r, m);
            if (is_bn) bn_affine(g, r, m, s, t);
            if (is_bn || eltwise_affine(g, r, slot, y->rank, m, s, t)) {
                fold(g, i, b, m, s, t);
                pass_kill(g, b, dead);
                if (is_bn) st->bn_folded++;
                else st->affine_folded++;
                again = 1;
            }
            free(s);
            free(t);
        }
    }
    (void)err;
    return PZ_OK;
}
