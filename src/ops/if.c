/* if.c - If: runs then_branch or else_branch, as the condition says.
 *   cond (bool, one element) -> the outputs of the branch taken
 * Unfolded at compile time (op_inline.h): a condition known then (a
 * constant, or computed from inputs bound at load) inlines the branch
 * taken; otherwise both branches are inlined (the run skips the layers of
 * the one not taken: rt/guard.c) and each output
 * is Where(cond, then, else) when the two give one type and shape, else
 * SelectBranch (select_branch.c: the whole tensor chosen at run time, a
 * run-time shape) when they give one type and rank; else the condition must
 * be known (the loader binds it from the given inputs, or the node is
 * refused). */
#include "op_inline.h"

#include <string.h>

/* How output j is chosen: 0 Where (one type and shape, none set at run
 * time), 1 SelectBranch (one type and rank), -1 neither. */
static int if_choice(const ir_graph *g, const ir_node *n, int k, int j)
{
    int ia = n->in[1 + j], ib = n->in[1 + k + j];
    const ir_tensor *a = &g->values[ia].t, *b = &g->values[ib].t;
    if (a->dtype != b->dtype || a->rank != b->rank) return -1;
    int same = !g->values[ia].dyn && !g->values[ib].dyn;
    for (int d = 0; same && d < a->rank; d++) same = a->dims[d] == b->dims[d];
    if (same) return 0;
    return ir_dtype_size(a->dtype) ? 1 : -1;
}

/* Node m (Where) becomes a SelectBranch (select_branch.c). */
static void if_to_select(ir_graph *g, int m)
{
    ir_node *n = &g->nodes[m];
    free(n->op_type);
    n->op_type = pz_xstrdup("SelectBranch");
    free(n->domain);
    n->domain = pz_xstrdup("ai.paleozoic");
    n->op = op_find_in("ai.paleozoic", "SelectBranch");
    PZ_ASSERT(n->op);
}

/* Second visit (unfold_k 1): inputs cond, then-outputs, else-outputs. */
static pz_status if_select(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    int k = (n->n_in - 1) / 2;
    int *how = pz_xmalloc((size_t)(k ? k : 1) * sizeof(int));
    for (int j = 0; j < k; j++) {
        const ir_tensor *a = op_in(g, n, 1 + j), *b = op_in(g, n, 1 + k + j);
        if (g->values[n->in[1 + j]].kind || g->values[n->in[1 + k + j]].kind) {
            free(how);
            return op_need_const(err, g, n, 0, "cond", "a branch gives a sequence or an "
                                 "optional, which are chosen at compile time");
        }
        if ((how[j] = if_choice(g, n, k, j)) < 0) {
            char sa[96], sb[96];
            char why[320];
            snprintf(why, sizeof why, "the branches give output %d as %s %s and %s %s (a "
                     "choice at run time takes one type, not string, and one rank), so the "
                     "branch must be chosen at compile time", j, ir_dtype_name(a->dtype),
                     ir_shape_str(a, sa, sizeof sa), ir_dtype_name(b->dtype),
                     ir_shape_str(b, sb, sizeof sb));
            free(how);
            return op_need_const(err, g, n, 0, "cond", why);
        }
    }
    int *outs = pz_xmalloc((size_t)(k ? k : 1) * sizeof(int));
    memcpy(outs, n->out, (size_t)k * sizeof(int));
    char *name = pz_xstrdup(n->name);
    int ins[3] = {n->in[0], 0, 0};
    int start = g->n_nodes;
    size_t len = strlen(name) + 24;
    char *buf = pz_xmalloc(len);
    for (int j = 1; j < k; j++) {
        if (outs[j] < 0) continue;
        ins[1] = g->nodes[i].in[1 + j];
        ins[2] = g->nodes[i].in[1 + k + j];
        snprintf(buf, len, "%s:%d", name, j);
        int m = op_append_node(g, buf, "Where", ins, 3, &outs[j], 1);
        if (how[j]) if_to_select(g, m);
    }
    ins[1] = g->nodes[i].in[1];
    ins[2] = g->nodes[i].in[1 + k];
    op_node_rewrite(g, i, "Where", ins, 3, 0);
    if (how[0]) if_to_select(g, i);
    ir_graph_move_tail(g, start, i + 1);
    free(buf);
    free(name);
    free(outs);
    free(how);
    return PZ_OK;
}

static pz_status if_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    if (n->unfold_k == 1) return if_select(g, i, err);
    const ir_graph *br[2];
    if (op_attr_graph(n, "then_branch", &br[0], err) || op_attr_graph(n, "else_branch", &br[1], err))
        return err->code;
    const ir_tensor *c = op_in(g, n, 0);
    if (c->dtype != IR_BOOL || ir_tensor_numel(c) != 1)
        return op_err(err, n, "cond must be one bool, got %s of %lld elements",
                      ir_dtype_name(c->dtype), (long long)ir_tensor_numel(c));
    for (int b = 0; b < 2; b++)
        if (br[b]->n_outputs != n->n_out)
            return op_err_attr(err, n, b ? "else_branch" : "then_branch", "gives %d outputs; "
                               "the node has %d", br[b]->n_outputs, n->n_out);
    int k = n->n_out;
    int *outs = pz_xmalloc((size_t)(2 * k + 1) * sizeof(int));
    size_t len = strlen(n->name) + 8;
    char *prefix = pz_xmalloc(len);
    int start = g->n_nodes;
    pz_status st = PZ_OK;
    if (c->data) {
        int b = *(const uint8_t *)c->data ? 0 : 1;
        snprintf(prefix, len, "%s/%s", n->name, b ? "else" : "then");
        st = op_inline(g, n, b ? "else_branch" : "then_branch", br[b], prefix, NULL, 0, outs, err);
        if (!st) {
            op_replace_by_tail(g, i, start, outs);
        }
    } else {
        outs[0] = n->in[0];
        for (int b = 0; b < 2 && !st; b++) {
            snprintf(prefix, len, "%s/%s", g->nodes[i].name, b ? "else" : "then");
            st = op_inline(g, &g->nodes[i], b ? "else_branch" : "then_branch", br[b], prefix,
                           NULL, 0, outs + 1 + b * k, err);
        }
        if (!st) {
            int added = g->n_nodes - start;
            for (int j = start; j < g->n_nodes; j++)
                if (!g->nodes[j].branch_of) g->nodes[j].branch_of = 1 + outs[0];
            ir_graph_move_tail(g, start, i);
            ir_node *m = &g->nodes[i + added];
            ir_node_set_n_in(m, 1 + 2 * k);
            memcpy(m->in, outs, (size_t)(1 + 2 * k) * sizeof(int));
            m->unfold_k = 1;
        }
    }
    free(prefix);
    free(outs);
    return st;
}

const op_def op_if = {
    .name = "If",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 4096,
    .infer = op_unfold_only,
    .unfold = if_unfold,
    .takes_seq = 1,   /* branches may give sequences and optionals */
};
