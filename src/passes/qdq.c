/* qdq.c - a quantized model's QDQ pattern around a Conv folded into one
 * QLinearConv (issue 41): the int8 convolution a quantizer meant, run by the
 * QCONV layer's int8 kernels instead of dequantizing to float32 and back.
 *
 *   DequantizeLinear(xq, sx, zx) ---------------.
 *   DequantizeLinear(wq, sw, zw) -> Conv(x, w, b) [-> Relu | Clip]
 *                                    -> QuantizeLinear(., sy, zy)
 * becomes
 *   QLinearConv(xq, sx, zx, wq, sw, zw, sy, zy, B) with act Relu/Clip,
 * B[m] = nearbyint(b[m] / (sx * sw[m])) as int32 (the bias a quantizer
 * writes is DequantizeLinear(int32 with scale sx * sw), which this gives
 * back; infer folded it to floats). The activation is kept as the node's act
 * and applied in the quantized domain by the QCONV layer: QuantizeLinear is
 * monotonic and maps 0 to zy, so Q(Relu(v)) = max(Q(v), zy) and Q(Clip(v,
 * lo, hi)) = clamp(Q(v), Q(lo), Q(hi)), the same values.
 *
 * The one difference from the float graph is the rounding of the bias to
 * int32, which is what ONNX Runtime's QDQ folding does too. Folded only when
 * all of this holds, else the graph stays as it is:
 *   - the Conv plain, 2-D (X rank 4), group 1 or depthwise, its X the output of a plain
 *     DequantizeLinear of a uint8/int8 value with a constant float32 scalar
 *     scale and zero point (or none); its W the output of a DequantizeLinear
 *     of a constant int8/uint8 tensor with a constant float32 scale (one, or
 *     one per output channel on axis 0) and zero point;
 *   - its bias, if any, a constant float32 [M];
 *   - the Conv's output (and the Relu/Clip's) read by one node alone, no
 *     graph output; the Clip's bounds constants;
 *   - the QuantizeLinear plain, per tensor (a float32 scalar scale), its
 *     zero point a constant uint8/int8 scalar, saturating, no output_dtype
 *     other than its zero point's.
 * The DequantizeLinears of X and W go when nothing else reads their outputs.
 *
 * A residual block's Add, DequantizeLinear(aq), DequantizeLinear(bq) -> Add
 * [-> Relu] -> QuantizeLinear, becomes QLinearAdd (com.microsoft's, as ONNX
 * Runtime folds it; ops/qlinear_add.c), one pass over the bytes rounding as
 * ORT's QLinearAdd (a value on a rounding tie may land one step from the
 * float graph's, as in ORT): A, B and the output of one 8-bit type and one shape,
 * the DequantizeLinears per tensor with constant scalars, the Relu and the
 * QuantizeLinear as above.
 *
 * Then a QLinearAdd whose operand a QLinearConv (group 1, no act) alone
 * writes goes into that conv as its residual (fold_conv_sum): the conv's
 * int8 kernel adds it as it writes y (rt/kernels/quant/qconv16c.h).
 *
 * A fully connected layer, DequantizeLinear(aq), DequantizeLinear(int8 W) ->
 * Gemm [-> Relu | Clip] -> QuantizeLinear, becomes QGemm (com.microsoft's;
 * ops/qgemm.c), and a last Gemm whose float output nobody quantizes becomes
 * QGemm with float32 out (fold_gemm says the conditions). A MaxPool between
 * a DequantizeLinear and a QuantizeLinear of the same scale and zero point
 * pools the quantized tensor itself. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* The node producing value vid (live), or -1. */
static int producer(const ir_graph *g, int vid, const unsigned char *dead)
{
    if (vid < 0) return -1;
    int p = g->values[vid].producer;
    if (p >= 0 && p < g->n_nodes && !dead[p]) {
        const ir_node *n = &g->nodes[p];
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] == vid) return p;
    }
    return -1;
}

static int q8(int dt)
{
    return dt == IR_U8 || dt == IR_I8;
}

/* A constant float32 of one element (or m elements when m > 1). */
static const float *const_f32(const ir_graph *g, const ir_node *n, int i, int64_t m)
{
    const ir_tensor *t = op_in_const(g, n, i);
    if (!t || t->dtype != IR_F32) return NULL;
    const int64_t ne = ir_tensor_numel(t);
    return ne == 1 || (m > 1 && t->rank == 1 && ne == m) ? t->data : NULL;
}

