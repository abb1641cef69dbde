/* softmax.c - the SOFTMAX layer (Softmax and LogSoftmax). */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

/* float32 over contiguous rows (inner 1: the last axis, the usual case)
 * runs the fast rows kernel; any other case the reference. */
typedef struct {
    int64_t outer, n, inner;   /* vectors of n elements, inner apart */
    pz_softmax_rows_fn rows;   /* NULL: the reference */
} softmax_state;

/* The vectors of X's dims: [outer, n, inner] around axis. */
static void softmax_dims(const pz_softmax_params *p, const pz_tensor *x, softmax_state *st)
{
    if (x->rank == 0) {
        st->outer = st->n = st->inner = 1;
    } else if (p->coerce_2d) {
        /* opset < 13: [prod(dims < axis), prod(dims >= axis)] */
        st->outer = pz_prod(x->dims, p->axis);
        st->n = pz_prod(x->dims + p->axis, x->rank - p->axis);
        st->inner = 1;
    } else {
        st->outer = pz_prod(x->dims, p->axis);
        st->n = x->dims[p->axis];
        st->inner = pz_prod(x->dims + p->axis + 1, x->rank - p->axis - 1);
    }
}

static int softmax_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_softmax_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x))
        return 1;
    int rank = x->rank > 0 ? x->rank : 1;
    if (p->axis < 0 || p->axis >= rank)
        return pz_layer_fail(l, err, n, "axis %d out of range for rank %d", p->axis, x->rank);
    softmax_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    softmax_dims(p, x, st);
    if (x->dtype == PZ_F32 && st->inner == 1 && l->isa != PZ_ISA_REF)
        st->rows = pz_fast_kernels_for(l->isa)->softmax_rows;
    return 0;
}

static void softmax_run(const pz_layer *l, int ith, int nth)
{
    const pz_softmax_params *p = l->params;
    const softmax_state *st = l->state;
    const pz_tensor *x = l->in[0], *y = l->out[0];
    softmax_state now;   /* a dynamic region: the vectors of the run's dims */
    if (l->dyn) {
        if (pz_numel(x) == 0) return;
        now = *st;
        softmax_dims(p, x, &now);
        st = &now;
    }
    if (st->rows)
        st->rows(p->log, st->outer, st->n, x->data, y->data, ith, nth);
    else if (x->dtype == PZ_F32)
        pz_f32_softmax__ref(p->log, st->outer, st->n, st->inner, x->data, y->data, ith, nth);
    else
        pz_any_softmax__ref(p->log, x->dtype, st->outer, st->n, st->inner, x->data, y->data,
                            ith, nth);
}

static const pz_param_field softmax_fields[] = {
    PZ_FIELD(pz_softmax_params, axis, PZ_F_INT), PZ_FIELD(pz_softmax_params, log, PZ_F_INT),
    PZ_FIELD(pz_softmax_params, coerce_2d, PZ_F_INT),
};

/* Over one axis: row-local unless that axis is the rows; opset < 13
 * flattens [outer, inner] at axis: row-local when the rows are outer. */
static int softmax_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    const pz_softmax_params *p = l->params;
    if (p->coerce_2d ? p->axis <= 2 : p->axis == 2) {
        m->why = "normalises over the rows";
        return 0;
    }
    return 1;
}

const pz_rt_op pz_rt_op_softmax = {
    .name = "SOFTMAX", PZ_OP_PARAMS(pz_softmax_params, softmax_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = softmax_prepare, .run = softmax_run,
    .row_rule = softmax_row_rule, .run_shape = pz_run_shape_same,
};
