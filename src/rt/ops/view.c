/* view.c - the VIEW layer: Y is X read through a strided view (Expand,
 * Tile, DepthToSpace, SpaceToDepth, CenterCropPad), any element type.
 * prepare plans the view from the shapes (pz_view_plan); run copies rows. */
#include <string.h>

#include "rt/kernels/bcast_fast.h"
#include "rt/ops/ops.h"

static const char *const view_func_names[] = {
    "PZ_VIEW_EXPAND", "PZ_VIEW_TILE", "PZ_VIEW_DEPTH_TO_SPACE", "PZ_VIEW_SPACE_TO_DEPTH",
    "PZ_VIEW_CROP_PAD",
};

/* The view, the params it was made from (CenterCropPad's sizes read at
 * run time: the run's origin in start), and the planned dims it was made
 * from (a dynamic region's). */
typedef struct {
    pz_view_desc d;
    pz_view_params p;
    int64_t xb[PZ_MAX_RANK], yb[PZ_MAX_RANK];
    bool use_fast;   /* not PZ_ISA=ref: pz_any_view__fast */
} view_state;

static int view_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    char bx[96], by[96];
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    const pz_view_params *p = l->params;
    const int crop_rt = p->func == PZ_VIEW_CROP_PAD && p->rt_sizes;
    if (l->dyn && p->func != PZ_VIEW_EXPAND && p->func != PZ_VIEW_TILE && !crop_rt)
        return pz_layer_fail(l, err, n, "in a dynamic region only Expand, Tile and "
                             "CenterCropPad of sizes read at run time run");
    if (crop_rt && l->n_in < 2)
        return pz_layer_fail(l, err, n, "sizes read at run time need input 1");
    const pz_tensor *v = l->n_in > 1 ? pz_in(l, 1) : NULL;
    if (l->n_in > 1 && (!v || v->rank > 1 || (v->dtype != PZ_I64 && v->dtype != PZ_I32)))
        return pz_layer_fail(l, err, n, "input 1 (shape, repeats) must be an int32 or int64 vector");
    view_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->p = *p;
    if (crop_rt) memset(st->p.start, 0, sizeof st->p.start);   /* the run's, from input 1 */
    const char *why = "";
    if (pz_view_plan(&st->p, x->rank, x->dims, y->rank, y->dims, &st->d, &why))
        return pz_layer_fail(l, err, n, "X %s, Y %s: %s", pz_shape_str(x, bx, sizeof bx),
                             pz_shape_str(y, by, sizeof by), why);
    st->use_fast = l->isa != PZ_ISA_REF;
    for (int a = 0; a < x->rank; a++) st->xb[a] = x->dims[a];
    for (int a = 0; a < y->rank; a++) st->yb[a] = y->dims[a];
    return 0;
}

static void view_run(const pz_layer *l, int ith, int nth)
{
    const view_state *st = l->state;
    (st->use_fast ? pz_any_view__fast : pz_any_view__ref)(
        &st->d, pz_dtype_size(l->in[0]->dtype), l->in[0]->data, l->out[0]->data, ith, nth);
}

/* CenterCropPad's sizes v[k] read at run time: Y's dims and the run's
 * origin (start: a cropped axis keeps from floor((d - s) / 2), a padded
 * one puts X at floor((s - d) / 2)); NULL, or why not. */
static const char *crop_rt_dims(const pz_layer *l, const int64_t *v, int k, char *why, size_t n)
{
    const pz_view_params *p = l->params;
    view_state *st = l->state;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    int want = 0;
    for (int a = 0; a < x->rank; a++) want += p->start[a] > 0;
    if (k != want) return "the shape is not the planned length";
    for (int a = 0; a < x->rank; a++) {
        const int64_t d = x->dims[a], s = p->start[a] > 0 ? v[p->start[a] - 1] : d;
        if (s < 0) {
            snprintf(why, n, "shape[%d] is %lld, negative", (int)p->start[a] - 1, (long long)s);
            return why;
        }
        y->dims[a] = s;
        st->p.start[a] = s <= d ? (d - s) / 2 : -((s - d) / 2);
    }
    y->rank = x->rank;
    return NULL;
}

/* Y's dims from Expand's shape or Tile's repeats read at run time (input
 * 1: Y has no compile-time bound, op_desc.h dyn_alloc); NULL, or why not. */