/* A DequantizeLinear's zero point: absent, or a constant of x's type with
 * the scale's element count. */
static int zp_ok(const ir_graph *g, const ir_node *dq, int dt, int64_t ne)
{
    if (dq->n_in < 3 || dq->in[2] < 0) return 1;
    const ir_tensor *z = op_in_const(g, dq, 2);
    return z && (int)z->dtype == dt && ir_tensor_numel(z) == ne;
}

/* The DequantizeLinear producing value vid, per tensor or per channel
 * along axis `ax` of m channels; -1 if it is not one. */
static int dq_axis(const ir_graph *g, int vid, const unsigned char *dead, int64_t m,
                   int want_const, int ax)
{
    int p = producer(g, vid, dead);
    if (p < 0) return -1;
    const ir_node *dq = &g->nodes[p];
    if (!pass_is(dq, OP_dequantize_linear) || !pass_plain(g, dq) || dq->n_in < 2 ||
        dq->in[0] < 0)
        return -1;
    const ir_tensor *x = &g->values[dq->in[0]].t;
    if (!q8(x->dtype) || (want_const && !x->data)) return -1;
    const ir_tensor *s = op_in(g, dq, 1);
    const float *sv = const_f32(g, dq, 1, m);
    if (!sv || !zp_ok(g, dq, x->dtype, ir_tensor_numel(s))) return -1;
    int64_t axis = 1;
    pz_err ignored = {0};
    if (ir_tensor_numel(s) > 1 &&
        (op_attr_int(dq, "axis", 1, &axis, &ignored) || (axis != ax && axis != ax - x->rank)))
        return -1;
    const ir_attr *bs = op_attr(dq, "block_size");
    if (bs && (bs->type != IR_ATTR_INT || bs->i != 0)) return -1;
    return p;
}

static int dq_of(const ir_graph *g, int vid, const unsigned char *dead, int64_t m, int want_const)
{
    return dq_axis(g, vid, dead, m, want_const, 0);
}

/* A scalar zero point constant of type dt (0), owned by the graph. */
static int zero_point(ir_graph *g, const char *base, int dt, int64_t n)
{
    int v = ir_graph_add_value_unique(g, base);
    ir_value *val = &g->values[v];
    memset(&val->t, 0, sizeof val->t);
    val->t.dtype = (ir_dtype)dt;
    val->t.rank = n > 1 ? 1 : 0;
    val->t.dims[0] = n;
    val->is_initializer = 1;
    void *z = pz_xcalloc((size_t)n, 1);
    ir_value_take_data(g, v, z, (size_t)n);
    return v;
}

/* The int32 bias nearbyint(b[j] / (sa * sb[j])), a new constant. */
static int bias_q(ir_graph *g, const char *base, const float *bias, int64_t m, float sa,
                  const float *sb, int per_m)
{
    int32_t *bq = pz_xmalloc((size_t)m * sizeof *bq);
    for (int64_t i = 0; i < m; i++) {
        const double s = (double)(sa * sb[per_m ? i : 0]);
        double v = s > 0 ? nearbyint(bias[i] / s) : 0;
        v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
        bq[i] = (int32_t)v;
    }
    char name[256];
    snprintf(name, sizeof name, "%s:bias_q", base ? base : "node");
    int bv = ir_graph_add_value_unique(g, name);
    ir_value *val = &g->values[bv];
    memset(&val->t, 0, sizeof val->t);
    val->t.dtype = IR_I32;
    val->t.rank = 1;
    val->t.dims[0] = m;
    val->is_initializer = 1;
    ir_value_take_data(g, bv, bq, (size_t)m * sizeof *bq);
    return bv;
}

/* The QuantizeLinear reading value vid alone, per tensor into uint8/int8
 * with a constant zero point; -1 if not. */
