/* trees.c - the TREES layer (ONNX TreeEnsemble, TreeEnsembleRegressor):
 * X float/double [N, F], the packed forest (src/ops/trees.h) -> Y [N,
 * n_targets] of X's type (TreeEnsemble) or float (the regressor). Prepare checks every index of the constants once;
 * run trusts them. */
#include "rt/ops/ops.h"

static int bad_ref(const pz_trees_params *p, int64_t r)
{
    return r >= 0 ? r >= p->n_nodes : -(r + 1) >= p->n_groups;
}

/* The constants' indexes, all in range; 0 or an error. */
static int check_forest(pz_layer *l, char *err, size_t n, int64_t F)
{
    const pz_trees_params *p = l->params;
    const int64_t *nodes = pz_in(l, 1)->data;
    if (!nodes) return 0;   /* not constant: the compiler only makes constants */
    const int64_t *roots = nodes + 6 * p->n_nodes, *groups = roots + p->n_roots,
                  *target = groups + 2 * p->n_groups, *sets = target + p->n_entries;
    for (int64_t i = 0; i < p->n_nodes; i++) {
        const int64_t *d = nodes + 6 * i;
        if (d[0] < 0 || d[0] >= F || d[1] < PZ_TREES_LEQ || d[1] > PZ_TREES_MEMBER ||
            bad_ref(p, d[2]) || bad_ref(p, d[3]) ||
            (d[1] == PZ_TREES_MEMBER && (d[5] < 0 || d[5] >= p->n_sets)))
            return pz_layer_fail(l, err, n, "node %lld of the forest is malformed", (long long)i);
    }
    for (int64_t k = 0; k < p->n_roots; k++)
        if (bad_ref(p, roots[k])) return pz_layer_fail(l, err, n, "root %lld is out of range",
                                                       (long long)k);
    for (int64_t g = 0; g < p->n_groups; g++)
        if (groups[2 * g] < 0 || groups[2 * g + 1] < 0 ||
            groups[2 * g] + groups[2 * g + 1] > p->n_entries)
            return pz_layer_fail(l, err, n, "leaf %lld is out of range", (long long)g);
    for (int64_t e = 0; e < p->n_entries; e++)
        if (target[e] < 0 || target[e] >= p->n_targets)
            return pz_layer_fail(l, err, n, "target %lld is out of range", (long long)target[e]);
    for (int64_t s = 0; s < p->n_sets; s++)
        if (sets[2 * s] < 0 || sets[2 * s + 1] < 0 || sets[2 * s] + sets[2 * s + 1] > p->n_members)
            return pz_layer_fail(l, err, n, "membership set %lld is out of range", (long long)s);
    return 0;
}

static int trees_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_trees_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *ti = pz_in(l, 1), *tr = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !ti || !tr || !y) return pz_layer_fail(l, err, n, "needs X, trees, values and Y");
    if (x->dtype != PZ_F32 && x->dtype != PZ_F64)
        return pz_layer_fail(l, err, n, "X has type %s, expected float or double",
                             pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "trees", ti, PZ_I64) ||
        pz_layer_want_dtype(l, err, n, "values", tr, PZ_F64))
        return 1;
    if (y->dtype != x->dtype && y->dtype != PZ_F32)   /* the regressor's Y is float */
        return pz_layer_fail(l, err, n, "Y has type %s, expected X's or float",
                             pz_dtype_name(y->dtype));
    if (p->n_nodes < 0 || p->n_roots < 1 || p->n_groups < 0 || p->n_entries < 0 ||
        p->n_sets < 0 || p->n_members < 0 || p->n_targets < 1 ||
        (unsigned)p->aggregate > PZ_TREES_MAX || (unsigned)p->post > PZ_TREES_SOFTMAX_ZERO)
        return pz_layer_fail(l, err, n, "bad params");
    if (pz_numel(ti) != 6 * p->n_nodes + p->n_roots + 2 * p->n_groups + p->n_entries +
                            2 * p->n_sets ||
        pz_numel(tr) != p->n_nodes + p->n_entries + p->n_members + p->n_targets)
        return pz_layer_fail(l, err, n, "the forest's constants do not match its params");
    if (x->rank != 2 || y->rank != 2 || y->dims[0] != x->dims[0] || y->dims[1] != p->n_targets)
        return pz_layer_fail(l, err, n, "X must be [N, F] and Y [N, %lld]",
                             (long long)p->n_targets);
    if (check_forest(l, err, n, x->dims[1])) return 1;
    l->scratch_bytes = (size_t)l->nth * (size_t)p->n_targets * (sizeof(double) + sizeof(int));
    l->scratch_run_only = 1;
    return 0;
}

static void trees_run(const pz_layer *l, int ith, int nth)
{
    const pz_trees_params *p = l->params;
    const pz_tensor *x = l->in[0];
    double *acc = (double *)l->scratch + (size_t)ith * (size_t)p->n_targets;
    int *hits = (int *)((double *)l->scratch + (size_t)l->nth * (size_t)p->n_targets) +
                (size_t)ith * (size_t)p->n_targets;
    pz_any_trees__ref(p, x->dtype, x->dims[0], x->dims[1], x->data, l->in[1]->data,
                      l->in[2]->data, l->out[0]->dtype, l->out[0]->data, acc, hits, ith, nth);
}

static const char *const trees_aggs[] = {"PZ_TREES_AVERAGE", "PZ_TREES_SUM", "PZ_TREES_MIN",
                                         "PZ_TREES_MAX"};
static const char *const trees_posts[] = {"PZ_TREES_NONE", "PZ_TREES_SOFTMAX", "PZ_TREES_LOGISTIC",
                                          "PZ_TREES_SOFTMAX_ZERO"};

static const pz_param_field trees_fields[] = {
    PZ_FIELD(pz_trees_params, n_nodes, PZ_F_I64),
    PZ_FIELD(pz_trees_params, n_roots, PZ_F_I64),
    PZ_FIELD(pz_trees_params, n_groups, PZ_F_I64),
    PZ_FIELD(pz_trees_params, n_entries, PZ_F_I64),
    PZ_FIELD(pz_trees_params, n_sets, PZ_F_I64),
    PZ_FIELD(pz_trees_params, n_members, PZ_F_I64),
    PZ_FIELD(pz_trees_params, n_targets, PZ_F_I64),
    PZ_FIELD_ENUM(pz_trees_params, aggregate, trees_aggs),
    PZ_FIELD_ENUM(pz_trees_params, post, trees_posts),
};

const pz_rt_op pz_rt_op_trees = {
    .name = "TREES", PZ_OP_PARAMS(pz_trees_params, trees_fields),
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = trees_prepare, .run = trees_run,
};
