/* sequence_map.c - SequenceMap: the body applied to each element.
 *   input_sequence, additional_inputs... (sequences of the same length, or
 *   tensors given to every call) -> one sequence per body output
 * Unfolded at compile time (op_seq.h): the body is inlined once per element
 * and each output is SequenceConstruct of its results. */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

static pz_status sequence_map_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const ir_graph *body;
    const int *el;
    int len;
    if (op_attr_graph(n, "body", &body, err) || op_seq_elems(g, n, 0, &el, &len, err))
        return err->code;
    int n_in = n->n_in, n_out = n->n_out;
    if (body->n_outputs != n_out)
        return op_err_attr(err, n, "body", "gives %d outputs; the node has %d", body->n_outputs,
                           n_out);
    /* the elements of each input (NULL: a tensor, the same in every call) */
    int **elems = pz_xcalloc((size_t)n_in, sizeof *elems);
    pz_status st = PZ_OK;
    for (int j = 0; j < n_in && !st; j++) {
        if (g->values[n->in[j]].kind != IR_KIND_SEQ) continue;
        int c;
        if (op_seq_elems(g, n, j, &el, &c, err)) st = err->code;
        else if (c != len)
            st = op_err(err, n, "input %d holds %d elements, input 0 holds %d", j, c, len);
        else elems[j] = op_ids_dup(el, c);
    }
    int *args = pz_xmalloc((size_t)n_in * sizeof(int));
    int *outs = pz_xmalloc((size_t)(n_out * (len ? len : 1)) * sizeof(int));
    size_t plen = strlen(n->name) + 32;
    char *prefix = pz_xmalloc(plen);
    char *name = pz_xstrdup(n->name);
    int start = g->n_nodes;
    for (int k = 0; k < len && !st; k++) {
        for (int j = 0; j < n_in; j++) args[j] = elems[j] ? elems[j][k] : g->nodes[i].in[j];
        snprintf(prefix, plen, "%s/%d", name, k);
        st = op_inline(g, &g->nodes[i], "body", body, prefix, args, n_in, outs + k * n_out, err);
    }
    if (!st) {
        int *seqs = pz_xmalloc((size_t)n_out * sizeof(int));
        int *parts = pz_xmalloc((size_t)(len ? len : 1) * sizeof(int));
        for (int o = 0; o < n_out; o++) {
            for (int k = 0; k < len; k++) parts[k] = outs[k * n_out + o];
            snprintf(prefix, plen, "%s/seq%d", name, o);
            seqs[o] = ir_graph_add_value_unique(g, prefix);
            g->values[seqs[o]].t.dtype = body->values[body->outputs[o]].decl_dtype;
            op_append_node(g, prefix, "SequenceConstruct", parts, len, &seqs[o], 1);
        }
        op_replace_by_tail(g, i, start, seqs);
        free(parts);
        free(seqs);
    }
    for (int j = 0; j < n_in; j++) free(elems[j]);
    free(elems);
    free(name);
    free(prefix);
    free(outs);
    free(args);
    return st;
}

const op_def op_sequence_map = {
    .name = "SequenceMap",
    .min_in = 1, .max_in = 4096, .min_out = 1, .max_out = 4096,
    .infer = op_unfold_only,
    .unfold = sequence_map_unfold,
    .takes_seq = 1,
};