static int q_after(const ir_graph *g, int vid, const unsigned char *dead)
{
    int slot, r = pass_sole_reader(g, vid, &slot);
    if (r < 0 || dead[r] || slot != 0) return -1;
    const ir_node *q = &g->nodes[r];
    if (!pass_is(q, OP_quantize_linear) || !pass_plain(g, q) || q->n_in < 3 || q->in[2] < 0 ||
        q->n_out < 1 || q->out[0] < 0 || !const_f32(g, q, 1, 1))
        return -1;
    const ir_tensor *z = op_in_const(g, q, 2);
    if (!z || !q8(z->dtype) || ir_tensor_numel(z) != 1) return -1;
    int64_t sat = 1, odt = 0;
    pz_err ignored = {0};
    if (op_attr_int(q, "saturate", 1, &sat, &ignored) || !sat ||
        op_attr_int(q, "output_dtype", 0, &odt, &ignored) || (odt && odt != (int64_t)z->dtype))
        return -1;
    return r;
}

/* Tries the pattern at Conv node c; 1 if it folded. */
static int fold_conv(ir_graph *g, int c, unsigned char *dead)
{
    ir_node *conv = &g->nodes[c];
    if (!pass_is(conv, OP_conv) || !pass_plain(g, conv) || conv->n_in < 2 || conv->n_in > 3 ||
        conv->in[0] < 0 || conv->in[1] < 0 || conv->n_out < 1 || conv->out[0] < 0)
        return 0;
    const ir_tensor *x = &g->values[conv->in[0]].t, *w = &g->values[conv->in[1]].t;
    const ir_tensor *y = &g->values[conv->out[0]].t;
    if (x->rank != 4 || w->rank != 4 || x->dtype != IR_F32 || y->dtype != IR_F32) return 0;
    /* group 1 or depthwise: what the int8 kernels take; another grouped conv
     * stays float (the float kernels beat the int8 reference) */
    if (w->dims[1] != x->dims[1] && !(w->dims[1] == 1 && w->dims[0] == x->dims[1])) return 0;
    const int64_t m = w->dims[0];
    const int dx = dq_of(g, conv->in[0], dead, 1, 0);
    const int dw = dq_of(g, conv->in[1], dead, m, 1);
    if (dx < 0 || dw < 0) return 0;
    const float *bias = NULL;
    if (conv->n_in == 3 && conv->in[2] >= 0) {
        const ir_tensor *b = op_in_const(g, conv, 2);
        if (!b || b->dtype != IR_F32 || ir_tensor_numel(b) != m) return 0;
        bias = b->data;
    }
    /* the output chain: [Relu | Clip] then QuantizeLinear */
    ir_act act = {.kind = IR_ACT_NONE};
    int a = -1, slot, yv = conv->out[0];
    int r = pass_sole_reader(g, yv, &slot);
    if (r < 0 || dead[r] || slot != 0) return 0;
    if ((pass_is(&g->nodes[r], OP_relu) || pass_is(&g->nodes[r], OP_clip)) &&
        pass_plain(g, &g->nodes[r]) && g->nodes[r].out[0] >= 0) {
        if (pass_is(&g->nodes[r], OP_relu)) act.kind = IR_ACT_RELU;
        else if (pass_clip_bounds(g, &g->nodes[r], &act.lo, &act.hi)) act.kind = IR_ACT_CLIP;
        else return 0;
        a = r;
        yv = g->nodes[r].out[0];
    }
    const int q = q_after(g, yv, dead);
    if (q < 0) return 0;

    /* the int32 bias, from the float one the scales give back */
    const ir_node *ndx = &g->nodes[dx], *ndw = &g->nodes[dw];
    const float sx = *const_f32(g, ndx, 1, 1);
    const ir_tensor *swt = op_in(g, ndw, 1);
    const float *sw = swt->data;
    const int per_m = ir_tensor_numel(swt) > 1;
    const int bv = bias ? bias_q(g, conv->name, bias, m, sx, sw, per_m) : -1;
    /* zero points the DequantizeLinears left out: zeros of their types */
    ndx = &g->nodes[dx], ndw = &g->nodes[dw];
    int zx = ndx->n_in > 2 ? ndx->in[2] : -1, zw = ndw->n_in > 2 ? ndw->in[2] : -1;
    const int xq = ndx->in[0], wq = ndw->in[0], sxv = ndx->in[1], swv = ndw->in[1];
    if (zx < 0) zx = zero_point(g, "x_zero_point:0", g->values[xq].t.dtype, 1);
    if (zw < 0)
        zw = zero_point(g, "w_zero_point:0", g->values[wq].t.dtype,
                        ir_tensor_numel(&g->values[swv].t));
    const ir_node *nq = &g->nodes[q];
    const int syv = nq->in[1], zyv = nq->in[2], out = nq->out[0];

    conv = &g->nodes[c];
    const int old_x = conv->in[0], old_w = conv->in[1];
    ir_node_set_n_in(conv, bias ? 9 : 8);
    const int ins[9] = {xq, sxv, zx, wq, swv, zw, syv, zyv, bv};
    for (int k = 0; k < conv->n_in; k++) conv->in[k] = ins[k];
    /* Conv's attributes parse as QLinearConv's, and its inputs were checked */
    /* QLinearConv's parse tells it from ConvInteger by op_type */
    free(conv->op_type);
    conv->op_type = pz_xstrdup("QLinearConv");
    PZ_ASSERT(pass_become(g, conv, OP_qlinear_conv));
    conv->act = act;
    const int old_y = conv->out[0];
    conv->out[0] = out;
    g->values[out].producer = c;
    g->values[old_y].producer = -1;
    pz_err e = {0};
    PZ_ASSERT(conv->op->infer(g, conv, &e) == PZ_OK);   /* resolves auto_pad, as load did */
    if (a >= 0) pass_kill(g, a, dead);
    pass_kill(g, q, dead);
    /* the DequantizeLinears of X and W go with their last reader (W's is
     * not always folded to a constant: infer leaves large ones to run) */
    if (!g->values[old_x].is_output && ir_graph_count_uses(g, old_x) == 0) pass_kill(g, dx, dead);
    if (!g->values[old_w].is_output && ir_graph_count_uses(g, old_w) == 0) pass_kill(g, dw, dead);
    return 1;
}

