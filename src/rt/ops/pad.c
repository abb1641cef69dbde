/* pad.c - the PAD layer: constant, reflect, edge, wrap; negative pads crop.
 * Y's shape gives the end pads. With inputs 1-3 (pads, constant_value,
 * axes; the last two optional) they are read at run time:
 * Y has no compile-time bound (op_desc.h dyn_alloc), run_shape sets its dims
 * and the index maps (grown as needed); pads that do not fit fail the run
 * naming the layer, Y empty. */
#include <string.h>

#include "rt/ops/ops.h"

typedef struct {
    int64_t *map[PZ_MAX_RANK];   /* per axis: source index of each output coordinate, -1 = value */
    size_t cap[PZ_MAX_RANK];     /* entries map[a] holds (pads read at run time: grown) */
    uint64_t value[2];           /* the constant, as one element of Y's type */
} pad_state;

/* Pads read at run time (input 1: begins, then ends, of the params' rt_axes):
 * Y's dims and the index maps, grown as needed; NULL, or why they do not fit. */
static const char *pad_rt_plan(const pz_layer *l, char *why, size_t n)
{
    const pz_pad_params *p = l->params;
    pad_state *st = l->state;
    const pz_tensor *x = l->in[0];
    pz_tensor *y = l->out[0];
    int64_t v[2 * PZ_MAX_RANK], begin[PZ_MAX_RANK] = {0}, end[PZ_MAX_RANK] = {0};
    int64_t ax[PZ_MAX_RANK];
    int na = p->n_rt_axes;
    for (int i = 0; i < na; i++) ax[i] = p->rt_axes[i];
    const pz_tensor *at = l->n_in > 3 ? l->in[3] : NULL, *cv = l->n_in > 2 ? l->in[2] : NULL;
    if (at && (na = pz_run_ints(at, ax, PZ_MAX_RANK)) < 0) return "axes is not an int vector";
    for (int i = 0; i < na; i++) {
        if (ax[i] < 0) ax[i] += x->rank;
        if (ax[i] < 0 || ax[i] >= x->rank) return "an axis is out of range";
    }
    if (pz_run_ints(l->in[1], v, 2 * PZ_MAX_RANK) != 2 * na) return "pads is not a begin and an end per axis";
    for (int i = 0; i < na; i++) {
        begin[ax[i]] = v[i];
        end[ax[i]] = v[na + i];
    }
    if (cv && pz_numel(cv) == 1) memcpy(st->value, cv->data, pz_dtype_size(y->dtype));
    for (int a = 0; a < x->rank; a++) {
        const int64_t d = x->dims[a], lim = (int64_t)1 << 60;
        if (begin[a] < -lim || begin[a] > lim || end[a] < -lim || end[a] > lim ||
            d + begin[a] + end[a] < 0) {
            snprintf(why, n, "pads %lld and %lld do not fit axis %d of %lld", (long long)begin[a],
                     (long long)end[a], a, (long long)d);
            return why;
        }
        y->dims[a] = d + begin[a] + end[a];
        int64_t kept = d + (begin[a] < 0 ? begin[a] : 0) + (end[a] < 0 ? end[a] : 0);
        if (p->mode != PZ_PAD_CONSTANT && kept <= 0 && y->dims[a] > 0) return "nothing left to pad from";
    }
    if (pz_numel(y) == 0) return NULL;
    for (int a = 0; a < x->rank; a++) {
        size_t want = (size_t)(y->dims[a] > 0 ? y->dims[a] : 1);
        if (want > st->cap[a]) {
            free(st->map[a]);
            st->map[a] = malloc(want * sizeof(int64_t));
            st->cap[a] = st->map[a] ? want : 0;
            if (!st->map[a]) return "out of memory";
        }
        pz_pad_map(p->mode, x->dims[a], begin[a], y->dims[a], st->map[a]);
    }
    return NULL;
}

static void pad_run_shape(const pz_layer *l)
{
    char buf[160];
    const char *why = pad_rt_plan(l, buf, sizeof buf);
    if (why) {
        pz_layer_run_fail(l, "%s", why);
        if (l->out[0]->rank) l->out[0]->dims[0] = 0;
    }
}

static int pad_dyn_alloc(const pz_layer *l)
{
    return l->n_in > 1;
}

static void pad_release(pz_layer *l)
{
    pad_state *st = l->state;
    if (!st) return;
    for (int a = 0; a < PZ_MAX_RANK; a++) free(st->map[a]);
}

