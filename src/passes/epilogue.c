/* epilogue.c - work after a Conv, Gemm or Add fused into it (the runtime
 * applies it as the kernel writes its output, without another pass over
 * memory):
 *
 *   Conv -> Add(conv, z) [-> Relu | Clip]   Conv(X, W, B, Z) with act
 *   Conv | Gemm | Add -> Relu | Clip         the producer with act
 *   ConvTranspose -> Relu | Clip             the same (DCGAN's generators)
 *   BatchNormalization -> Relu | Clip        the same (inference; a BN that did
 *                                            not fold: DenseNet's pre-activation)
 *   Gemm | MatMul [-> views] -> Add(y, z)    Gemm(A, B, C, Z) / MatMul(A, B, bias, Z):
 *                                            the residual of a transformer block
 *                                            (attention out, FFN2), added by the
 *                                            packed GEMM's epilogue
 *   Conv | Gemm | MatMul -> Gelu | LeakyRelu | Sigmoid | Swish | HardSigmoid |
 *            HardSwish | Tanh | Elu | Selu | Softplus | Mish
 *                                            the producer with act (SiLU after
 *                                            YOLO's and EfficientNet's convs,
 *                                            HardSwish after MobileNetV3's, GELU
 *                                            after ConvNeXt's linear layers)
 *   Conv [-> Add(conv, z)] -> PRelu          Conv(X, W, B, Z, S) with act PRELU: S
 *                                            the M slopes, one per output channel
 *                                            (PyTorch's nn.PReLU; the face models')
 *   Gemm | MatMul [-> Add] -> PRelu          Gemm(A, B, C, Z, S) / MatMul(A, B, bias,
 *                                            Z, S) with act PRELU: S the N slopes,
 *                                            one per column (nn.Linear -> nn.PReLU)
 *   Conv | Gemm | MatMul -> Where(Cmp(y, c), A, B)
 *                                            the producer with act SELECT or
 *                                            LEAKY_RELU (select.c: a piecewise
 *                                            activation as exporters write it)
 *   Conv | Gemm | MatMul -> Cmp(y, c) [-> Not] -> bool read as it is
 *                                            the producer writing the bool, its
 *                                            act SELECT carrying the comparison,
 *                                            c a scalar or one per channel
 *                                            (select.c's pass_fuse_mask)
 *   MatMul -> Add(y, bias) [-> Relu | Clip | Gelu | ...]
 *                                            MatMul(A, B, bias) with act: a
 *                                            linear layer (ConvNeXt's MLP); B a
 *                                            constant 2-D matrix, bias N constant
 *                                            floats along the last axis (the
 *                                            runtime's packed GEMM does it all as
 *                                            it writes Y)
 *
 * The residual goes in before the activation (the runtime computes
 * act(conv + B + Z)), so an Add after an activation is not fused. The
 * fused node takes the consumer's output value, and keeps its own name.
 * Fused only when all of this holds, else the graph stays as it is:
 *   - the producer's output float32, not a constant, read by the consumer
 *     alone (once) and no graph output;
 *   - the consumer plain (pass_plain: no act of its own, no fused inputs):
 *     it goes, and nothing it carries may go with it;
 *   - a residual: the producer a Conv without act and without Z; z and the
 *     Add's output of the Conv output's type and shape (no broadcasting);
 *   - a GEMM residual: the producer a float32 Gemm (constant B, transA 0)
 *     or a linear MatMul, without act and without Z; between it and the
 *     Add only views that keep the elements' order (Reshape, Flatten,
 *     Squeeze, Unsqueeze, a Transpose moving unit dims only), each plain
 *     and its value read by the next alone; z of the Add's output type and
 *     shape (no broadcasting), neither the product nor a view of it. Z is
 *     read as an input (the arena keeps it live through the layer, and Y
 *     gets its own bytes), so other readers of z are not affected;
 *   - a bias: the producer a linear MatMul (constant 2-D B) without act and
 *     bias; the bias N constant floats along the last axis; the Add's
 *     output of the MatMul output's shape;
 *   - an activation: the producer without act, the activation reading it
 *     in slot 0, its output of the producer output's type and shape; Clip's
 *     bounds constants with lo <= hi; the unary_act kinds (Gelu either
 *     form) after a Conv, a Gemm or a linear MatMul only, their attributes
 *     finite; PRelu after a Conv, a Gemm or a
 *     linear MatMul, its slope a constant float32 that varies along the
 *     channel axis alone: a Conv's axis 1 ([M, 1, 1], [1], [1, M, 1, 1],
 *     ...; a [M] of a 4-D Conv broadcasts along W: not fused), a Gemm's or
 *     MatMul's last axis ([N], [1, N], [1], a scalar; one per row, [M, 1],
 *     is not fused). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

int pass_clip_bounds(const ir_graph *g, const ir_node *n, float *lo, float *hi)
{
    float b[2] = {-INFINITY, INFINITY};
    if (g->opset < 11) {
        pz_err ignored = {0};
        if (op_attr_float(n, "min", -INFINITY, &b[0], &ignored) ||
            op_attr_float(n, "max", INFINITY, &b[1], &ignored))
            return 0;
    } else {
        for (int k = 0; k < 2; k++) {
            if (n->n_in <= 1 + k || n->in[1 + k] < 0) continue;
            const ir_tensor *t = op_in_const(g, n, 1 + k);
            if (!t || ir_tensor_numel(t) != 1 || !ir_dtype_is_float(t->dtype)) return 0;
            b[k] = (float)ir_load_f64(t->data, t->dtype, 0);
        }
    }
    if (isnan(b[0]) || isnan(b[1]) || b[0] > b[1]) return 0;
    *lo = b[0];
    *hi = b[1];
    return 1;
}

static int same_f32_shape(const ir_tensor *a, const ir_tensor *b)
{
    return a->dtype == IR_F32 && pass_same_shape(a, b);
}

/* A float32 MatMul whose B is a constant 2-D matrix (N, K > 0): without a
 * bias, or with the one this pass fused (a third input). */
