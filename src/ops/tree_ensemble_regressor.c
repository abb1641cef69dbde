/* tree_ensemble_regressor.c - TreeEnsembleRegressor (ai.onnx.ml, opsets 1
 * and 3), what scikit-learn exporters write for forests and boosted trees:
 * X float/double [N, F] -> Y float [N, n_targets]. Nodes are named by
 * (nodes_treeids, nodes_nodeids); a node of mode LEAF is a leaf, whose
 * weights are the target_* entries naming it (several targets a leaf). Each
 * tree's root is its first node listed, as ONNX Runtime takes it. After the
 * aggregate, base_values are added, then the post transform. Runs as TREES
 * (trees.h); PROBIT is refused. */
#include <stdlib.h>
#include <string.h>

#include "trees.h"

typedef struct {
    int64_t tree, node, at;   /* at: the node's position in the attributes */
} key;

static int key_cmp(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->tree != y->tree) return x->tree < y->tree ? -1 : 1;
    if (x->node != y->node) return x->node < y->node ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int64_t find(const key *k, int64_t n, int64_t tree, int64_t node)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = k[mid].tree != tree ? (k[mid].tree < tree ? -1 : 1)
              : k[mid].node != node ? (k[mid].node < node ? -1 : 1) : 0;
        if (!c) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* A FLOATS attribute or its *_as_tensor twin (opset 3) as doubles; NULL and
 * *count -1 when both are absent. */
static pz_status values(const ir_node *n, const char *name, double **out, int64_t *count,
                        pz_err *err)
{
    char tname[64];
    snprintf(tname, sizeof tname, "%s_as_tensor", name);
    const ir_attr *a = op_attr(n, name), *t = op_attr(n, tname);
    *out = NULL;
    *count = -1;
    if (t) {
        if (op_attr_expect(n, t, IR_ATTR_TENSOR, err)) return err->code;
        if (t->t->dtype != IR_F32 && t->t->dtype != IR_F64)
            return op_err_attr(err, n, tname, "is a %s tensor", ir_dtype_name(t->t->dtype));
        *count = ir_tensor_numel(t->t);
        *out = pz_xcalloc((size_t)*count + 1, sizeof **out);
        for (int64_t i = 0; i < *count; i++)
            (*out)[i] = t->t->dtype == IR_F32 ? ((const float *)t->t->data)[i]
                                              : ((const double *)t->t->data)[i];
    } else if (a) {
        if (op_attr_expect(n, a, IR_ATTR_FLOATS, err)) return err->code;
        *count = a->n;
        *out = pz_xcalloc((size_t)a->n + 1, sizeof **out);
        for (int i = 0; i < a->n; i++) (*out)[i] = a->floats[i];
    }
    return PZ_OK;
}

static const char *const MODES[] = {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT",
                                    "BRANCH_EQ", "BRANCH_NEQ"};
