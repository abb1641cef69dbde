/* tree_ensemble.c - TreeEnsemble (ai.onnx.ml, opset 5): X float/double
 * [N, F] -> Y [N, n_targets], the sum (or average, min, max) over the trees
 * of the leaf weights a row reaches, then a post transform. Nodes compare
 * X[featureid] with their split (<=, <, >=, >, ==, != or membership in a set
 * of membership_values, the sets separated by NaN, one per membership node
 * in order); nodes_*leafs says whether a child index is a leaf. Runs as
 * TREES (trees.h); PROBIT and float16 X are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trees.h"

/* A TENSOR attribute as doubles (float, double or float16 tensors);
 * *count = -1 when absent. The caller frees *out. */
static pz_status attr_values(const ir_node *n, const char *name, double **out, int64_t *count,
                             pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    *out = NULL;
    *count = -1;
    if (!a) return PZ_OK;
    if (op_attr_expect(n, a, IR_ATTR_TENSOR, err)) return err->code;
    const ir_tensor *t = a->t;
    if (t->dtype != IR_F32 && t->dtype != IR_F64 && t->dtype != IR_U8)
        return op_err_attr(err, n, name, "is a %s tensor", ir_dtype_name(t->dtype));
    const int64_t m = ir_tensor_numel(t);
    *out = pz_xcalloc((size_t)m + 1, sizeof **out);
    for (int64_t i = 0; i < m; i++)
        (*out)[i] = t->dtype == IR_F32 ? (double)((const float *)t->data)[i]
                  : t->dtype == IR_F64 ? ((const double *)t->data)[i]
                                       : (double)((const uint8_t *)t->data)[i];
    *count = m;
    return PZ_OK;
}

