/* transpose.c - the TRANSPOSE layer, any element type. */
#include "rt/ops/ops.h"

/* The transpose with size-1 axes dropped and axes that stay neighbours
 * merged: [1,64,56,56] by (0,2,3,1) becomes [64,3136] by (1,0). */
typedef struct {
    int rank;
    int64_t dims[PZ_MAX_RANK];
    int perm[PZ_MAX_RANK];
} transpose_state;

static void simplify(transpose_state *st, int rank, const int64_t *xd, const int *perm)
{
    /* keep the axes of size > 1, renumbered */
    int keep[PZ_MAX_RANK], newid[PZ_MAX_RANK], nk = 0;
    for (int i = 0; i < rank; i++) newid[i] = -1;
    for (int i = 0; i < rank; i++)
        if (xd[i] != 1) { newid[i] = nk; keep[nk++] = i; }
    int64_t d[PZ_MAX_RANK];
    int pm[PZ_MAX_RANK], np = 0;
    for (int i = 0; i < nk; i++) d[i] = xd[keep[i]];
    for (int i = 0; i < rank; i++)
        if (newid[perm[i]] >= 0) pm[np++] = newid[perm[i]];
    /* merge runs of y axes that are consecutive x axes */
    int group_of[PZ_MAX_RANK];   /* x axis -> merged axis, for the axes that start a run */
    int starts[PZ_MAX_RANK], ns = 0;
    for (int i = 0; i < np; i++)
        if (i == 0 || pm[i] != pm[i - 1] + 1) starts[ns++] = i;
    /* merged x axes are ordered by their first x axis */
    int first[PZ_MAX_RANK];
    for (int g = 0; g < ns; g++) first[g] = pm[starts[g]];
    st->rank = ns;
    for (int g = 0; g < ns; g++) {
        int end = g + 1 < ns ? starts[g + 1] : np, rankx = 0;
        for (int h = 0; h < ns; h++) rankx += first[h] < first[g];
        int64_t size = 1;
        for (int i = starts[g]; i < end; i++) size *= d[pm[i]];
        st->dims[rankx] = size;
        group_of[g] = rankx;
    }
    for (int g = 0; g < ns; g++) st->perm[g] = group_of[g];
    if (ns == 0) {   /* all ones: one element */
        st->rank = 1;
        st->dims[0] = 1;
        st->perm[0] = 0;
    }
}

static int transpose_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_transpose_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    char bx[96], by[96];
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    bool seen[PZ_MAX_RANK] = {false}, ok = y->rank == x->rank;
    for (int i = 0; ok && i < x->rank; i++) {
        int a = p->perm[i];
        if (a < 0 || a >= x->rank || seen[a] || y->dims[i] != x->dims[a]) ok = false;
        else seen[a] = true;
    }
    if (!ok)
        return pz_layer_fail(l, err, n, "X %s, Y %s: perm is not a permutation that maps one "
                             "to the other", pz_shape_str(x, bx, sizeof bx),
                             pz_shape_str(y, by, sizeof by));
    transpose_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    simplify(st, x->rank, x->dims, p->perm);
    return 0;
}

static void transpose_run(const pz_layer *l, int ith, int nth)
{
    const transpose_state *st = l->state;
    const pz_tensor *x = l->in[0];
    if (pz_numel(x) == 0) return;
    transpose_state now;   /* a dynamic region: the run's dims, simplified again */
    if (l->dyn) {
        simplify(&now, x->rank, x->dims, ((const pz_transpose_params *)l->params)->perm);
        st = &now;
    }
    pz_any_transpose__ref(pz_dtype_size(x->dtype), st->rank, st->dims, st->perm, x->data,
                          l->out[0]->data, ith, nth);
}

/* A dynamic region: Y's dims are X's, permuted. */
static void transpose_run_shape(const pz_layer *l)
{
    const pz_transpose_params *p = l->params;
    l->out[0]->rank = l->in[0]->rank;
    for (int d = 0; d < l->in[0]->rank; d++) l->out[0]->dims[d] = l->in[0]->dims[p->perm[d]];
}

static const pz_param_field transpose_fields[] = {
    PZ_FIELD_ARRAY(pz_transpose_params, perm, PZ_F_INT),
};

static int transpose_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    if (((const pz_transpose_params *)l->params)->perm[2] != 2) {
        m->why = "moves the row axis";
        return 0;
    }
    return 1;
}

const pz_rt_op pz_rt_op_transpose = {
    .name = "TRANSPOSE", PZ_OP_PARAMS(pz_transpose_params, transpose_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = transpose_prepare, .run = transpose_run,
    .row_rule = transpose_row_rule, .run_shape = transpose_run_shape,
};