/* Tries the residual pattern at Add node i: DequantizeLinear(aq),
 * DequantizeLinear(bq) -> Add [-> Relu] -> QuantizeLinear becomes
 * QLinearAdd(aq, sa, za, bq, sb, zb, sc, zc) with the Relu as its act;
 * 1 if it folded. */
static int fold_add(ir_graph *g, int i, unsigned char *dead)
{
    ir_node *add = &g->nodes[i];
    if (!pass_is(add, OP_add) || !pass_plain(g, add) || add->n_in != 2 || add->in[0] < 0 ||
        add->in[1] < 0 || add->n_out < 1 || add->out[0] < 0)
        return 0;
    const ir_tensor *y = &g->values[add->out[0]].t;
    if (y->dtype != IR_F32 || !pass_same_shape(y, &g->values[add->in[0]].t) ||
        !pass_same_shape(y, &g->values[add->in[1]].t))
        return 0;
    int d[2];
    for (int k = 0; k < 2; k++)
        if ((d[k] = dq_of(g, add->in[k], dead, 1, 0)) < 0) return 0;
    const int ta = g->values[g->nodes[d[0]].in[0]].t.dtype;
    if ((int)g->values[g->nodes[d[1]].in[0]].t.dtype != ta) return 0;
    ir_act act = {.kind = IR_ACT_NONE};
    int a = -1, slot, yv = add->out[0];
    int r = pass_sole_reader(g, yv, &slot);
    if (r < 0 || dead[r]) return 0;
    if (pass_is(&g->nodes[r], OP_relu) && pass_plain(g, &g->nodes[r]) && g->nodes[r].out[0] >= 0) {
        act.kind = IR_ACT_RELU;
        a = r;
        yv = g->nodes[r].out[0];
    }
    const int q = q_after(g, yv, dead);
    if (q < 0 || (int)g->values[g->nodes[q].out[0]].t.dtype != ta) return 0;

    int ins[8];
    for (int k = 0; k < 2; k++) {
        const ir_node *dq = &g->nodes[d[k]];
        ins[3 * k] = dq->in[0];
        ins[3 * k + 1] = dq->in[1];
        ins[3 * k + 2] = dq->n_in > 2 && dq->in[2] >= 0 ? dq->in[2]
                                                       : zero_point(g, "zero_point:0", ta, 1);
    }
    ins[6] = g->nodes[q].in[1];
    ins[7] = g->nodes[q].in[2];
    const int out = g->nodes[q].out[0], old_in[2] = {g->nodes[i].in[0], g->nodes[i].in[1]};
    add = &g->nodes[i];
    ir_node_set_n_in(add, 8);
    for (int k = 0; k < 8; k++) add->in[k] = ins[k];
    free(add->op_type);
    add->op_type = pz_xstrdup("QLinearAdd");
    free(add->domain);
    add->domain = pz_xstrdup("com.microsoft");
    PZ_ASSERT(pass_become(g, add, OP_qlinear_add));   /* no attributes to parse */
    add->act = act;
    g->values[add->out[0]].producer = -1;
    add->out[0] = out;
    g->values[out].producer = i;
    pz_err e = {0};
    PZ_ASSERT(add->op->infer(g, add, &e) == PZ_OK);   /* the checks above are its own */
    if (a >= 0) pass_kill(g, a, dead);
    pass_kill(g, q, dead);
    for (int k = 0; k < 2; k++)
        if (!dead[d[k]] && !g->values[old_in[k]].is_output &&
            ir_graph_count_uses(g, old_in[k]) == 0)
            pass_kill(g, d[k], dead);
    return 1;
}