static int linear_matmul(const ir_graph *g, const ir_node *n)
{
    if (!pass_is(n, OP_matmul) || n->n_in < 2 || n->n_in > 3 || n->in[0] < 0 || n->in[1] < 0)
        return 0;
    const ir_tensor *a = &g->values[n->in[0]].t, *b = &g->values[n->in[1]].t;
    return a->dtype == IR_F32 && b->dtype == IR_F32 && b->data && b->rank == 2 &&
           b->dims[0] > 0 && b->dims[1] > 0;
}

/* z: N constant floats that broadcast along the last axis of y (dims 1 but
 * the last, which is N), of rank <= y's. */
static int bias_along_last(const ir_tensor *z, const ir_tensor *y, int64_t nn)
{
    if (z->dtype != IR_F32 || !z->data || z->rank < 1 || z->rank > y->rank ||
        z->dims[z->rank - 1] != nn || y->dims[y->rank - 1] != nn)
        return 0;
    for (int d = 0; d + 1 < z->rank; d++)
        if (z->dims[d] != 1) return 0;
    return 1;
}

/* A float32 Gemm the packed GEMM runs with a residual: constant B, A not
 * transposed, no act and no Z yet. */
static int packed_gemm(const ir_graph *g, const ir_node *n)
{
    int64_t ta = 0;
    pz_err e = {0};
    if (!pass_is(n, OP_gemm) || n->n_in < 2 || n->n_in > 3 || n->in[0] < 0 || n->in[1] < 0 ||
        op_attr_int(n, "transA", 0, &ta, &e) || ta)
        return 0;
    const ir_tensor *a = &g->values[n->in[0]].t, *b = &g->values[n->in[1]].t;
    return a->dtype == IR_F32 && b->dtype == IR_F32 && b->data && b->rank == 2;
}