/* The attributes of n in the shared form; f zeroed on error. */
static pz_status read_form(const ir_node *n, trees_form *f, pz_err *err)
{
    memset(f, 0, sizeof *f);
    int64_t agg, post, nt;
    if (op_attr_int(n, "aggregate_function", 1, &agg, err) ||
        op_attr_int(n, "post_transform", 0, &post, err) || op_attr_int(n, "n_targets", 0, &nt, err))
        return err->code;
    if (agg < 0 || agg > 3) return op_err_attr(err, n, "aggregate_function", "%lld", (long long)agg);
    if (post == 4)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (TreeEnsemble): attribute "
                       "'post_transform' 4 (PROBIT) is not supported", n->name);
    if (post < 0 || post > 3) return op_err_attr(err, n, "post_transform", "%lld", (long long)post);
    const ir_attr *feat = trees_attr_need(n, "nodes_featureids", IR_ATTR_INTS, err), *tid, *fid, *tl, *fl, *roots, *lt;
    if (!feat || !(tid = trees_attr_need(n, "nodes_truenodeids", IR_ATTR_INTS, err)) ||
        !(fid = trees_attr_need(n, "nodes_falsenodeids", IR_ATTR_INTS, err)) || !(tl = trees_attr_need(n, "nodes_trueleafs", IR_ATTR_INTS, err)) ||
        !(fl = trees_attr_need(n, "nodes_falseleafs", IR_ATTR_INTS, err)) || !(roots = trees_attr_need(n, "tree_roots", IR_ATTR_INTS, err)) ||
        !(lt = trees_attr_need(n, "leaf_targetids", IR_ATTR_INTS, err)))
        return err->code;
    const ir_attr *miss = op_attr(n, "nodes_missing_value_tracks_true");
    if (miss && op_attr_expect(n, miss, IR_ATTR_INTS, err)) return err->code;
    double *modes = NULL, *splits = NULL, *weights = NULL, *members = NULL;
    int64_t nm, ns, nw, nmem;
    pz_status st = PZ_OK;
    if ((st = attr_values(n, "nodes_modes", &modes, &nm, err)) ||
        (st = attr_values(n, "nodes_splits", &splits, &ns, err)) ||
        (st = attr_values(n, "leaf_weights", &weights, &nw, err)) ||
        (st = attr_values(n, "membership_values", &members, &nmem, err)))
        goto done;
    const int64_t N = feat->n, L = lt->n;
    if (tid->n != N || fid->n != N || tl->n != N || fl->n != N || nm != N || ns != N ||
        (miss && miss->n != N)) {
        st = op_err(err, n, "the nodes_* attributes must all have %lld entries", (long long)N);
        goto done;
    }
    if (nw != L) {
        st = op_err_attr(err, n, "leaf_weights", "has %lld entries for %lld leaf_targetids",
                         (long long)nw, (long long)L);
        goto done;
    }
    f->n_targets = nt;
    f->aggregate = (int)agg;
    f->post = (int)post;
    f->n_nodes = N;
    f->nodes = pz_xcalloc((size_t)N + 1, sizeof *f->nodes);
    int64_t n_member_nodes = 0;
    for (int64_t i = 0; i < N; i++) {
        trees_node *d = &f->nodes[i];
        d->feature = feat->ints[i];
        d->mode = (int64_t)modes[i];
        d->split = splits[i];
        d->miss_true = miss ? miss->ints[i] != 0 : 0;
        d->set = d->mode == PZ_TREES_MEMBER ? n_member_nodes++ : -1;
        d->t = tl->ints[i] ? -(tid->ints[i] + 1) : tid->ints[i];
        d->f = fl->ints[i] ? -(fid->ints[i] + 1) : fid->ints[i];
        if (tid->ints[i] < 0 || fid->ints[i] < 0) {
            st = op_err(err, n, "node %lld: a child index is negative", (long long)i);
            goto done;
        }
    }
    /* the sets: membership_values cut at each NaN */
    f->n_sets = n_member_nodes;
    f->set_first = pz_xcalloc((size_t)n_member_nodes + 1, sizeof *f->set_first);
    f->set_count = pz_xcalloc((size_t)n_member_nodes + 1, sizeof *f->set_count);
    f->members = pz_xcalloc((size_t)(nmem > 0 ? nmem : 0) + 1, sizeof *f->members);
    int64_t s = 0, found = 0;
    for (int64_t k = 0; k < nmem && s < n_member_nodes; k++) {
        if (k == 0 || members[k - 1] != members[k - 1]) f->set_first[s] = f->n_members;
        if (members[k] != members[k]) {   /* NaN ends set s */
            s++;
            found = s;
            continue;
        }
        f->members[f->n_members++] = members[k];
        f->set_count[s]++;
        found = s + 1;
    }
    if (found < n_member_nodes) {
        st = op_err_attr(err, n, "membership_values", "holds %lld sets for %lld membership "
                         "nodes", (long long)found, (long long)n_member_nodes);
        goto done;
    }
    /* one leaf group an entry */
    f->n_roots = roots->n;
    f->roots = pz_xcalloc((size_t)roots->n + 1, sizeof *f->roots);
    memcpy(f->roots, roots->ints, (size_t)roots->n * sizeof *f->roots);
    f->n_groups = f->n_entries = L;
    f->group_first = pz_xcalloc((size_t)L + 1, sizeof *f->group_first);
    f->group_count = pz_xcalloc((size_t)L + 1, sizeof *f->group_count);
    f->target = pz_xcalloc((size_t)L + 1, sizeof *f->target);
    f->weight = pz_xcalloc((size_t)L + 1, sizeof *f->weight);
    for (int64_t j = 0; j < L; j++) {
        f->group_first[j] = j;
        f->group_count[j] = 1;
        f->target[j] = lt->ints[j];
        f->weight[j] = weights[j];
    }
    st = trees_check(n, f, err);
done:
    free(modes);
    free(splits);
    free(weights);
    free(members);
    if (st) trees_form_free(f);
    return st;
}

static pz_status tree_ensemble_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    return trees_op_parse(n, read_form, 0, params, err);
}

static int tree_ensemble_expand(ir_graph *g, int i)
{
    return trees_op_expand(g, i, read_form);
}

static pz_status tree_ensemble_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    return trees_op_lower(n, read_form, out, err);
}

const op_def op_tree_ensemble = {
    .name = "TreeEnsemble",
    .domain = "ai.onnx.ml",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(trees_op_params),
    .parse = tree_ensemble_parse,
    .infer = trees_op_infer,
    .expand = tree_ensemble_expand,
    .lower = tree_ensemble_lower,
};
