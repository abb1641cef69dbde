/* qdyn.c - a dynamically quantized layer's chain folded into the one int8
 * layer (issue 41), as ONNX Runtime's quantize_dynamic writes it:
 *
 *   DynamicQuantizeLinear(x) -> xq, xs, xz
 *   ConvInteger(xq, wq, xz, wz) or MatMulInteger(xq, wq, xz, wz)  (int32)
 *     -> Cast(to float32) -> Mul(., Mul(xs, ws)) [-> Add(., b)] [-> Relu]
 * becomes
 *   ConvInteger or MatMulInteger(xq, wq, xz, wz, xs, ws, b) with act Relu,
 *   y = act(float(acc) * (xs * ws[m]) + b[m])   (float32)
 * which the QCONV and QMATMUL layers compute as the sums leave the int8
 * GEMM (rt/kernels/quant/qdyn_out.h): no int32 tensor, no float pass per
 * node. Each step rounds as its node did (Cast, Mul, Mul, Add, Relu), so
 * the folded layer gives the chain's bits. xs is read as the layer runs
 * (the DynamicQuantizeLinear stays: it makes xq).
 *
 * Folded only when all of this holds, else the graph stays as it is:
 *   - the ConvInteger (X rank >= 3) or MatMulInteger plain, its int32 output
 *     read by one node alone, no graph output: a plain Cast to float32;
 *   - the Cast's output read alone by a plain Mul whose other operand is
 *     the output of a plain Mul read by it alone, of a float32 scalar (xs,
 *     any value) and a constant float32 ws;
 *   - then, optionally, a plain Add of a constant float32 b reading the
 *     product alone, and a plain Relu reading that alone;
 *   - ws and b one element, or one per output channel: M along axis 1 of
 *     a ConvInteger's output, N along the last axis of a MatMulInteger's,
 *     every other dim 1, rank at most the output's (no broadcast grows it);
 *   - the chain's last value float32 of the integer output's shape.
 * The nodes folded go; the fused node keeps the ConvInteger's name. */
#include "passes_internal.h"

/* Whether t is a constant float32 of one element, or of m along axis
 * `axis` of a rank-orank output and 1 elsewhere, with rank <= orank. */
static int chan_vec(const ir_tensor *t, int orank, int axis, int64_t m)
{
    if (!t || t->dtype != IR_F32 || !t->data || t->rank > orank) return 0;
    if (ir_tensor_numel(t) == 1) return 1;
    for (int d = 0; d < t->rank; d++)
        if (t->dims[d] != (orank - t->rank + d == axis ? m : 1)) return 0;
    return 1;
}

/* The plain node of kind k alone reading value vid (its slot in *slot), or
 * -1. */
static int sole(const ir_graph *g, int vid, op_kind k, const unsigned char *dead, int *slot)
{
    const int r = pass_sole_reader(g, vid, slot);
    if (r < 0 || dead[r] || !pass_is(&g->nodes[r], k) || !pass_plain(g, &g->nodes[r]) ||
        g->nodes[r].n_out < 1 || g->nodes[r].out[0] < 0)
        return -1;
    return r;
}

/* A plain binary node's operand other than the one in slot, and the const
 * tensor it is (NULL if not a constant). */
static int other_in(const ir_graph *g, const ir_node *n, int slot, const ir_tensor **c)
{
    *c = n->n_in == 2 ? op_in_const(g, n, 1 - slot) : NULL;
    return n->n_in == 2 ? n->in[1 - slot] : -1;
}

/* Tries the chain after integer node i; 1 if it folded. */
static int fold(ir_graph *g, int i, unsigned char *dead)
{
    ir_node *ci = &g->nodes[i];
    const int conv = pass_is(ci, OP_conv_integer);
    if ((!conv && !pass_is(ci, OP_matmul_integer)) || !pass_plain(g, ci) || ci->n_in < 2 ||
        ci->n_in > 4 || ci->in[0] < 0 || ci->in[1] < 0 || ci->n_out != 1 || ci->out[0] < 0)
        return 0;
    const ir_tensor *y = &g->values[ci->out[0]].t;
    if (y->dtype != IR_I32 || y->rank < (conv ? 3 : 1)) return 0;
    const int axis = conv ? 1 : y->rank - 1;
    const int64_t m = y->dims[axis];
    int slot, at;
    const ir_tensor *c;
    /* Cast to float32 */
    const int cast = sole(g, ci->out[0], OP_cast, dead, &slot);
    if (cast < 0 || g->values[g->nodes[cast].out[0]].t.dtype != IR_F32) return 0;
    /* Mul by Mul(xs, ws) */
    const int mul = sole(g, g->nodes[cast].out[0], OP_mul, dead, &slot);
    if (mul < 0) return 0;
    const int sv = other_in(g, &g->nodes[mul], slot, &c);
    const int sm = pass_writer(g, sv, dead);
    if (sv < 0 || sm < 0 || !pass_is(&g->nodes[sm], OP_mul) || !pass_plain(g, &g->nodes[sm]) ||
        g->nodes[sm].n_in != 2 || pass_sole_reader(g, sv, &at) != mul)
        return 0;
    int xsv = -1, wsv = -1;
    for (int k = 0; k < 2; k++) {
        const int v = g->nodes[sm].in[k];
        const ir_tensor *t = v >= 0 ? &g->values[v].t : NULL;
        if (t && !t->data && t->dtype == IR_F32 && ir_tensor_numel(t) == 1 && t->rank <= y->rank)
            xsv = v;
        else if (t && chan_vec(op_in_const(g, &g->nodes[sm], k), y->rank, axis, m))
            wsv = v;
    }
    if (xsv < 0 || wsv < 0) return 0;
    int last = mul, add = -1, relu = -1;
    /* [Add(b)] */
    const int a = sole(g, g->nodes[mul].out[0], OP_add, dead, &slot);
    int bv = -1;
    if (a >= 0) {
        const int v = other_in(g, &g->nodes[a], slot, &c);
        if (chan_vec(c, y->rank, axis, m)) add = a, bv = v, last = a;
    }
    /* [Relu] */
    const int r = sole(g, g->nodes[last].out[0], OP_relu, dead, &slot);
    if (r >= 0) relu = r, last = r;
    const ir_tensor *out = &g->values[g->nodes[last].out[0]].t;
    if (out->dtype != IR_F32 || out->rank != y->rank) return 0;
    for (int d = 0; d < y->rank; d++)
        if (out->dims[d] != y->dims[d]) return 0;

    const int ov = g->nodes[last].out[0], old_y = ci->out[0];
    const int kill[5] = {cast, sm, mul, add, relu};
    for (int k = 0; k < 5; k++)
        if (kill[k] >= 0) pass_kill(g, kill[k], dead);
    ci = &g->nodes[i];
    ir_node_set_n_in(ci, bv >= 0 ? 7 : 6);
    ci->in[4] = xsv, ci->in[5] = wsv;
    if (bv >= 0) ci->in[6] = bv;
    ci->act = (ir_act){.kind = relu >= 0 ? IR_ACT_RELU : IR_ACT_NONE};
    ci->out[0] = ov;
    g->values[ov].producer = i;
    g->values[old_y].producer = -1;
    pz_err e = {0};
    PZ_ASSERT(ci->op->infer(g, ci, &e) == PZ_OK);   /* float32, the chain's shape */
    return 1;
}

void pass_qdyn(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!dead[i] && fold(g, i, dead)) st->qdyn++;
}