/* Node r only reshapes its input 0 (a view that keeps the elements' order). */
static int order_view(const ir_graph *g, const ir_node *r, int slot)
{
    if (slot != 0 || r->n_out < 1 || r->out[0] < 0 || !pass_plain(g, r)) return 0;
    if (!pass_is(r, OP_reshape) && !pass_is(r, OP_flatten) && !pass_is(r, OP_squeeze) &&
        !pass_is(r, OP_unsqueeze) && !pass_is(r, OP_transpose))
        return 0;
    if (r->op->view_if && !r->op->view_if(g, r)) return 0;
    const ir_tensor *x = &g->values[r->in[0]].t, *y = &g->values[r->out[0]].t;
    return x->dtype == y->dtype && ir_tensor_numel(x) == ir_tensor_numel(y);
}

/* The residual Add after node i (a packed Gemm or linear MatMul, through
 * order-keeping views): Z becomes its input 3, and the last view (or node i)
 * writes the Add's output. Returns 1 if it did. */
static int fuse_gemm_residual(ir_graph *g, int i, unsigned char *dead, passes_stats *st)
{
    ir_node *n = &g->nodes[i];
    if (n->act.kind != IR_ACT_NONE || !(packed_gemm(g, n) || (linear_matmul(g, n) && n->n_in <= 3)))
        return 0;
    int chain[4], nc = 0, v = n->out[0], slot, c;
    while ((c = pass_sole_reader(g, v, &slot)) >= 0 && !dead[c] && order_view(g, &g->nodes[c], slot)) {
        if (nc == 4) return 0;
        chain[nc++] = c;
        v = g->nodes[c].out[0];
    }
    if (c < 0 || dead[c] || !pass_is(&g->nodes[c], OP_add)) return 0;
    ir_node *r = &g->nodes[c];
    if (r->n_in != 2 || r->n_out < 1 || r->out[0] < 0 || !pass_plain(g, r)) return 0;
    const ir_tensor *y = &g->values[v].t;
    int z = r->in[1 - slot];
    if (z < 0 || z == n->out[0] || !same_f32_shape(&g->values[r->out[0]].t, y) ||
        !same_f32_shape(&g->values[z].t, y))
        return 0;
    for (int k = 0; k < nc; k++)
        if (g->nodes[chain[k]].out[0] == z) return 0;
    ir_node_set_n_in(n, 4);   /* a missing bias C stays -1 */
    n->in[3] = z;
    if (nc) g->nodes[chain[nc - 1]].out[0] = r->out[0];
    else n->out[0] = r->out[0];
    pass_kill(g, c, dead);
    st->residuals++;
    return 1;
}

/* The activations that only Conv, Gemm and MatMul layers fuse (their
 * kernels apply them in the epilogue, vmath_avx512.h): Gelu (approximate
 * "none", or "tanh": lo 1; gate.c's from PyTorch's Erf chain), LeakyRelu, Sigmoid,
 * Swish (opset 24's, or gate.c's from Mul(X, Sigmoid(X))), HardSigmoid,
 * HardSwish, Tanh, Elu, Selu, Softplus, Mish (or gate.c's from Mul(X,
 * Tanh(Softplus(X)))). Sets *a and returns 1 if r is one, its attributes
 * finite. */
