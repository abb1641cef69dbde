/* trees_ref.c - reference tree-ensemble evaluation: each row walks every
 * tree from its root to a leaf group, whose weights go to their targets
 * (sum, average, min or max over the trees that reach the target), then
 * the base values and the post transform. Values compare in X's type (a
 * float X against its splits rounded to float, as the ONNX ops define). */
#include <math.h>

#include "rt/kernels/kernels.h"

static double load(int dt, const void *x, int64_t i)
{
    return dt == PZ_F32 ? (double)((const float *)x)[i] : ((const double *)x)[i];
}

/* Does v go the node's true way? */
static int goes_true(int dt, const int64_t *nd, double split, double v, const int64_t *sets,
                     const double *members)
{
    if (nd[4] && v != v) return 1;   /* missing value tracks true */
    const double s = dt == PZ_F32 ? (double)(float)split : split;
    switch ((pz_trees_mode)nd[1]) {
    case PZ_TREES_LEQ: return v <= s;
    case PZ_TREES_LT: return v < s;
    case PZ_TREES_GTE: return v >= s;
    case PZ_TREES_GT: return v > s;
    case PZ_TREES_EQ: return v == s;
    case PZ_TREES_NEQ: return v != s;
    case PZ_TREES_MEMBER: {
        const int64_t *set = sets + 2 * nd[5];
        for (int64_t k = 0; k < set[1]; k++) {
            const double m = members[set[0] + k];
            if (v == (dt == PZ_F32 ? (double)(float)m : m)) return 1;
        }
        return 0;
    }
    }
    return 0;
}

void pz_any_trees__ref(const pz_trees_params *p, int dt, int64_t rows, int64_t F, const void *x,
                       const int64_t *ints, const double *reals, int ydt, void *y, double *acc,
                       int *hits, int ith, int nth)
{
    const int64_t *nodes = ints, *roots = nodes + 6 * p->n_nodes, *groups = roots + p->n_roots,
                  *target = groups + 2 * p->n_groups, *sets = target + p->n_entries;
    const double *split = reals, *weight = split + p->n_nodes,
                 *members = weight + p->n_entries, *base = members + p->n_members;
    const int64_t T = p->n_targets;
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        for (int64_t t = 0; t < T; t++) acc[t] = 0.0, hits[t] = 0;
        for (int64_t k = 0; k < p->n_roots; k++) {
            int64_t at = roots[k];
            /* the compiler refused cycles; n_nodes steps bound the walk anyway */
            for (int64_t step = 0; at >= 0 && step <= p->n_nodes; step++) {
                const int64_t *nd = nodes + 6 * at;
                const double v = load(dt, x, r * F + nd[0]);
                at = goes_true(dt, nd, split[at], v, sets, members) ? nd[2] : nd[3];
            }
            if (at >= 0) continue;
            const int64_t *g = groups + 2 * (-at - 1);
            for (int64_t e = g[0]; e < g[0] + g[1]; e++) {
                const int64_t t = target[e];
                const double w = weight[e];
                if (p->aggregate == PZ_TREES_MIN) acc[t] = hits[t] && acc[t] <= w ? acc[t] : w;
                else if (p->aggregate == PZ_TREES_MAX) acc[t] = hits[t] && acc[t] >= w ? acc[t] : w;
                else acc[t] += w;
                hits[t] = 1;
            }
        }
        double mx = -INFINITY, sum = 0.0;
        for (int64_t t = 0; t < T; t++) {
            if (p->aggregate == PZ_TREES_AVERAGE) acc[t] /= (double)p->n_roots;
            acc[t] += base[t];
            if (acc[t] > mx) mx = acc[t];
        }
        /* one target: no transform, as ONNX Runtime does (PROBIT aside, refused) */
        switch (T == 1 ? PZ_TREES_NONE : (pz_trees_post)p->post) {
        case PZ_TREES_NONE: break;
        case PZ_TREES_LOGISTIC:
            for (int64_t t = 0; t < T; t++) acc[t] = 1.0 / (1.0 + exp(-acc[t]));
            break;
        case PZ_TREES_SOFTMAX:
        case PZ_TREES_SOFTMAX_ZERO:
            /* SOFTMAX_ZERO leaves at zero, and out of the sum, a target no
             * tree reached and one within 1e-7 of zero (ONNX Runtime's rule) */
            for (int64_t t = 0; t < T; t++) {
                const int skip = p->post == PZ_TREES_SOFTMAX_ZERO &&
                                 (!hits[t] || (acc[t] <= 1e-7 && acc[t] >= -1e-7));
                acc[t] = skip ? 0.0 : exp(acc[t] - mx);
                sum += acc[t];
            }
            for (int64_t t = 0; t < T; t++) acc[t] = sum > 0.0 ? acc[t] / sum : 0.0;
            break;
        }
        for (int64_t t = 0; t < T; t++) {
            if (ydt == PZ_F32) ((float *)y)[r * T + t] = (float)acc[t];
            else ((double *)y)[r * T + t] = acc[t];
        }
    }
}
