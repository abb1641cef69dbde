/* trees.c - the tree ensembles' shared form (trees.h): checks and packing. */
#include <stdlib.h>
#include <string.h>

#include "op_infer.h"
#include "trees.h"

void trees_form_free(trees_form *f)
{
    free(f->nodes);
    free(f->roots);
    free(f->group_first);
    free(f->group_count);
    free(f->target);
    free(f->weight);
    free(f->set_first);
    free(f->set_count);
    free(f->members);
    free(f->base);
    memset(f, 0, sizeof *f);
}

const ir_attr *trees_attr_need(const ir_node *n, const char *name, ir_attr_type ty, pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    if (!a) {
        op_err_attr(err, n, name, "is required");
        return NULL;
    }
    return op_attr_expect(n, a, ty, err) ? NULL : a;
}

/* A reference is a node or a leaf group in range. */
static int ref_ok(const trees_form *f, int64_t r)
{
    return r >= 0 ? r < f->n_nodes : -(r + 1) < f->n_groups;
}

pz_status trees_check(const ir_node *n, const trees_form *f, pz_err *err)
{
    if (f->n_targets < 1 || f->n_targets > 1000000)
        return op_err_attr(err, n, "n_targets", "%lld is out of range", (long long)f->n_targets);
    if (f->n_roots < 1) return op_err(err, n, "the ensemble has no tree");
    for (int64_t i = 0; i < f->n_nodes; i++) {
        const trees_node *d = &f->nodes[i];
        if (d->feature < 0 || d->feature > (int64_t)1 << 31)
            return op_err(err, n, "node %lld reads feature %lld", (long long)i,
                          (long long)d->feature);
        if (d->mode < PZ_TREES_LEQ || d->mode > PZ_TREES_MEMBER)
            return op_err(err, n, "node %lld has mode %lld", (long long)i, (long long)d->mode);
        if ((d->mode == PZ_TREES_MEMBER) != (d->set >= 0) || d->set >= f->n_sets)
            return op_err(err, n, "node %lld: a membership node needs a set of "
                          "membership_values (one per such node, in order)", (long long)i);
        if (!ref_ok(f, d->t) || !ref_ok(f, d->f))
            return op_err(err, n, "node %lld: a child is out of range", (long long)i);
    }
    for (int64_t r = 0; r < f->n_roots; r++)
        if (!ref_ok(f, f->roots[r]))
            return op_err(err, n, "tree %lld: its root is out of range", (long long)r);
    for (int64_t g = 0; g < f->n_groups; g++)
        if (f->group_first[g] < 0 || f->group_count[g] < 0 ||
            f->group_first[g] + f->group_count[g] > f->n_entries)
            return op_err(err, n, "leaf %lld: its targets are out of range", (long long)g);
    for (int64_t e = 0; e < f->n_entries; e++)
        if (f->target[e] < 0 || f->target[e] >= f->n_targets)
            return op_err(err, n, "a leaf's target %lld is not below n_targets %lld",
                          (long long)f->target[e], (long long)f->n_targets);
    /* no cycle: a depth-first walk from every root (state 1: on the path,
     * 2: done) that meets a node on its own path has found one */
    unsigned char *state = pz_xcalloc((size_t)f->n_nodes + 1, 1);
    int64_t *stack = pz_xcalloc((size_t)f->n_nodes + 1, sizeof *stack);
    int64_t *next = pz_xcalloc((size_t)f->n_nodes + 1, sizeof *next);   /* child to visit: 0, 1, 2 */
    int cycle = 0;
    for (int64_t r = 0; r < f->n_roots && !cycle; r++) {
        if (f->roots[r] < 0 || state[f->roots[r]]) continue;
        int64_t sp = 0;
        stack[sp++] = f->roots[r];
        state[f->roots[r]] = 1;
        next[f->roots[r]] = 0;
        while (sp > 0 && !cycle) {
            const int64_t v = stack[sp - 1];
            if (next[v] == 2) {
                state[v] = 2;
                sp--;
                continue;
            }
            const int64_t c = next[v]++ == 0 ? f->nodes[v].t : f->nodes[v].f;
            if (c < 0 || state[c] == 2) continue;
            if (state[c] == 1) {
                cycle = 1;
                break;
            }
            state[c] = 1;
            next[c] = 0;
            stack[sp++] = c;
        }
    }
    free(state);
    free(stack);
    free(next);
    if (cycle) return op_err(err, n, "the trees hold a cycle (a node is its own descendant)");
    return PZ_OK;
}

