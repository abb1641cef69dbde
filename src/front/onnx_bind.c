/* onnx_bind.c - which given inputs a load needs bound to their values
 * (onnx_load_opts.bind_needed), where each given input's tensors lie in
 * onnx_load_opts.by_position, and the dims bound by name (--max-shape). */
#include "onnx_internal.h"

#include <string.h>

/* The index in opts->by_position of the tensor given for the model's input
 * at position pos (sequences before it give one tensor per element). */
int onnx_given_index(const onnx_load_opts *opts, int pos)
{
    int f = 0;
    for (int p = 0; p < pos; p++) {
        int len = opts->given_len && p < opts->n_given_len ? opts->given_len[p] : -1;
        f += len == -1 ? 1 : len == -2 ? 0 : len;
    }
    return f;
}

/* Every node of gp and of the subgraphs in it, depth first. */
static void flatten_nodes(const Onnx__GraphProto *gp, const Onnx__NodeProto ***list, size_t *n,
                          size_t *cap)
{
    for (size_t j = 0; j < gp->n_node; j++) {
        if (*n == *cap) *list = pz_xrealloc(*list, (*cap = 2 * *cap + 16) * sizeof **list);
        (*list)[(*n)++] = gp->node[j];
        for (size_t a = 0; a < gp->node[j]->n_attribute; a++)
            if (gp->node[j]->attribute[a]->g)
                flatten_nodes(gp->node[j]->attribute[a]->g, list, n, cap);
    }
}

/* A value of the loaded graph named `v` is the model's value `name`: the same
 * name, or a value of a subgraph inlined under a prefix ("If_3/then/name"). */
static int same_value(const char *v, const char *name)
{
    size_t lv = strlen(v), ln = strlen(name);
    return !strcmp(v, name) || (lv > ln && v[lv - ln - 1] == '/' && !strcmp(v + lv - ln, name));
}

/* The positions (among the non-initializer graph inputs) of the inputs that
 * value `name` is computed from, limited to those opts->by_position gives with
 * data. A walk up the producers of the model's nodes, those of subgraphs too
 * (a node's subgraphs count as its inputs: what they read from outside and
 * what they give); run on a failed load only, so quadratic is fine. */
uint64_t onnx_needed_inputs(const Onnx__GraphProto *gp, const char *name,
                            const onnx_load_opts *opts)
{
    const Onnx__NodeProto **nodes = NULL;
    size_t nn = 0, ncap = 0;
    flatten_nodes(gp, &nodes, &nn, &ncap);
    size_t cap = nn + 1, n = 0;
    const char **todo = pz_xmalloc(cap * sizeof *todo);
    unsigned char *seen = pz_xcalloc(nn + 1, 1);
    uint64_t found = 0;
    todo[n++] = name;
    while (n) {
        const char *v = todo[--n];
        int pos = 0;
        for (size_t i = 0; i < gp->n_input; i++) {
            const char *in = gp->input[i]->name ? gp->input[i]->name : "";
            int init = 0;
            for (size_t k = 0; k < gp->n_initializer && !init; k++)
                init = gp->initializer[k]->name && !strcmp(gp->initializer[k]->name, in);
            if (init) continue;
            int f = onnx_given_index(opts, pos);
            if (!strcmp(in, v) && pos < 64 && f < opts->n_by_position &&
                opts->by_position[f].data)
                found |= (uint64_t)1 << pos;
            pos++;
        }
        for (size_t j = 0; j < nn; j++) {
            const Onnx__NodeProto *np = nodes[j];
            int makes = 0;
            for (size_t k = 0; k < np->n_output && !makes; k++)
                makes = np->output[k] && np->output[k][0] && same_value(v, np->output[k]);
            if (!makes || seen[j]) continue;
            seen[j] = 1;
            /* its inputs, and those of every node in its subgraphs */
            const Onnx__NodeProto **sub = NULL;
            size_t ns = 0, scap = 0;
            Onnx__GraphProto wrap = ONNX__GRAPH_PROTO__INIT;
            Onnx__NodeProto *one = (Onnx__NodeProto *)np;
            wrap.n_node = 1;
            wrap.node = &one;
            flatten_nodes(&wrap, &sub, &ns, &scap);
            for (size_t s = 0; s < ns; s++)
                for (size_t k = 0; k < sub[s]->n_input; k++) {
                    if (!sub[s]->input[k] || !sub[s]->input[k][0]) continue;
                    if (n == cap) todo = pz_xrealloc(todo, (cap *= 2) * sizeof *todo);
                    todo[n++] = sub[s]->input[k];
                }
            free(sub);
        }
    }
    free(nodes);
    free(todo);
    free(seen);
    return found;
}

/* --max-shape: input dim d, named by its dim_param, takes the binding's
 * value where it is still symbolic; a value given by a tensor must stay
 * within a bound. */
pz_status onnx_dim_binding_apply(const onnx_load_opts *opts, const char *name, int pos, int d,
                                 const Onnx__TensorShapeProto__Dimension *dim, int64_t *v,
                                 pz_err *err)
{
    if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM || !dim->dim_param)
        return PZ_OK;
    for (int j = 0; j < opts->n_dims; j++) {
        const onnx_dim_binding *b = &opts->dims[j];
        if (strcmp(b->name, dim->dim_param)) continue;
        if (opts->dims_seen) opts->dims_seen[j]++;
        if (*v < 0) *v = b->value;
        else if (b->bound && *v > b->value)
            return pz_fail(err, PZ_ERR_INPUT, "input %d (\"%s\"): dimension %d (\"%s\") is %lld, "
                           "above the bound --max-shape %s=%lld", pos, name, d, b->name,
                           (long long)*v, b->name, (long long)b->value);
    }
    return PZ_OK;
}