/* Tries the fully connected pattern at Gemm node i: DequantizeLinear(aq)
 * [M, K], DequantizeLinear(int8 W) -> Gemm(transA 0, alpha 1, beta 1, bias
 * a constant float32 [N] or [1, N]) [-> Relu | Clip] -> QuantizeLinear
 * becomes QGemm with y's scale; a Gemm whose output nobody quantizes (a
 * logits layer, no Relu/Clip) becomes QGemm without one, float32 out. W's
 * scale per tensor or per column N (axis 0 of a transB W [N, K], axis 1 of
 * W [K, N]). 1 if it folded. */
static int fold_gemm(ir_graph *g, int i, unsigned char *dead)
{
    ir_node *gm = &g->nodes[i];
    if (!pass_is(gm, OP_gemm) || !pass_plain(g, gm) || gm->n_in < 2 || gm->n_in > 3 ||
        gm->in[0] < 0 || gm->in[1] < 0 || gm->n_out < 1 || gm->out[0] < 0)
        return 0;
    int64_t ta = 0, tb = 0;
    float alpha = 1, beta = 1;
    pz_err ignored = {0};
    if (op_attr_int(gm, "transA", 0, &ta, &ignored) || op_attr_int(gm, "transB", 0, &tb, &ignored) ||
        op_attr_float(gm, "alpha", 1, &alpha, &ignored) ||
        op_attr_float(gm, "beta", 1, &beta, &ignored) || ta != 0 || (tb != 0 && tb != 1) ||
        alpha != 1 || beta != 1)
        return 0;
    const ir_tensor *x = &g->values[gm->in[0]].t, *w = &g->values[gm->in[1]].t;
    if (x->rank != 2 || w->rank != 2 || x->dtype != IR_F32) return 0;
    const int64_t nn = w->dims[1 - tb];
    const int da = dq_of(g, gm->in[0], dead, 1, 0);
    const int dw = dq_axis(g, gm->in[1], dead, nn, 1, tb ? 0 : 1);
    if (da < 0 || dw < 0 || g->values[g->nodes[dw].in[0]].t.dtype != IR_I8) return 0;
    const ir_tensor *wz = op_in_const(g, &g->nodes[dw], 2);
    for (int64_t k = 0; wz && k < ir_tensor_numel(wz); k++)
        if (((const int8_t *)wz->data)[k]) return 0;
    const float *bias = NULL;
    if (gm->n_in == 3 && gm->in[2] >= 0) {
        const ir_tensor *b = op_in_const(g, gm, 2);
        if (!b || b->dtype != IR_F32 || ir_tensor_numel(b) != nn ||
            (b->rank == 2 && b->dims[0] != 1) || b->rank > 2)
            return 0;
        bias = b->data;
    }
    ir_act act = {.kind = IR_ACT_NONE};
    int a = -1, slot, yv = gm->out[0], q = -1;
    int r = pass_sole_reader(g, yv, &slot);
    if (r >= 0 && !dead[r] && slot == 0 &&
        (pass_is(&g->nodes[r], OP_relu) || pass_is(&g->nodes[r], OP_clip)) &&
        pass_plain(g, &g->nodes[r]) && g->nodes[r].out[0] >= 0) {
        if (pass_is(&g->nodes[r], OP_relu)) act.kind = IR_ACT_RELU;
        else if (pass_clip_bounds(g, &g->nodes[r], &act.lo, &act.hi)) act.kind = IR_ACT_CLIP;
        else return 0;
        a = r;
        yv = g->nodes[r].out[0];
    }
    q = q_after(g, yv, dead);
    if (q < 0 && act.kind != IR_ACT_NONE) return 0;   /* float out takes no act */

    const ir_node *nda = &g->nodes[da], *ndw = &g->nodes[dw];
    const ir_tensor *swt = op_in(g, ndw, 1);
    int bv = -1;
    if (bias)
        bv = bias_q(g, gm->name, bias, nn, *const_f32(g, nda, 1, 1), swt->data,
                    ir_tensor_numel(swt) > 1);
    nda = &g->nodes[da], ndw = &g->nodes[dw];
    const int aq = nda->in[0], sav = nda->in[1], wq = ndw->in[0], swv = ndw->in[1];
    int za = nda->n_in > 2 ? nda->in[2] : -1, zw = ndw->n_in > 2 ? ndw->in[2] : -1;
    if (za < 0) za = zero_point(g, "a_zero_point:0", g->values[aq].t.dtype, 1);
    if (zw < 0) zw = zero_point(g, "b_zero_point:0", IR_I8, ir_tensor_numel(&g->values[swv].t));
    int ins[9] = {aq, sav, za, wq, swv, zw, bv, -1, -1}, nin = bias ? 7 : 6, out = -1;
    if (q >= 0) {
        ins[7] = g->nodes[q].in[1];
        ins[8] = g->nodes[q].in[2];
        nin = 9;
        out = g->nodes[q].out[0];
    }
    const int old_a = g->nodes[i].in[0], old_w = g->nodes[i].in[1];
    gm = &g->nodes[i];
    ir_node_set_n_in(gm, nin);
    for (int k = 0; k < nin; k++) gm->in[k] = ins[k];
    free(gm->op_type);
    gm->op_type = pz_xstrdup("QGemm");
    free(gm->domain);
    gm->domain = pz_xstrdup("com.microsoft");
    PZ_ASSERT(pass_become(g, gm, OP_qgemm));   /* Gemm's attributes, checked above */
    gm->act = act;
    if (q >= 0) {
        g->values[gm->out[0]].producer = -1;
        gm->out[0] = out;
        g->values[out].producer = i;
        pass_kill(g, q, dead);
    }
    if (a >= 0) pass_kill(g, a, dead);
    pz_err e = {0};
    PZ_ASSERT(gm->op->infer(g, gm, &e) == PZ_OK);
    if (!g->values[old_a].is_output && ir_graph_count_uses(g, old_a) == 0) pass_kill(g, da, dead);
    if (!g->values[old_w].is_output && ir_graph_count_uses(g, old_w) == 0) pass_kill(g, dw, dead);
    return 1;
}