static int unary_act(const ir_node *r, ir_act *a)
{
    pz_err e = {0};
    float lo = 0, hi = 0;
    ir_act_kind k;
    if (pass_is(r, OP_gelu)) {
        const char *ap = NULL;
        k = IR_ACT_GELU;
        if (op_attr_string(r, "approximate", "none", &ap, &e) ||
            (strcmp(ap, "none") && strcmp(ap, "tanh")))
            return 0;
        lo = !strcmp(ap, "tanh");
    } else if (pass_is(r, OP_leaky_relu)) {
        k = IR_ACT_LEAKY_RELU;
        if (op_attr_float(r, "alpha", 0.01f, &lo, &e)) return 0;
    } else if (pass_is(r, OP_sigmoid)) {
        k = IR_ACT_SIGMOID;
    } else if (pass_is(r, OP_swish)) {
        k = IR_ACT_SWISH;
        if (op_attr_float(r, "alpha", 1.0f, &lo, &e)) return 0;
    } else if (pass_is(r, OP_hard_sigmoid)) {
        k = IR_ACT_HARD_SIGMOID;
        if (op_attr_float(r, "alpha", 0.2f, &lo, &e) || op_attr_float(r, "beta", 0.5f, &hi, &e))
            return 0;
    } else if (pass_is(r, OP_hard_swish)) {
        k = IR_ACT_HARD_SWISH;
    } else if (pass_is(r, OP_tanh)) {
        k = IR_ACT_TANH;
    } else if (pass_is(r, OP_elu)) {
        k = IR_ACT_ELU;
        if (op_attr_float(r, "alpha", 1.0f, &lo, &e)) return 0;
    } else if (pass_is(r, OP_selu)) {   /* alpha = lo, gamma = hi: selu.c's defaults */
        k = IR_ACT_SELU;
        if (op_attr_float(r, "alpha", 1.67326319217681884765625f, &lo, &e) ||
            op_attr_float(r, "gamma", 1.05070102214813232421875f, &hi, &e))
            return 0;
    } else if (pass_is(r, OP_softplus)) {
        k = IR_ACT_SOFTPLUS;
    } else if (pass_is(r, OP_mish)) {
        k = IR_ACT_MISH;
    } else {
        return 0;
    }
    if (!isfinite(lo) || !isfinite(hi)) return 0;
    a->kind = k;
    a->lo = lo;
    a->hi = hi;
    return 1;
}

/* PRelu r after Conv n (output y, M channels; axis 1) or after a Gemm or
 * linear MatMul n (N columns; y's last axis): its slope a constant float32
 * broadcasting to y along that axis alone; becomes n's input 4, M (N)
 * floats (a new constant). Returns 1 if it did. */
static int fuse_prelu(ir_graph *g, ir_node *n, const ir_node *r, const ir_tensor *y)
{
    const int conv = pass_is(n, OP_conv);
    if (!(conv || pass_is(n, OP_gemm) || linear_matmul(g, n)) || n->n_in > 4 ||
        !pass_is(r, OP_prelu) || r->n_in != 2 || r->in[1] < 0 || y->rank < (conv ? 3 : 1))
        return 0;
    const ir_tensor *s = &g->values[r->in[1]].t;
    const int axis = conv ? 1 : y->rank - 1;
    const int64_t m = y->dims[axis];
    if (m < 1 || s->dtype != IR_F32 || !s->data || s->rank > y->rank || ir_tensor_numel(s) < 1) return 0;
    for (int d = 0; d < s->rank; d++) {
        int k = y->rank - s->rank + d;   /* the axis of y it lines up with */
        if (s->dims[d] != 1 && (k != axis || s->dims[d] != m)) return 0;
    }
    const int64_t ns = ir_tensor_numel(s);   /* 1 or m */
    float *sd = pz_xmalloc((size_t)m * sizeof(float));
    for (int64_t c = 0; c < m; c++) sd[c] = ((const float *)s->data)[ns == 1 ? 0 : c];
    char name[512];
    snprintf(name, sizeof name, "%s:prelu", g->values[r->in[1]].name);
    int sv = ir_graph_add_value_unique(g, name);   /* may move g->values */
    ir_value *v = &g->values[sv];
    v->t = (ir_tensor){.dtype = IR_F32, .rank = 1, .dims = {m}};
    v->is_initializer = 1;
    ir_value_set_data(g, sv, sd, (size_t)m * sizeof(float));
    free(sd);
    ir_node_set_n_in(n, 5);   /* a missing bias or Z stays -1 */
    n->in[4] = sv;
    n->act.kind = IR_ACT_PRELU;
    return 1;
}

