/* slice.c - the SLICE layer: per-axis start and step (clamped, final, from
 * the compiler); Y's shape gives the count on each axis. In a dynamic
 * region the model's starts, ends and steps are clamped to the run's dims.
 * With inputs 1-4 (starts, ends [, axes [, steps]], int32 or int64) they are
 * read at run time (the compiler planned Y at X's dims, a bound no slice
 * exceeds): the layer is then in a dynamic region (dyn_self), and a bad
 * value (lengths that differ, an axis out of range or repeated, a step of 0)
 * fails the run (pz_layer_run_fail), Y empty. */
#include <string.h>

#include "rt/ops/ops.h"

/* The run's starts, ends and steps per axis, read from inputs 1-4. */
typedef struct {
    pz_slice_params given;
} slice_args;

/* A float slice of a blocked rank-4 tensor along channels only (N, H, W
 * whole): a channel gather on NCHW16c (ShuffleNetV2's channel split at 58,
 * 116, 232: not on block bounds). NULL when it does not apply. */
static pz_chg_state *slice_gather(pz_layer *l)
{
    const pz_slice_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (l->isa == PZ_ISA_REF || l->in_have[0] != 16 || x->dtype != PZ_F32 ||
        x->rank != 4 || pz_numel(y) == 0)
        return NULL;
    for (int a = 0; a < 4; a++)
        if (a != 1 && (p->start[a] != 0 || p->step[a] != 1 || y->dims[a] != x->dims[a]))
            return NULL;
    int64_t c = y->dims[1];
    int *src_in = calloc((size_t)c, sizeof *src_in);
    int64_t *src_ch = malloc((size_t)c * sizeof *src_ch);
    pz_chg_state *st = NULL;
    if (src_in && src_ch) {
        for (int64_t k = 0; k < c; k++) src_ch[k] = p->start[1] + k * p->step[1];
        st = pz_chg_plan_layer(l, 1, src_in, src_ch);
    }
    free(src_in);
    free(src_ch);
    return st;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void pz_slice_axis(int64_t d, int64_t b, int64_t e, int64_t s, int64_t *start, int64_t *len)
{
    if (b < 0) b += d;   /* b >= INT64_MIN and d >= 0: no overflow */
    if (e < 0) e += d;
    int64_t n;
    if (d == 0) {
        b = n = 0;   /* nothing to take, in either direction */
    } else if (s > 0) {
        b = clamp64(b, 0, d);
        e = clamp64(e, 0, d);
        n = e <= b ? 0 : (e - b - 1) / s + 1;
    } else {
        b = clamp64(b, 0, d - 1);
        e = clamp64(e, -1, d - 1);
        uint64_t us = (uint64_t)0 - (uint64_t)s;   /* -s, also for INT64_MIN */
        n = b <= e ? 0 : (int64_t)((uint64_t)(b - e - 1) / us) + 1;
    }
    *start = b;
    *len = n;
}

static void slice_release(pz_layer *l)
{
    if (l->n_in == 1) pz_chg_release(l->state);
}

/* Reads inputs 1-4 into a->given; NULL, or why they are bad. */
static const char *slice_read_args(const pz_layer *l, slice_args *a)
{
    const pz_tensor *x = l->in[0];
    int64_t v[4][PZ_MAX_RANK];
    int cnt[4] = {0, 0, -1, -1};
    for (int i = 0; i < 4; i++) {
        const pz_tensor *t = pz_in(l, i + 1);
        if (t && (cnt[i] = pz_run_ints(t, v[i], PZ_MAX_RANK)) < 0)
            return "starts, ends, axes and steps must be int32 or int64 vectors of at most "
                   "the rank";
    }
    if (cnt[0] != cnt[1] || (cnt[2] >= 0 && cnt[2] != cnt[0]) || (cnt[3] >= 0 && cnt[3] != cnt[0]))
        return "starts, ends, axes and steps have different lengths";
    if (cnt[0] > x->rank) return "starts has more entries than X has dims";
    pz_slice_params *g = &a->given;
    memset(g, 0, sizeof *g);
    for (int k = 0; k < x->rank; k++) g->given_end[k] = INT64_MAX, g->given_step[k] = 1;
    int seen[PZ_MAX_RANK] = {0};
    for (int i = 0; i < cnt[0]; i++) {
        int64_t ax = cnt[2] >= 0 ? v[2][i] : i;
        if (ax < 0) ax += x->rank;
        if (ax < 0 || ax >= x->rank) return "an axis is out of range";
        if (seen[ax]++) return "an axis is repeated";
        int64_t st = cnt[3] >= 0 ? v[3][i] : 1;
        if (st == 0) return "a step is 0";
        g->given_start[ax] = v[0][i];
        g->given_end[ax] = v[1][i];
        g->given_step[ax] = st;
    }
    return NULL;
}

static int slice_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_slice_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (y->rank != x->rank)
        return pz_layer_fail(l, err, n, "X has rank %d, Y %d", x->rank, y->rank);
    if (l->n_in > 1) {
        for (int i = 1; i < 3; i++)
            if (!pz_in(l, i))
                return pz_layer_fail(l, err, n, "run-time starts and ends are both needed");
        if (!(l->state = calloc(1, sizeof(slice_args))))
            return pz_layer_fail(l, err, n, "out of memory");
        return 0;   /* Y planned at X's dims: any slice fits */
    }
    if (pz_numel(y) == 0) return 0;
    for (int a = 0; a < x->rank; a++) {
        int64_t s = p->start[a], st = p->step[a], last = s + (y->dims[a] - 1) * st;
        if (st == 0 || s < 0 || s >= x->dims[a] || last < 0 || last >= x->dims[a])
            return pz_layer_fail(l, err, n, "axis %d: start %lld, step %lld, %lld elements "
                                 "leave [0, %lld)", a, (long long)s, (long long)st,
                                 (long long)y->dims[a], (long long)x->dims[a]);
    }
    for (int a = 0; l->dyn && a < x->rank; a++)
        if (!p->given_step[a])
            return pz_layer_fail(l, err, n, "in a dynamic region it needs the given starts, "
                                 "ends and steps (axis %d has step 0)", a);
    if (!l->dyn) l->state = slice_gather(l);
    return 0;
}