static const char *view_rt_dims(const pz_layer *l, char *why, size_t n)
{
    const pz_view_params *p = l->params;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    int64_t v[PZ_MAX_RANK];
    int k = pz_run_ints(l->in[1], v, PZ_MAX_RANK);
    if (p->func == PZ_VIEW_CROP_PAD) return crop_rt_dims(l, v, k, why, n);
    if (k < 0)
        return "the shape or repeats is not a 1-D int tensor of at most 8 entries (the largest "
               "rank)";
    /* the plan has one rank per tensor (a loop-carried value too) */
    if (p->func == PZ_VIEW_TILE && k != x->rank) {
        snprintf(why, n, "repeats has %d entries, X's rank is %d", k, x->rank);
        return why;
    }
    if (p->func != PZ_VIEW_TILE && y->rank != (k > x->rank ? k : x->rank)) {
        snprintf(why, n, "shape has %d entries: Y's rank would be %d, planned %d (a rank "
                 "that changes at run time, as a loop-carried value's may, is not supported)",
                 k, k > x->rank ? k : x->rank, y->rank);
        return why;
    }
    for (int d = 0; d < y->rank; d++) {
        const int kx = d - (y->rank - x->rank), kv = d - (y->rank - k);
        const int64_t a = kx >= 0 ? x->dims[kx] : 1, b = kv >= 0 ? v[kv] : 1;
        if (b < 0) {
            snprintf(why, n, "%s[%d] is %lld, negative", p->func == PZ_VIEW_TILE ? "repeats"
                     : "shape", kv, (long long)b);
            return why;
        }
        if (p->func == PZ_VIEW_TILE) {
            if (b && a > INT64_MAX / b) return "the repeats make an axis too large";
            y->dims[d] = a * b;
        } else if (a != b && a != 1 && b != 1) {
            snprintf(why, n, "X's dim %d (%lld) does not broadcast with shape[%d] (%lld)", kx,
                     (long long)a, kv, (long long)b);
            return why;
        } else {
            y->dims[d] = a == 1 ? b : a;
        }
    }
    return NULL;
}

/* A dynamic region, from the planned (bound) dims (input 1 absent): Expand takes X's run dim
 * where X had Y's dim, else Y's (a unit axis broadcast, or one X lacks);
 * Tile repeats each axis as planned. The view is planned again at the
 * run's dims (run_shape runs alone, before run); dims that do not
 * broadcast fail the run (pz_layer_run_fail), Y empty. */
static void view_run_shape(const pz_layer *l)
{
    const pz_view_params *p = l->params;
    view_state *st = l->state;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    char buf[160];
    const char *bad = l->n_in > 1 ? view_rt_dims(l, buf, sizeof buf) : NULL;
    for (int k = 0; l->n_in == 1 && k < y->rank; k++) {
        const int kx = k - (y->rank - x->rank);
        if (p->func == PZ_VIEW_TILE)
            y->dims[k] = st->xb[k] ? x->dims[k] * (st->yb[k] / st->xb[k]) : 0;
        else
            y->dims[k] = kx >= 0 && st->xb[kx] == st->yb[k] ? x->dims[kx] : st->yb[k];
    }
    for (int k = 0; !bad && p->bounded && !l->rt_alloc && k < y->rank; k++)
        if (y->dims[k] > st->yb[k]) {
            snprintf(buf, sizeof buf, "Y's dim %d is %lld, above the planned bound %lld", k,
                     (long long)y->dims[k], (long long)st->yb[k]);
            bad = buf;
        }
    const char *why = bad ? bad : "";
    if (bad || pz_view_plan(&st->p, x->rank, x->dims, y->rank, y->dims, &st->d, &why)) {
        if (y->rank) y->dims[0] = 0;
        pz_layer_run_fail(l, "%s", why[0] ? why : "the run's dims do not fit the view");
        memset(&st->d, 0, sizeof st->d);
        st->d.rank = 1;   /* no rows */
    }
}

/* Input 1: Expand's shape, Tile's repeats, CenterCropPad's sizes, read at
 * run time. */
static int view_dyn_alloc(const pz_layer *l)
{
    return l->n_in > 1 && !((const pz_view_params *)l->params)->bounded;
}

/* Expand of a bounded shape: in a dynamic region, planned at the bound. */
static int view_dyn_self(const pz_layer *l)
{
    return l->n_in > 1;
}

static const pz_param_field view_fields[] = {
    PZ_FIELD_ENUM(pz_view_params, func, view_func_names),
    PZ_FIELD(pz_view_params, blocksize, PZ_F_INT),
    PZ_FIELD(pz_view_params, crd, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_view_params, start, PZ_F_I64),
    PZ_FIELD(pz_view_params, rt_sizes, PZ_F_INT),
    PZ_FIELD(pz_view_params, bounded, PZ_F_INT),
};

const pz_rt_op pz_rt_op_view = {
    .name = "VIEW", PZ_OP_PARAMS(pz_view_params, view_fields),
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = view_prepare, .run = view_run, .run_shape = view_run_shape,
    .dyn_alloc = view_dyn_alloc, .dyn_self = view_dyn_self,
};