/* Tries to fuse the sole reader of node i's output into node i; returns 1
 * if it did (node i then writes that reader's output). */
static int fuse_next(ir_graph *g, int i, unsigned char *dead, passes_stats *st)
{
    ir_node *n = &g->nodes[i];
    int slot, c = pass_sole_reader(g, n->out[0], &slot);
    if (fuse_gemm_residual(g, i, dead, st)) return 1;
    if ((pass_is(n, OP_conv) || pass_is(n, OP_gemm) || linear_matmul(g, n)) &&
        (pass_fuse_select(g, i, dead, st) || pass_fuse_mask(g, i, dead, st)))
        return 1;
    if (c < 0 || dead[c]) return 0;
    ir_node *r = &g->nodes[c];
    const ir_tensor *y = &g->values[n->out[0]].t;
    if (r->n_out < 1 || r->out[0] < 0 || !pass_plain(g, r)) return 0;
    /* every form below: the consumer's output is the producer's, in type and shape */
    if (!same_f32_shape(&g->values[r->out[0]].t, y)) return 0;
    if (pass_is(n, OP_conv) && n->act.kind == IR_ACT_NONE && n->n_in <= n->op->max_in &&
        pass_is(r, OP_add)) {
        int z = r->in[1 - slot];
        if (z < 0 || !same_f32_shape(&g->values[z].t, y)) return 0;
        ir_node_set_n_in(n, 4);
        n->in[3] = z;
        st->residuals++;
    } else if (linear_matmul(g, n) && n->n_in == 2 && n->act.kind == IR_ACT_NONE &&
               pass_is(r, OP_add)) {
        int z = r->in[1 - slot];
        if (z < 0 || !bias_along_last(&g->values[z].t, y, g->values[n->in[1]].t.dims[1]))
            return 0;
        ir_node_set_n_in(n, 3);
        n->in[2] = z;
        st->biases++;
    } else if (n->act.kind == IR_ACT_NONE && slot == 0 &&
               (pass_is(n, OP_conv) || pass_is(n, OP_gemm) || linear_matmul(g, n)) &&
               unary_act(r, &n->act)) {
        st->acts++;
    } else if (n->act.kind == IR_ACT_NONE && slot == 0 && fuse_prelu(g, n, r, y)) {
        st->acts++;
    } else if (n->act.kind == IR_ACT_NONE && pass_is(r, OP_relu) && slot == 0) {
        n->act.kind = IR_ACT_RELU;
        st->acts++;
    } else if (n->act.kind == IR_ACT_NONE && pass_is(r, OP_clip) && slot == 0 &&
               pass_clip_bounds(g, r, &n->act.lo, &n->act.hi)) {
        n->act.kind = IR_ACT_CLIP;
        st->acts++;
    } else {
        return 0;
    }
    n->out[0] = r->out[0];
    pass_kill(g, c, dead);
    return 1;
}

/* A BatchNormalization in inference mode (training_mode 0 or absent). */
static int bn_inference(const ir_node *n)
{
    int64_t t = 0;
    pz_err e = {0};
    return pass_is(n, OP_batch_normalization) && !op_attr_int(n, "training_mode", 0, &t, &e) &&
           t == 0;
}

void pass_epilogues(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        if (dead[i] || n->n_out < 1 || n->out[0] < 0) continue;
        if (!pass_is(n, OP_conv) && !pass_is(n, OP_gemm) && !pass_is(n, OP_add) &&
            !pass_is(n, OP_conv_transpose) && !bn_inference(n) && !linear_matmul(g, n))
            continue;
        const ir_value *y = &g->values[n->out[0]];
        if (y->t.dtype != IR_F32 || y->t.data) continue;
        while (fuse_next(g, i, dead, st)) {
        }
    }
}
