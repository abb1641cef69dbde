/* op_inline.c - inlining subgraphs into the enclosing graph (op_inline.h). */
#include "op_inline.h"

#include <string.h>

pz_status op_attr_graph(const ir_node *n, const char *name, const ir_graph **out, pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    if (!a) return op_err_attr(err, n, name, "is required");
    if (op_attr_expect(n, a, IR_ATTR_GRAPH, err)) return err->code;
    if (!a->g) return op_err_attr(err, n, name, "has no graph");
    *out = a->g;
    return PZ_OK;
}

/* A value nothing in x defines: read from an enclosing graph. */
static int is_free(const ir_graph *x, int v)
{
    const ir_value *val = &x->values[v];
    return val->producer == -1 && !val->is_input && !val->t.data;
}

/* Renames, in x and the graphs nested in it, the names x reads from outside
 * that `sub` defines, to the names of the values of g they became. */
static pz_status rename_free(ir_graph *x, const ir_graph *sub, const int *map, const ir_graph *g,
                             pz_err *err)
{
    for (int v = 0; v < x->n_values; v++) {
        if (!is_free(x, v)) continue;
        int s = ir_graph_find(sub, x->values[v].name);
        if (s < 0 || map[s] < 0) continue;
        const char *to = g->values[map[s]].name;
        if (!strcmp(to, x->values[v].name)) continue;
        if (ir_graph_find(x, to) >= 0)
            return pz_fail(err, PZ_ERR_INTERNAL, "inlining: name \"%s\" is taken in a nested "
                           "subgraph", to);
        ir_graph_rename_value(x, v, to);
    }
    for (int i = 0; i < x->n_nodes; i++)
        for (int a = 0; a < x->nodes[i].n_attrs; a++)
            if (x->nodes[i].attrs[a].g &&
                rename_free(x->nodes[i].attrs[a].g, sub, map, g, err))
                return err->code;
    return PZ_OK;
}

int op_new_const(ir_graph *g, const char *base, ir_dtype dtype, int rank, const int64_t *dims,
                 const void *data)
{
    int v = ir_graph_add_value_unique(g, base);
    ir_tensor *t = &g->values[v].t;
    t->dtype = dtype;
    t->rank = rank;
    for (int d = 0; d < rank; d++) t->dims[d] = dims[d];
    ir_value_set_data(g, v, data, (size_t)ir_tensor_numel(t) * ir_dtype_size(dtype));
    return v;
}

int op_append_node(ir_graph *g, const char *name, const char *op_type, const int *ins, int n_in,
                   const int *outs, int n_out)
{
    int k = ir_graph_add_node(g, name, op_type, "", n_in, n_out);
    ir_node *n = &g->nodes[k];
    n->op = op_find(op_type);
    PZ_ASSERT(n->op);
    for (int j = 0; j < n_in; j++) n->in[j] = ins[j];
    for (int j = 0; j < n_out; j++) {
        n->out[j] = outs[j];
        if (outs[j] >= 0) g->values[outs[j]].producer = k;
    }
    return k;
}

int op_append_unsqueeze(ir_graph *g, const char *name, int x, int64_t axis)
{
    int y = ir_graph_add_value_unique(g, name);
    if (g->opset >= 13) {
        int64_t one = 1;
        int ax = op_new_const(g, name, IR_I64, 1, &one, &axis);
        int ins[2] = {x, ax};
        op_append_node(g, name, "Unsqueeze", ins, 2, &y, 1);
    } else {
        int k = op_append_node(g, name, "Unsqueeze", &x, 1, &y, 1);
        ir_node *n = &g->nodes[k];
        n->attrs = pz_xcalloc(1, sizeof *n->attrs);
        n->attrs[0] = (ir_attr){.name = pz_xstrdup("axes"), .type = IR_ATTR_INTS, .n = 1,
                                .ints = pz_xmalloc(sizeof(int64_t))};
        n->attrs[0].ints[0] = axis;
        n->n_attrs = 1;
    }
    return y;
}

int op_append_stack(ir_graph *g, const char *name, const int *parts, int64_t n, int64_t axis)
{
    size_t len = strlen(name) + 24;
    char *buf = pz_xmalloc(len);
    int *un = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int));
    for (int64_t t = 0; t < n; t++) {
        snprintf(buf, len, "%s/%lld", name, (long long)t);
        un[t] = op_append_unsqueeze(g, buf, parts[t], axis);
    }
    int y = ir_graph_add_value_unique(g, name);
    int c = op_append_node(g, name, "Concat", un, (int)n, &y, 1);
    ir_node_add_attr_int(&g->nodes[c], "axis", axis);
    free(un);
    free(buf);
    return y;
}

pz_status op_unfold_only(ir_graph *g, ir_node *n, pz_err *err)
{
    (void)g;
    return pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (%s): not unfolded", n->name, n->op_type);
}

