/* op_seq.c - sequences and optionals known at compile time (op_seq.h). */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

static const char *kind_name(int kind)
{
    return kind == IR_KIND_SEQ ? "a sequence" : kind == IR_KIND_OPT ? "an optional" : "a tensor";
}

const ir_node *op_seq_split_rt(const ir_graph *g, const ir_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return NULL;
    const ir_value *v = &g->values[n->in[i]];
    if (v->kind != IR_KIND_SEQ || v->producer < 0) return NULL;
    const ir_node *p = &g->nodes[v->producer];
    return strcmp(p->op_type, "SplitToSequence") ? NULL : p;
}

pz_status op_seq_split_args(const ir_graph *g, const ir_node *sp, int *x, int *ax, int *keep,
                            int *split, pz_err *err)
{
    int64_t axis, keepdims;
    *x = sp->in[0];
    if (op_attr_int(sp, "axis", 0, &axis, err) || op_attr_int(sp, "keepdims", 1, &keepdims, err) ||
        op_axis(sp, "axis", axis, g->values[*x].t.rank, 0, ax, err))
        return err->code;
    *split = sp->n_in >= 2 && sp->in[1] >= 0 ? sp->in[1] : -1;
    *keep = keepdims != 0 || *split >= 0;   /* ONNX: keepdims is ignored with a split */
    return PZ_OK;
}

/* Fails naming n when a sequence it reads (input i, or its producer via
 * an Identity) is one split at run time, which only some readers take. */
static pz_status not_split_rt(const ir_graph *g, const ir_node *n, int i, pz_err *err)
{
    const ir_node *p = op_seq_split_rt(g, n, i);
    if (!p) return PZ_OK;
    return op_err(err, n, "input %d \"%s\" is the sequence node \"%s\" (SplitToSequence) "
                  "splits at run time, its length the run's: only SequenceAt, SequenceLength "
                  "and ConcatFromSequence rebuilding the input read it", i,
                  g->values[n->in[i]].name, p->name);
}

pz_status op_seq_elems(const ir_graph *g, const ir_node *n, int i, const int **elems, int *count,
                       pz_err *err)
{
    if (i >= n->n_in || n->in[i] < 0) return op_err(err, n, "input %d (a sequence) is missing", i);
    const ir_value *v = &g->values[n->in[i]];
    if (v->kind != IR_KIND_SEQ || v->producer < 0)
        return op_err(err, n, "input %d \"%s\" is %s, the op takes a sequence", i, v->name,
                      kind_name(v->kind));
    if (not_split_rt(g, n, i, err)) return err->code;
    const ir_node *p = &g->nodes[v->producer];
    *elems = p->in;
    *count = p->n_in;
    return PZ_OK;
}

pz_status op_seq_pos(const ir_graph *g, const ir_node *n, int i, int64_t def, int count,
                     int inclusive, int64_t *pos, pz_err *err)
{
    *pos = def;
    if (i < n->n_in && n->in[i] >= 0) {
        int cnt;
        if (op_const_ints(g, n, i, "position", pos, 1, &cnt, err)) return err->code;
        if (cnt != 1) return op_err(err, n, "position must be one integer, got %d", cnt);
    }
    int64_t hi = inclusive ? count : count - 1;
    if (*pos < -count || *pos > hi)
        return op_err(err, n, "position %lld is out of range for a sequence of %d element(s) "
                      "([%d, %lld])", (long long)*pos, count, -count, (long long)hi);
    if (*pos < 0) *pos += count;
    return PZ_OK;
}

int *op_ids_dup(const int *ids, int count)
{
    int *c = pz_xmalloc((size_t)(count ? count : 1) * sizeof(int));
    if (count) memcpy(c, ids, (size_t)count * sizeof(int));
    return c;
}

void op_seq_rewrite(ir_graph *g, int i, const int *elems, int count, ir_dtype dt)
{
    int *ins = op_ids_dup(elems, count);   /* elems may point into node i */
    op_node_rewrite(g, i, "SequenceConstruct", ins, count, 0);
    g->values[g->nodes[i].out[0]].t.dtype = dt;
    free(ins);
}

void op_set_container(ir_graph *g, const ir_node *n, int kind, ir_dtype dt)
{
    op_set_out(g, n, 0, dt, 0, NULL);
    g->values[n->out[0]].kind = (unsigned)kind;
}

