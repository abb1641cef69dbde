/* eliminate.c - layer elimination: Identity, Dropout (inference form) and
 * a Pad of zero pads on every side (PyTorch's DenseNet exports one before
 * each transition's AveragePool) copy their input, so their readers can
 * read the input itself.
 *
 *   x -> Identity -> y -> Conv     becomes     x -> Conv
 *
 * Removed only when all of this holds, else kept: the node plain
 * (pass_plain: no act, nothing fused; a Dropout's mask read at run time
 * keeps it, though infer folds the mask into a constant); its output not a
 * graph output (the copy gives that output its name and buffer) and of its
 * input's type and shape; a Dropout a copy (training_mode absent or a
 * constant false, or ratio a constant 0: what Dropout's parse accepts). */
#include "passes_internal.h"

/* Whether Pad node n adds nothing: its pads (attribute before opset 11,
 * a constant input from 11) are all zero. */
static int pad_is_noop(const ir_graph *g, const ir_node *n)
{
    int64_t pads[64];
    int count = 0;
    if (g->opset < 11) {
        pz_err e = {0};
        if (op_attr_ints(n, "pads", pads, 64, &count, &e) || count == 0) return 0;
    } else {
        const ir_tensor *t = n->n_in > 1 ? op_in_const(g, n, 1) : NULL;
        if (!t || !ir_dtype_is_int(t->dtype)) return 0;
        count = (int)ir_tensor_numel(t);
        if (count == 0 || count > 64) return 0;
        for (int k = 0; k < count; k++) pads[k] = ir_load_i64(t->data, t->dtype, (size_t)k);
    }
    for (int k = 0; k < count; k++)
        if (pads[k]) return 0;
    return 1;
}

/* Whether Dropout node n copies its input: not in training mode, or with
 * ratio 0 (then nothing is dropped and the scale is 1). */
static int dropout_is_copy(const ir_graph *g, const ir_node *n)
{
    const ir_tensor *t = n->n_in > 2 ? op_in(g, n, 2) : NULL;
    if (!t) return 1;
    if (!t->data || ir_tensor_numel(t) != 1) return 0;
    if (!ir_load_i64(t->data, t->dtype, 0)) return 1;
    const ir_tensor *r = op_in_const(g, n, 1);
    return r && ir_tensor_numel(r) == 1 && ir_dtype_is_float(r->dtype) &&
           ir_load_f64(r->data, r->dtype, 0) == 0;
}

void pass_eliminate(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *n = &g->nodes[i];
        if (!pass_is(n, OP_identity) && !pass_is(n, OP_dropout) &&
            !(pass_is(n, OP_pad) && pad_is_noop(g, n)))
            continue;
        if (dead[i] || n->n_in < 1 || n->n_out < 1 || !pass_plain(g, n)) continue;
        if (pass_is(n, OP_dropout) && !dropout_is_copy(g, n)) continue;
        int x = n->in[0], y = n->out[0];
        if (x < 0 || y < 0 || g->values[y].is_output) continue;
        if (!pass_same_shape(&g->values[y].t, &g->values[x].t)) continue;
        ir_graph_replace_uses(g, y, x);
        pass_kill(g, i, dead);
        st->eliminated++;
    }
}