/* Whether inputs ka of node a and kb of node b are constants of one type
 * and the same bytes (absent on both counts as equal). */
static int same_const(const ir_graph *g, const ir_node *a, int ka, const ir_node *b, int kb)
{
    const ir_tensor *x = op_in(g, a, ka), *y = op_in(g, b, kb);
    if (!x || !y) return !x && !y;
    return x->data && y->data && x->dtype == y->dtype && x->nbytes == y->nbytes &&
           !memcmp(x->data, y->data, x->nbytes);
}

/* Tries DequantizeLinear(xq) -> MaxPool -> QuantizeLinear with the same
 * scale and zero point at MaxPool node i: the MaxPool reads xq and writes
 * the QuantizeLinear's output (max commutes with a monotonic map, and
 * Q(DQ(v)) = v for one scale and zero point). 1 if it folded. */
static int fold_maxpool(ir_graph *g, int i, unsigned char *dead)
{
    ir_node *mp = &g->nodes[i];
    if (!pass_is(mp, OP_max_pool) || !pass_plain(g, mp) || mp->n_in != 1 || mp->in[0] < 0 ||
        mp->out[0] < 0 || g->values[mp->in[0]].t.rank != 4)
        return 0;
    const int d = dq_of(g, mp->in[0], dead, 1, 0);
    const int q = d < 0 ? -1 : q_after(g, mp->out[0], dead);
    if (q < 0) return 0;
    const ir_node *nd = &g->nodes[d], *nq = &g->nodes[q];
    const int zd = nd->n_in > 2 && nd->in[2] >= 0;
    if (!same_const(g, nd, 1, nq, 1) || !zd || !same_const(g, nd, 2, nq, 2)) return 0;
    const int old_x = mp->in[0], xq = nd->in[0], out = nq->out[0];
    mp->in[0] = xq;
    g->values[mp->out[0]].producer = -1;
    mp->out[0] = out;
    g->values[out].producer = i;
    pass_kill(g, q, dead);
    pz_err e = {0};
    PZ_ASSERT(mp->op->infer(g, mp, &e) == PZ_OK);   /* MaxPool takes uint8 and int8 */
    if (!g->values[old_x].is_output && ir_graph_count_uses(g, old_x) == 0) pass_kill(g, d, dead);
    return 1;
}