pz_status trees_op_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const trees_op_params *p = n->params;
    const int64_t n_targets = p->n_targets, max_feature = p->max_feature;
    const ir_tensor *x = op_in(g, n, 0);
    if (x->dtype != IR_F32 && x->dtype != IR_F64)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input X has type %s: float "
                       "and double are supported", n->name, n->op_type, ir_dtype_name(x->dtype));
    if (x->rank != 2)
        return op_err(err, n, "input X has rank %d, expected 2 ([N, F])", x->rank);
    if (max_feature >= x->dims[1])
        return op_err(err, n, "a node reads feature %lld of X's %lld", (long long)max_feature,
                      (long long)x->dims[1]);
    const int64_t dims[2] = {x->dims[0], n_targets};
    op_set_out(g, n, 0, p->y_f32 ? IR_F32 : x->dtype, 2, dims);
    return PZ_OK;
}

static void trees_attach(ir_graph *g, int i, const trees_form *f)
{
    const int64_t ni = 6 * f->n_nodes + f->n_roots + 2 * f->n_groups + f->n_entries +
                       2 * f->n_sets,
                  nr = f->n_nodes + f->n_entries + f->n_members + f->n_targets;
    int64_t *iv = pz_xcalloc((size_t)ni, sizeof *iv), *p = iv;
    double *rv = pz_xcalloc((size_t)nr, sizeof *rv), *q = rv;
    for (int64_t k = 0; k < f->n_nodes; k++) {
        const trees_node *d = &f->nodes[k];
        *p++ = d->feature, *p++ = d->mode, *p++ = d->t, *p++ = d->f, *p++ = d->miss_true;
        *p++ = d->set;
        *q++ = d->split;
    }
    for (int64_t k = 0; k < f->n_roots; k++) *p++ = f->roots[k];
    for (int64_t k = 0; k < f->n_groups; k++) *p++ = f->group_first[k], *p++ = f->group_count[k];
    for (int64_t k = 0; k < f->n_entries; k++) *p++ = f->target[k], *q++ = f->weight[k];
    for (int64_t k = 0; k < f->n_sets; k++) *p++ = f->set_first[k], *p++ = f->set_count[k];
    for (int64_t k = 0; k < f->n_members; k++) *q++ = f->members[k];
    for (int64_t k = 0; k < f->n_targets; k++) *q++ = f->base ? f->base[k] : 0.0;
    int vi = op_add_const(g, i, "trees", IR_I64, ni, iv);
    int vr = op_add_const(g, i, "values", IR_F64, nr, rv);
    free(iv);
    free(rv);
    ir_node *n = &g->nodes[i];
    ir_node_set_n_in(n, 3);
    n->in[1] = vi;
    n->in[2] = vr;
    ir_cost_node(g, n);
}

static void trees_params(const trees_form *f, pz_trees_params *p)
{
    memset(p, 0, sizeof *p);
    p->n_nodes = f->n_nodes;
    p->n_roots = f->n_roots;
    p->n_groups = f->n_groups;
    p->n_entries = f->n_entries;
    p->n_sets = f->n_sets;
    p->n_members = f->n_members;
    p->n_targets = f->n_targets;
    p->aggregate = f->aggregate;
    p->post = f->post;
}

pz_status trees_op_parse(const ir_node *n, trees_read_fn rd, int y_f32, void *params,
                         pz_err *err)
{
    trees_op_params *p = params;
    trees_form f;
    if (rd(n, &f, err)) return err->code;
    p->n_targets = f.n_targets;
    p->max_feature = 0;
    p->y_f32 = y_f32;
    for (int64_t i = 0; i < f.n_nodes; i++)
        if (f.nodes[i].feature > p->max_feature) p->max_feature = f.nodes[i].feature;
    trees_form_free(&f);
    return PZ_OK;
}

int trees_op_expand(ir_graph *g, int i, trees_read_fn rd)
{
    if (g->nodes[i].n_in != 1) return 0;   /* done already */
    trees_form f;
    pz_err err = {0};
    if (rd(&g->nodes[i], &f, &err)) return 0;   /* parse accepted it: cannot fail */
    trees_attach(g, i, &f);
    trees_form_free(&f);
    return 0;
}

pz_status trees_op_lower(const ir_node *n, trees_read_fn rd, op_lowered *out, pz_err *err)
{
    if (n->n_in != 3)   /* trees_op_expand did not run (a caller that skips ir_model_lower) */
        return pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (%s): its trees were not prepared "
                       "for the runtime", n->name, n->op_type);
    trees_form f;
    if (rd(n, &f, err)) return err->code;
    pz_trees_params tp;
    trees_params(&f, &tp);
    trees_form_free(&f);
    op_lowered_init(out, n, PZ_OP_TREES, &tp, sizeof tp);
    return PZ_OK;
}