pz_status op_inline(ir_graph *g, const ir_node *owner, const char *attr, const ir_graph *sub,
                    const char *prefix, const int *args, int n_args, int *outs, pz_err *err)
{
    if (n_args != sub->n_inputs)
        return op_err_attr(err, owner, attr, "the subgraph takes %d inputs; the node gives it %d",
                           sub->n_inputs, n_args);
    if (g->n_nodes + sub->n_nodes > OP_UNROLL_MAX_NODES)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): unrolling its subgraph "
                       "'%s' would grow the graph beyond %d nodes (control flow is unrolled "
                       "at compile time)", owner->name, owner->op_type, attr,
                       OP_UNROLL_MAX_NODES);
    /* owner points into g->nodes, which the appends below may move */
    char *oname = pz_xstrdup(owner->name), *otype = pz_xstrdup(owner->op_type);
    int branch_of = owner->branch_of;
    pz_status st = PZ_OK;
    int *map = pz_xmalloc((size_t)(sub->n_values ? sub->n_values : 1) * sizeof(int));
    size_t len = strlen(prefix) + 2;
    char *buf = NULL;
    for (int v = 0; v < sub->n_values; v++) map[v] = -1;
    for (int k = 0; k < n_args; k++) map[sub->inputs[k]] = args[k];
    for (int v = 0; v < sub->n_values && !st; v++) {
        const ir_value *sv = &sub->values[v];
        if (map[v] >= 0 || sv->is_input) continue;
        buf = pz_xrealloc(buf, len + strlen(sv->name));
        sprintf(buf, "%s/%s", prefix, sv->name);
        if (sv->t.data)
            map[v] = op_new_const(g, buf, sv->t.dtype, sv->t.rank, sv->t.dims, sv->t.data);
        else if (sv->producer != -1)
            map[v] = ir_graph_add_value_unique(g, buf);
        else if ((map[v] = ir_graph_find(g, sv->name)) < 0)
            st = pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): attribute '%s': the subgraph "
                         "reads \"%s\", which neither it nor an enclosing graph defines", oname,
                         otype, attr, sv->name);
    }
    for (int i = 0; i < sub->n_nodes && !st; i++) {
        const ir_node *sn = &sub->nodes[i];
        buf = pz_xrealloc(buf, len + strlen(sn->name));
        sprintf(buf, "%s/%s", prefix, sn->name);
        int k = ir_graph_add_node(g, buf, sn->op_type, sn->domain, sn->n_in, sn->n_out);
        ir_node *n = &g->nodes[k];
        n->op = sn->op;
        n->branch_of = branch_of;
        for (int j = 0; j < sn->n_in; j++) n->in[j] = sn->in[j] < 0 ? -1 : map[sn->in[j]];
        for (int j = 0; j < sn->n_out; j++) {
            n->out[j] = sn->out[j] < 0 ? -1 : map[sn->out[j]];
            if (n->out[j] >= 0) g->values[n->out[j]].producer = k;
        }
        n->n_attrs = sn->n_attrs;
        n->attrs = pz_xcalloc((size_t)(sn->n_attrs ? sn->n_attrs : 1), sizeof *n->attrs);
        for (int a = 0; a < sn->n_attrs && !st; a++) {
            ir_attr_copy(&n->attrs[a], &sn->attrs[a]);
            if (n->attrs[a].g) st = rename_free(n->attrs[a].g, sub, map, g, err);
        }
    }
    for (int k = 0; k < sub->n_outputs && !st; k++) outs[k] = map[sub->outputs[k]];
    free(buf);
    free(map);
    free(oname);
    free(otype);
    return st;
}

void op_replace_by_tail(ir_graph *g, int i, int start, const int *src)
{
    int added = g->n_nodes - start;
    ir_graph_move_tail(g, start, i);
    op_become_identities(g, i + added, src);
}

void op_node_rewrite(ir_graph *g, int i, const char *op_type, const int *ins, int n_in, int keep)
{
    ir_node *n = &g->nodes[i];
    int out = n->out[keep];
    for (int j = 0; j < n->n_out; j++)
        if (n->out[j] >= 0 && j != keep) g->values[n->out[j]].producer = -1;
    ir_node_clear_attrs(n);
    free(n->params);
    n->params = NULL;
    free(n->op_type);
    n->op_type = pz_xstrdup(op_type);
    free(n->domain);
    n->domain = pz_xstrdup("");
    n->op = op_find(op_type);
    PZ_ASSERT(n->op);
    n->unfold_k = 0;
    n->n_in = 0;
    ir_node_set_n_in(n, n_in);
    for (int j = 0; j < n_in; j++) n->in[j] = ins[j];
    n->n_out = 1;
    n->out[0] = out;
}

int op_become_identities(ir_graph *g, int i, const int *src)
{
    ir_node *n = &g->nodes[i];
    int n_out = n->n_out, first = -1;
    int *outs = pz_xmalloc((size_t)(n_out ? n_out : 1) * sizeof(int));
    memcpy(outs, n->out, (size_t)n_out * sizeof(int));
    char *name = pz_xstrdup(n->name);
    for (int k = 0; k < n_out; k++)
        if (outs[k] >= 0 && first < 0) first = k;
    if (first < 0) {   /* no output is used: the node goes */
        ir_graph_remove_node(g, i);
        free(name);
        free(outs);
        return 0;
    }
    op_node_rewrite(g, i, "Identity", &src[first], 1, first);
    int start = g->n_nodes;
    size_t len = strlen(name) + 24;
    char *buf = pz_xmalloc(len);
    for (int k = first + 1; k < n_out; k++) {
        if (outs[k] < 0) continue;
        snprintf(buf, len, "%s:%d", name, k);
        op_append_node(g, buf, "Identity", &src[k], 1, &outs[k], 1);
    }
    int added = g->n_nodes - start;
    ir_graph_move_tail(g, start, i + 1);
    free(buf);
    free(name);
    free(outs);
    return added;
}
