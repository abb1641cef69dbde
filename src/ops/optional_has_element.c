/* optional_has_element.c - OptionalHasElement: whether the input holds a
 * value.
 *   input (optional, tensor or sequence; may be omitted) -> bool scalar
 * Known at compile time (op_seq.h): the node becomes Identity of a
 * constant. A tensor or a sequence holds one; an omitted input does not. */
#include "op_seq.h"
#include "op_inline.h"

static pz_status optional_has_element_unfold(ir_graph *g, int i, pz_err *err)
{
    (void)err;
    const ir_node *n = &g->nodes[i];
    uint8_t has = n->n_in > 0 && n->in[0] >= 0;
    if (has && g->values[n->in[0]].kind == IR_KIND_OPT) {
        const ir_node *p = &g->nodes[g->values[n->in[0]].producer];
        has = p->n_in > 0 && p->in[0] >= 0;
    }
    int c = op_new_const(g, n->name, IR_BOOL, 0, NULL, &has);
    op_node_rewrite(g, i, "Identity", &c, 1, 0);
    return PZ_OK;
}

const op_def op_optional_has_element = {
    .name = "OptionalHasElement",
    .min_in = 0, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = optional_has_element_unfold,
    .takes_seq = 1,
};
