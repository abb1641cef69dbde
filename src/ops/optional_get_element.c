/* optional_get_element.c - OptionalGetElement: the value an optional holds
 * (a tensor or a sequence given as such is itself).
 *   input (optional, tensor or sequence) -> the value
 * Unfolded at compile time (op_seq.h) into Identity of the value; an empty
 * optional is an error naming the node. */
#include "op_seq.h"
#include "op_inline.h"

static pz_status optional_get_element_unfold(ir_graph *g, int i, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    int x = n->in[0];
    if (g->values[x].kind == IR_KIND_OPT) {
        const ir_node *p = &g->nodes[g->values[x].producer];
        x = p->n_in > 0 ? p->in[0] : -1;
        if (x < 0)
            return op_err(err, n, "input \"%s\" is an empty optional: it holds no value to get",
                          g->values[n->in[0]].name);
    }
    op_node_rewrite(g, i, "Identity", &x, 1, 0);
    return PZ_OK;
}

const op_def op_optional_get_element = {
    .name = "OptionalGetElement",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = op_unfold_only,
    .unfold = optional_get_element_unfold,
    .takes_seq = 1,
};