pz_status op_seq_reads(ir_graph *g, int i, int *again, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    *again = 0;
    if (n->op->takes_seq) return PZ_OK;
    for (int k = 0; k < n->n_in; k++) {
        if (n->in[k] < 0) continue;
        const ir_value *v = &g->values[n->in[k]];
        if (v->kind == IR_KIND_TENSOR) continue;
        if (strcmp(n->op_type, "Identity") || v->producer < 0)
            return op_err(err, n, "input %d \"%s\" is %s; %s takes tensors", k, v->name,
                          kind_name(v->kind), n->op_type);
        if (not_split_rt(g, n, k, err)) return err->code;
        /* Identity(container): the same elements under the new name (a
         * SequenceConstruct keeps the element type of an empty sequence) */
        const ir_node *p = &g->nodes[v->producer];
        int kind = v->kind;
        ir_dtype dt = v->t.dtype;
        int *ins = op_ids_dup(p->in, p->n_in);
        op_node_rewrite(g, i, kind == IR_KIND_SEQ ? "SequenceConstruct" : "Optional", ins,
                        p->n_in, 0);
        op_set_container(g, &g->nodes[i], kind, dt);
        free(ins);
        *again = 1;
        return PZ_OK;
    }
    return PZ_OK;
}

/* The elements of container value v as graph outputs: an Identity each,
 * named "<output>/<k>". */
static void flatten_one(ir_graph *g, int v, const char *name, ir_out_group *grp)
{
    const ir_value *val = &g->values[v];
    grp->kind = val->kind;
    grp->inner = IR_KIND_TENSOR;
    grp->first = g->n_outputs;
    grp->n = 0;
    if (val->kind == IR_KIND_TENSOR) {
        ir_graph_add_output(g, v);
        grp->n = 1;
        return;
    }
    const ir_node *p = &g->nodes[val->producer];
    int n_el = p->n_in;
    int *el = op_ids_dup(p->in, n_el);
    if (val->kind == IR_KIND_OPT && n_el == 1 && el[0] >= 0 &&
        g->values[el[0]].kind == IR_KIND_SEQ) {
        /* an optional holding a sequence: its elements */
        grp->inner = IR_KIND_SEQ;
        const ir_node *q = &g->nodes[g->values[el[0]].producer];
        free(el);
        n_el = q->n_in;
        el = op_ids_dup(q->in, n_el);
    }
    size_t len = strlen(name) + 24;
    char *buf = pz_xmalloc(len);
    for (int k = 0; k < n_el; k++) {
        if (el[k] < 0) continue;   /* Optional() with an empty input */
        snprintf(buf, len, "%s/%d", name, k);
        int y = ir_graph_add_value_unique(g, buf);
        op_append_node(g, buf, "Identity", &el[k], 1, &y, 1);
        ir_graph_add_output(g, y);
        grp->n++;
    }
    free(buf);
    free(el);
}

pz_status op_seq_outputs(ir_graph *g, pz_err *err)
{
    int any = 0;
    for (int i = 0; i < g->n_outputs; i++) {
        const ir_value *v = &g->values[g->outputs[i]];
        any |= v->kind != IR_KIND_TENSOR;
        if (v->kind == IR_KIND_SEQ && v->producer >= 0 &&
            !strcmp(g->nodes[v->producer].op_type, "SplitToSequence"))
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "graph output \"%s\" is the sequence node "
                           "\"%s\" (SplitToSequence) splits at run time: a graph output "
                           "sequence has a compile-time length", v->name,
                           g->nodes[v->producer].name);
    }
    if (!any) return PZ_OK;
    int n_old = g->n_outputs;
    int *old = op_ids_dup(g->outputs, n_old);
    g->n_outputs = 0;
    g->out_groups = pz_xcalloc((size_t)n_old, sizeof *g->out_groups);
    g->n_out_groups = n_old;
    for (int i = 0; i < n_old; i++) {
        ir_value *v = &g->values[old[i]];
        if (v->kind != IR_KIND_TENSOR) v->is_output = 0;
        g->out_groups[i].name = pz_xstrdup(v->name);
        flatten_one(g, old[i], g->out_groups[i].name, &g->out_groups[i]);
    }
    free(old);
    return PZ_OK;
}

void op_seq_drop(ir_graph *g)
{
    unsigned char *dead = pz_xcalloc((size_t)(g->n_nodes ? g->n_nodes : 1), 1);
    int any = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (n->n_out >= 1 && n->out[0] >= 0 && g->values[n->out[0]].kind != IR_KIND_TENSOR)
            dead[i] = 1, any = 1;
    }
    if (any) ir_graph_compact(g, dead);
    free(dead);
}