static const char *const AGGS[] = {"AVERAGE", "SUM", "MIN", "MAX"};
static const char *const POSTS[] = {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"};

static int pick(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static pz_status read_form(const ir_node *n, trees_form *f, pz_err *err)
{
    memset(f, 0, sizeof *f);
    const char *agg_s, *post_s;
    int64_t nt;
    if (op_attr_string(n, "aggregate_function", "SUM", &agg_s, err) ||
        op_attr_string(n, "post_transform", "NONE", &post_s, err) ||
        op_attr_int(n, "n_targets", 0, &nt, err))
        return err->code;
    const int agg = pick(agg_s, AGGS, 4), post = pick(post_s, POSTS, 4);
    if (agg < 0) return op_err_attr(err, n, "aggregate_function", "\"%s\"", agg_s);
    if (!strcmp(post_s, "PROBIT"))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute 'post_transform' "
                       "PROBIT is not supported", n->name, n->op_type);
    if (post < 0) return op_err_attr(err, n, "post_transform", "\"%s\"", post_s);
    const ir_attr *tree, *id, *feat, *mode, *tid, *fid, *ttree, *tnode, *tt;
    if (!(tree = trees_attr_need(n, "nodes_treeids", IR_ATTR_INTS, err)) ||
        !(id = trees_attr_need(n, "nodes_nodeids", IR_ATTR_INTS, err)) ||
        !(feat = trees_attr_need(n, "nodes_featureids", IR_ATTR_INTS, err)) ||
        !(mode = trees_attr_need(n, "nodes_modes", IR_ATTR_STRINGS, err)) ||
        !(tid = trees_attr_need(n, "nodes_truenodeids", IR_ATTR_INTS, err)) ||
        !(fid = trees_attr_need(n, "nodes_falsenodeids", IR_ATTR_INTS, err)) ||
        !(ttree = trees_attr_need(n, "target_treeids", IR_ATTR_INTS, err)) ||
        !(tnode = trees_attr_need(n, "target_nodeids", IR_ATTR_INTS, err)) ||
        !(tt = trees_attr_need(n, "target_ids", IR_ATTR_INTS, err)))
        return err->code;
    const ir_attr *miss = op_attr(n, "nodes_missing_value_tracks_true");
    if (miss && op_attr_expect(n, miss, IR_ATTR_INTS, err)) return err->code;
    double *split = NULL, *weight = NULL, *base = NULL;
    int64_t ns, nw, nb;
    key *keys = NULL, *tk = NULL;
    pz_status st;
    if ((st = values(n, "nodes_values", &split, &ns, err)) ||
        (st = values(n, "target_weights", &weight, &nw, err)) ||
        (st = values(n, "base_values", &base, &nb, err)))
        goto done;
    const int64_t N = tree->n, E = ttree->n;
    if (id->n != N || feat->n != N || mode->n != N || tid->n != N || fid->n != N || ns != N ||
        (miss && miss->n != N)) {
        st = op_err(err, n, "the nodes_* attributes must all have %lld entries", (long long)N);
        goto done;
    }
    if (tnode->n != E || tt->n != E || nw != E) {
        st = op_err(err, n, "the target_* attributes must all have %lld entries", (long long)E);
        goto done;
    }
    if (nb >= 0 && nb != nt) {
        st = op_err_attr(err, n, "base_values", "has %lld entries for n_targets %lld",
                         (long long)nb, (long long)nt);
        goto done;
    }
    keys = pz_xcalloc((size_t)N + 1, sizeof *keys);
    for (int64_t i = 0; i < N; i++) keys[i] = (key){tree->ints[i], id->ints[i], i};
    qsort(keys, (size_t)N, sizeof *keys, key_cmp);
    for (int64_t i = 1; i < N; i++)
        if (keys[i].tree == keys[i - 1].tree && keys[i].node == keys[i - 1].node) {
            st = op_err(err, n, "tree %lld names node %lld twice", (long long)keys[i].tree,
                        (long long)keys[i].node);
            goto done;
        }
    /* internal index of each attribute position: branches count up from 0,
     * leaves get their group (in order of position) */
    int64_t *slot = pz_xcalloc((size_t)N + 1, sizeof *slot);
    int64_t nb_nodes = 0, n_leaves = 0;
    for (int64_t i = 0; i < N; i++) {
        if (!strcmp(mode->strings[i], "LEAF")) slot[i] = -(++n_leaves);
        else if (pick(mode->strings[i], MODES, 6) >= 0) slot[i] = nb_nodes++;
        else {
            st = op_err_attr(err, n, "nodes_modes", "entry %lld is \"%s\"", (long long)i,
                             mode->strings[i]);
            free(slot);
            goto done;
        }
    }
    f->n_targets = nt;
    f->aggregate = agg;
    f->post = post;
    f->n_nodes = nb_nodes;
    f->nodes = pz_xcalloc((size_t)nb_nodes + 1, sizeof *f->nodes);
    f->roots = pz_xcalloc((size_t)N + 1, sizeof *f->roots);
    for (int64_t i = 0; i < N; i++) {
        if (i == 0 || tree->ints[i] != tree->ints[i - 1]) {   /* a new tree: its root */
            for (int64_t r = 0; r < f->n_roots; r++)
                if (tree->ints[(int64_t)f->roots[r]] == tree->ints[i]) goto seen;
            f->roots[f->n_roots++] = i;   /* a position for now */
        seen:;
        }
        if (slot[i] < 0) continue;
        trees_node *d = &f->nodes[slot[i]];
        const int64_t c[2] = {tid->ints[i], fid->ints[i]};
        int64_t ref[2];
        for (int k = 0; k < 2; k++) {
            const int64_t at = find(keys, N, tree->ints[i], c[k]);
            if (at < 0) {
                st = op_err(err, n, "tree %lld node %lld: child %lld is not a node of the tree",
                            (long long)tree->ints[i], (long long)id->ints[i], (long long)c[k]);
                free(slot);
                goto done;
            }
            ref[k] = slot[keys[at].at];
        }
        d->feature = feat->ints[i];
        d->mode = pick(mode->strings[i], MODES, 6);
        d->split = split[i];
        d->miss_true = miss ? miss->ints[i] != 0 : 0;
        d->set = -1;
        d->t = ref[0];
        d->f = ref[1];
    }
    for (int64_t r = 0; r < f->n_roots; r++) f->roots[r] = slot[f->roots[r]];
    /* leaf groups: the target entries of each leaf, grouped by leaf */
    f->n_groups = n_leaves;
    f->n_entries = E;
    f->group_first = pz_xcalloc((size_t)n_leaves + 1, sizeof *f->group_first);
    f->group_count = pz_xcalloc((size_t)n_leaves + 1, sizeof *f->group_count);
    f->target = pz_xcalloc((size_t)E + 1, sizeof *f->target);
    f->weight = pz_xcalloc((size_t)E + 1, sizeof *f->weight);
    tk = pz_xcalloc((size_t)E + 1, sizeof *tk);
    for (int64_t e = 0; e < E; e++) {
        const int64_t at = find(keys, N, ttree->ints[e], tnode->ints[e]);
        if (at < 0 || slot[keys[at].at] >= 0) {
            st = op_err(err, n, "target entry %lld names tree %lld node %lld, which is no leaf",
                        (long long)e, (long long)ttree->ints[e], (long long)tnode->ints[e]);
            free(slot);
            goto done;
        }
        tk[e] = (key){-slot[keys[at].at] - 1, 0, e};   /* (group, -, entry) */
    }
    free(slot);
    qsort(tk, (size_t)E, sizeof *tk, key_cmp);   /* by group, then entry order */
    for (int64_t e = 0; e < E; e++) {
        const int64_t g = tk[e].tree;
        if (!f->group_count[g]) f->group_first[g] = e;
        f->group_count[g]++;
        f->target[e] = tt->ints[tk[e].at];
        f->weight[e] = weight[tk[e].at];
    }
    f->base = pz_xcalloc((size_t)(nt > 0 ? nt : 0) + 1, sizeof *f->base);
    for (int64_t t = 0; nb > 0 && t < nt; t++) f->base[t] = base[t];
    st = trees_check(n, f, err);
done:
    free(split);
    free(weight);
    free(base);
    free(keys);
    free(tk);
    if (st) trees_form_free(f);
    return st;
}

static pz_status tree_ensemble_regressor_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return trees_op_parse(n, read_form, 1, params, err);
}

static int tree_ensemble_regressor_expand(ir_graph *g, int i)
{
    return trees_op_expand(g, i, read_form);
}

static pz_status tree_ensemble_regressor_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return trees_op_lower(n, read_form, out, err);
}

const op_def op_tree_ensemble_regressor = {
    .name = "TreeEnsembleRegressor",
    .domain = "ai.onnx.ml",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(trees_op_params),
    .parse = tree_ensemble_regressor_parse,
    .infer = trees_op_infer,
    .expand = tree_ensemble_regressor_expand,
    .lower = tree_ensemble_regressor_lower,
};
