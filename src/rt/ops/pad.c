/* pad.c - the PAD layer: constant, reflect, edge, wrap; negative pads crop.
 * Y's shape gives the end pads. */
#include "rt/ops/ops.h"

typedef struct {
    int64_t *map[PZ_MAX_RANK];   /* per axis: source index of each output coordinate, -1 = value */
    uint64_t value[2];           /* the constant, as one element of Y's type */
} pad_state;

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
        st->map[a] = malloc((size_t)(y->dims[a] > 0 ? y->dims[a] : 1) * sizeof(int64_t));
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
};

/* Output row r reads input row r - begin; a mode other than constant reads
 * rows far from r where it pads the rows. */
static int pad_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_pad_params *p = l->params;
    const pz_row_tensor *x = &l->in[0];
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
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = pad_prepare, .run = pad_run, .release = pad_release,
    .row_rule = pad_row_rule,
};
