/* copy.c - the COPY layer: Identity, Dropout (inference), Reshape, Flatten,
 * Squeeze, Unsqueeze. Same elements, another shape. */
#include <stdlib.h>
#include <string.h>

#include "rt/ops/ops.h"

/* Y's dims as X's with unit dims put in or taken out (Identity, Squeeze,
 * Unsqueeze): map[j] = the axis of X that Y's axis j is, or -1 for a put-in
 * 1. 0 when there is such a map, else 1. */
static int unit_map(const pz_tensor *x, const pz_tensor *y, int8_t *map)
{
    int i = 0, j = 0;
    while (j < y->rank) {
        if (i < x->rank && x->dims[i] == y->dims[j]) map[j++] = (int8_t)i++;
        else if (y->dims[j] == 1) map[j++] = -1;
        else if (i < x->rank && x->dims[i] == 1) i++;
        else return 1;
    }
    for (; i < x->rank; i++)
        if (x->dims[i] != 1) return 1;
    return 0;
}

/* Flatten: Y is [prod X[:a], prod X[a:]] at these dims; the split a, or
 * -1 (the first such a: a unit dim at the split stays 1 at run time). */
static int flatten_split(const pz_tensor *x, const pz_tensor *y)
{
    if (y->rank != 2) return -1;
    int64_t p = 1;
    for (int a = 0; a <= x->rank; a++) {
        if (p == y->dims[0] && p * y->dims[1] == pz_numel(x)) return a;
        if (a < x->rank) p *= x->dims[a];
    }
    return -1;
}

static int copy_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (pz_numel(x) != pz_numel(y))
        return pz_layer_fail(l, err, n, "X has %lld elements, Y %lld", (long long)pz_numel(x),
                             (long long)pz_numel(y));
    if (!l->dyn || y->rank == 1) return 0;
    /* in a dynamic region a flatten to one dim, or a map of Y's axes to X's
     * (copy_run_shape): any other reshape of a run-time shape needs its
     * target computed at run time */
    /* map[PZ_MAX_RANK]: Flatten's split when no unit map exists, else -1 */
    int8_t *map = malloc(PZ_MAX_RANK + 1);
    if (!map) return pz_layer_fail(l, err, n, "out of memory");
    l->state = map;
    map[PZ_MAX_RANK] = -1;
    if (unit_map(x, y, map) && (map[PZ_MAX_RANK] = (int8_t)flatten_split(x, y)) < 0) {
        char bx[96], by[96];
        return pz_layer_fail(l, err, n, "in a dynamic region X %s to Y %s is neither a flatten "
                             "nor a Squeeze or an Unsqueeze",
                             pz_shape_str(x, bx, sizeof bx), pz_shape_str(y, by, sizeof by));
    }
    return 0;
}

static void copy_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    pz_any_copy__ref((size_t)pz_numel(x) * pz_dtype_size(x->dtype), x->data, l->out[0]->data,
                     ith, nth);
}

/* Row-local when the shape stays (a reshape moves elements across rows). */
static int copy_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_row_tensor *x = &l->in[0], *y = &l->out[0];
    if (x->rank != y->rank || memcmp(x->dims, y->dims, (size_t)y->rank * sizeof(int64_t))) {
        m->why = "changes the shape (a reshape is not row-local)";
        return 0;
    }
    return 1;
}

/* A dynamic region: X's elements in one dim, Flatten's two products, or
 * Y's axes from X's by the map prepare made (a taken-out axis of X is 1 at
 * run time: Squeeze). */
static void copy_run_shape(const pz_layer *l)
{
    const int8_t *map = l->state;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    if (y->rank == 1) y->dims[0] = pz_numel(x);
    if (map && map[PZ_MAX_RANK] >= 0) {
        y->dims[0] = y->dims[1] = 1;
        for (int a = 0; a < x->rank; a++) y->dims[a >= map[PZ_MAX_RANK]] *= x->dims[a];
        return;
    }
    for (int j = 0; map && j < y->rank; j++) y->dims[j] = map[j] < 0 ? 1 : x->dims[map[j]];
}

const pz_rt_op pz_rt_op_copy = {
    .name = "COPY", .params_size = 0,
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = copy_prepare, .run = copy_run,
    .run_shape = copy_run_shape,
    .row_rule = copy_row_rule,
};