static int pad_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_pad_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (y->rank != x->rank)
        return pz_layer_fail(l, err, n, "X has rank %d, Y %d", x->rank, y->rank);
    if (p->mode < PZ_PAD_CONSTANT || p->mode > PZ_PAD_WRAP)
        return pz_layer_fail(l, err, n, "unknown mode %d", (int)p->mode);
    if (p->n_rt_axes < 0 || p->n_rt_axes > x->rank || (l->n_in > 1 && !pz_in(l, 1)))
        return pz_layer_fail(l, err, n, "%d run-time axes", p->n_rt_axes);
    const pz_tensor *cv = l->n_in > 2 ? pz_in(l, 2) : NULL;
    if (cv && pz_numel(cv) > 0 && (cv->dtype != x->dtype || pz_numel(cv) != 1))
        return pz_layer_fail(l, err, n, "constant_value must be one value of X's type");
    for (int i = 0; i < p->n_rt_axes; i++)
        if (p->rt_axes[i] < 0 || p->rt_axes[i] >= x->rank)
            return pz_layer_fail(l, err, n, "run-time axis %d out of range", p->rt_axes[i]);
    pad_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    /* an empty output needs no index maps (and its other dims may be huge) */
    int64_t ny = pz_numel(y);
    for (int a = 0; a < x->rank; a++) {
        if (ny == 0) break;
        if (y->dims[a] > (int64_t)(SIZE_MAX / sizeof(int64_t) / 2))
            return pz_layer_fail(l, err, n, "axis %d: %lld output elements", a,
                                 (long long)y->dims[a]);
        int64_t end = y->dims[a] - x->dims[a] - p->begin[a];
        if (p->mode != PZ_PAD_CONSTANT && x->dims[a] - (p->begin[a] < 0 ? -p->begin[a] : 0) -
                                              (end < 0 ? -end : 0) <= 0 && y->dims[a] > 0)
            return pz_layer_fail(l, err, n, "axis %d: nothing left to pad from", a);
        st->cap[a] = (size_t)(y->dims[a] > 0 ? y->dims[a] : 1);
        st->map[a] = malloc(st->cap[a] * sizeof(int64_t));
        if (!st->map[a]) return pz_layer_fail(l, err, n, "out of memory");
        pz_pad_map(p->mode, x->dims[a], p->begin[a], y->dims[a], st->map[a]);
    }
    if (pz_dtype_is_float(y->dtype) || pz_dtype_is_int(y->dtype) || y->dtype == PZ_BOOL)
        pz_store_f64(st->value, y->dtype, 0, p->value);
    return 0;
}

static void pad_run(const pz_layer *l, int ith, int nth)
{
    const pad_state *st = l->state;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    if (pz_numel(y) == 0) return;
    pz_any_pad__ref(pz_dtype_size(x->dtype), x->rank, x->dims, y->dims,
                    (const int64_t *const *)st->map, st->value, x->data, y->data, ith, nth);
}

static const char *const PAD_MODE[] = {"PZ_PAD_CONSTANT", "PZ_PAD_REFLECT", "PZ_PAD_EDGE",
                                       "PZ_PAD_WRAP"};
static const pz_param_field pad_fields[] = {
    PZ_FIELD_ENUM(pz_pad_params, mode, PAD_MODE), PZ_FIELD_ARRAY(pz_pad_params, begin, PZ_F_I64),
    PZ_FIELD(pz_pad_params, value, PZ_F_F64),
    PZ_FIELD(pz_pad_params, n_rt_axes, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_pad_params, rt_axes, PZ_F_INT),
};

/* Output row r reads input row r - begin; a mode other than constant reads
 * rows far from r where it pads the rows. */
static int pad_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_pad_params *p = l->params;
    const pz_row_tensor *x = &l->in[0];
    if (l->n_in > 1) {
        m->why = "reads its pads at run time";
        return 0;
    }
    if (!x->is_const && p->mode != PZ_PAD_CONSTANT &&
        (p->begin[2] != 0 || (x->rank >= 3 && x->dims[2] != l->out[0].dims[2]))) {
        m->why = "pads the rows by reflection/edge/wrap";
        return 0;
    }
    m->in[0] = (pz_row_input){.kind = PZ_ROWS_AFFINE, .start = -p->begin[2], .step = 1};
    return 1;
}

const pz_rt_op pz_rt_op_pad = {
    .name = "PAD", PZ_OP_PARAMS(pz_pad_params, pad_fields),
    .min_in = 1, .max_in = 4, .min_out = 1, .max_out = 1,
    .prepare = pad_prepare, .run = pad_run, .release = pad_release,
    .row_rule = pad_row_rule, .run_shape = pad_run_shape, .dyn_alloc = pad_dyn_alloc,
};