/* The params of the run: in a dynamic region the given starts, ends and
 * steps clamped to the run's dims (Y's dims, which run_shape set). */
static const pz_slice_params *slice_given(const pz_layer *l)
{
    return l->n_in > 1 ? &((const slice_args *)l->state)->given : l->params;
}

static void slice_now(const pz_layer *l, pz_slice_params *now)
{
    const pz_slice_params *p = slice_given(l);
    const pz_tensor *x = l->in[0];
    *now = *p;
    for (int a = 0; a < x->rank; a++) {
        int64_t len;
        pz_slice_axis(x->dims[a], p->given_start[a], p->given_end[a], p->given_step[a],
                      &now->start[a], &len);
        now->step[a] = p->given_step[a];
    }
}

/* A dynamic region: each axis' count from the run's dim. */
static void slice_run_shape(const pz_layer *l)
{
    const pz_slice_params *p = slice_given(l);
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    y->rank = x->rank;
    const char *why = l->n_in > 1 ? slice_read_args(l, l->state) : NULL;
    if (why) {
        pz_layer_run_fail(l, "%s", why);
        for (int a = 0; a < x->rank; a++) y->dims[a] = 0;
        return;
    }
    for (int a = 0; a < x->rank; a++) {
        int64_t start;
        pz_slice_axis(x->dims[a], p->given_start[a], p->given_end[a], p->given_step[a], &start,
                      &y->dims[a]);
    }
}

static void slice_run(const pz_layer *l, int ith, int nth)
{
    const pz_slice_params *p = l->params;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    if (pz_numel(y) == 0) return;
    if (l->state && l->n_in == 1) {
        pz_chg_run(l->state, l, ith, nth);
        return;
    }
    pz_slice_params now;
    if (l->dyn) slice_now(l, &now), p = &now;
    pz_any_slice__ref(pz_dtype_size(x->dtype), x->rank, x->dims, y->dims, p->start, p->step,
                      x->data, y->data, ith, nth);
}

static const pz_param_field slice_fields[] = {
    PZ_FIELD_ARRAY(pz_slice_params, start, PZ_F_I64), PZ_FIELD_ARRAY(pz_slice_params, step, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_slice_params, given_start, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_slice_params, given_end, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_slice_params, given_step, PZ_F_I64),
};

/* Output row r reads input row start + r*step. */
static int slice_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_slice_params *p = l->params;
    if (!l->in[0].is_const && p->step[2] < 1) {
        m->why = "walks the rows backwards";
        return 0;
    }
    m->in[0] = (pz_row_input){.kind = PZ_ROWS_AFFINE, .start = p->start[2], .step = p->step[2]};
    return 1;
}

static int slice_dyn_self(const pz_layer *l)
{
    return l->n_in > 1;
}

const pz_rt_op pz_rt_op_slice = {
    .name = "SLICE", PZ_OP_PARAMS(pz_slice_params, slice_fields),
    .dyn_self = slice_dyn_self,
    .min_in = 1, .max_in = 5, .min_out = 1, .max_out = 1,
    .prepare = slice_prepare, .run = slice_run, .release = slice_release,
    .row_rule = slice_row_rule, .run_shape = slice_run_shape,
};
