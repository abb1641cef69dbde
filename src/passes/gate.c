/* gate.c - gated activations, as PyTorch exports them, become one
 * element-wise node:
 *
 *   Mul(X, Sigmoid(X))                          Swish(X)      (SiLU: EfficientNet)
 *   Mul(X, HardSigmoid(X; alpha 1/6, beta 1/2))  HardSwish(X)  (opset < 14: MobileNetV3)
 *
 * in either input order. The Sigmoid (HardSigmoid) node becomes the Swish
 * (HardSwish) node, reading X and writing the Mul's output; the Mul goes.
 * One pass over the tensor instead of two, and no intermediate. Only float32,
 * and the gate must have the Mul as its sole reader and not be a graph
 * output. Results within float rounding of the two nodes (x/6 in place of
 * x * float(1/6)). */
#include <stdbool.h>

#include "passes_internal.h"

/* Whether HardSigmoid node n is x/6 + 1/2 (alpha as a float of 1/6). */
static int hard_swish_gate(const ir_node *n)
{
    float alpha, beta;
    pz_err e = {0};
    if (op_attr_float(n, "alpha", 0.2f, &alpha, &e) || op_attr_float(n, "beta", 0.5f, &beta, &e))
        return 0;
    return alpha == (float)(1.0 / 6.0) && beta == 0.5f;
}

void pass_gates(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        bool sig = pass_is(n, OP_sigmoid), hard = pass_is(n, OP_hard_sigmoid);
        if (dead[i] || (!sig && !hard) || n->n_in < 1 || n->out[0] < 0) continue;
        int x = n->in[0], slot, m = pass_sole_reader(g, n->out[0], &slot);
        if (x < 0 || m < 0 || dead[m] || !pass_is(&g->nodes[m], OP_mul)) continue;
        ir_node *mul = &g->nodes[m];
        if (mul->n_in != 2 || mul->in[1 - slot] != x || mul->n_out < 1 || mul->out[0] < 0) continue;
        if (g->values[x].t.dtype != IR_F32 || g->values[mul->out[0]].t.dtype != IR_F32) continue;
        if (hard && !hard_swish_gate(n)) continue;
        if (!pass_become(g, n, sig ? OP_swish : OP_hard_swish)) continue;
        n->out[0] = mul->out[0];
        pass_kill(g, m, dead);
        st->gates++;
    }
}