/* Tries the residual epilogue at QLinearAdd node i (as fold_add makes it):
 * an operand, A then B, written by a QLinearConv of group 1 without act or
 * residual, read by the add alone and no graph output; the conv takes the
 * other operand as its residual Z (inputs 9-13: Z, its scale and zero
 * point, the sum's scale and zero point), z_b 1 when its y was the add's
 * B (the order of ONNX Runtime's arithmetic, qdq.h), the add's Relu as its
 * act, and the add's output. The graph is sorted again after the passes
 * (Z may be written after the conv in the old order). 1 if it fused. */
static int fold_conv_sum(ir_graph *g, int i, unsigned char *dead)
{
    const ir_node *add = &g->nodes[i];
    if (!pass_is(add, OP_qlinear_add) || add->n_in != 8 || add->n_out != 1 ||
        add->out[0] < 0 || (add->act.kind != IR_ACT_NONE && add->act.kind != IR_ACT_RELU))
        return 0;
    for (int k = 0; k < 8; k++)
        if (add->in[k] < 0) return 0;
    for (int k = 0; k < 2; k++) {
        const int yv = add->in[3 * k], c = producer(g, yv, dead);
        int slot;
        if (c < 0 || pass_sole_reader(g, yv, &slot) != i || slot != 3 * k) continue;
        const ir_node *conv = &g->nodes[c];
        if (!pass_is(conv, OP_qlinear_conv) || conv->n_in > 9 || conv->act.kind != IR_ACT_NONE ||
            conv->n_out != 1)
            continue;
        const ir_tensor *x = op_in(g, conv, 0), *w = op_in(g, conv, 3);
        if (!x || !w || x->rank != 4 || w->rank != 4 || w->dims[1] != x->dims[1])
            continue;   /* group 1 (W's C/group is X's C): the int8 direct conv */
        const int o = 3 * (1 - k);
        const int ins[5] = {add->in[o], add->in[o + 1], add->in[o + 2], add->in[6], add->in[7]};
        const int out = add->out[0], nb = conv->n_in;
        const ir_act act = add->act;
        pass_kill(g, i, dead);
        ir_node *cv = &g->nodes[c];
        ir_node_set_n_in(cv, 14);
        if (nb < 9) cv->in[8] = -1;
        for (int j = 0; j < 5; j++) cv->in[9 + j] = ins[j];
        ir_node_add_attr_int(cv, "z_b", k);
        PZ_ASSERT(pass_become(g, cv, OP_qlinear_conv));   /* parses z_b */
        cv->act = act;
        g->values[cv->out[0]].producer = -1;
        cv->out[0] = out;
        g->values[out].producer = c;
        pz_err e = {0};
        PZ_ASSERT(cv->op->infer(g, cv, &e) == PZ_OK);   /* QLinearAdd's checks were Z's */
        return 1;
    }
    return 0;
}

void pass_qdq(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && (fold_conv(g, i, dead) || fold_add(g, i, dead) ||
                         fold_gemm(g, i, dead) || fold_maxpool(g, i, dead)))
            st->qdq++;
    /* then the residual adds into the convs (both folded above) */
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && fold_conv_sum(g, i, dead)) st->residuals++;
}
