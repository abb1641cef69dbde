/* where.c - the WHERE layer: Y = condition ? X : Z element by element, the
 * three inputs broadcast (numpy) to Y's shape. condition is bool; X, Z and
 * Y have one type, any the runtime holds (the kernel moves bytes). */
#include "rt/kernels/bcast_fast.h"
#include "rt/ops/ops.h"

/* The reference's strides, and the fast twin's (coalesced) when it runs. */
typedef struct {
    pz_where_desc d, fast;
    bool use_fast;   /* not PZ_ISA=ref: pz_any_where__fast */
} where_state;

/* Element strides of t read in y's shape (right-aligned), 0 where t is
 * broadcast; -1 when t does not broadcast to it. */
static int where_strides(const pz_tensor *t, const pz_tensor *y, int64_t *s)
{
    if (t->rank > y->rank) return -1;
    int64_t acc = 1;
    for (int i = y->rank - 1; i >= 0; i--) {
        int it = i - (y->rank - t->rank);
        int64_t nt = it >= 0 ? t->dims[it] : 1;
        if (nt != y->dims[i] && nt != 1) return -1;
        s[i] = nt == 1 ? 0 : acc;
        acc *= nt;
    }
    return 0;
}

/* The three inputs' strides in Y's shape; -1 when one does not broadcast. */
static int where_plan(const pz_layer *l, pz_where_desc *d)
{
    const pz_tensor *y = l->out[0];
    if (where_strides(l->in[0], y, d->sc) || where_strides(l->in[1], y, d->sa) ||
        where_strides(l->in[2], y, d->sb))
        return -1;
    d->rank = y->rank;
    for (int i = 0; i < y->rank; i++) d->dims[i] = y->dims[i];
    if (d->rank == 0) {   /* a scalar: one element, every stride 0 */
        d->rank = 1;
        d->dims[0] = 1;
    }
    return 0;
}

static int where_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *c = pz_in(l, 0), *x = pz_in(l, 1), *z = pz_in(l, 2), *y = pz_out(l, 0);
    if (!c || !x || !z || !y) return pz_layer_fail(l, err, n, "needs condition, X, Y and an output");
    if (c->dtype != PZ_BOOL)
        return pz_layer_fail(l, err, n, "condition has type %s, expected bool",
                             pz_dtype_name(c->dtype));
    if (z->dtype != x->dtype)
        return pz_layer_fail(l, err, n, "X has type %s, Y %s: they must agree",
                             pz_dtype_name(x->dtype), pz_dtype_name(z->dtype));
    if (pz_dtype_size(x->dtype) == 0)
        return pz_layer_fail(l, err, n, "type %s is not supported", pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "output", y, x->dtype)) return 1;
    where_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    if (where_plan(l, &st->d) && !l->dyn)   /* a dynamic region: the run's dims must broadcast */
        return pz_layer_fail(l, err, n, "an input does not broadcast to the output's shape");
    st->use_fast = l->isa != PZ_ISA_REF;
    st->fast = st->d;
    pz_where_coalesce(&st->fast);
    return 0;
}

static void where_run(const pz_layer *l, int ith, int nth)
{
    const where_state *st = l->state;
    const pz_where_desc *d = st->use_fast ? &st->fast : &st->d;
    pz_where_desc now;   /* a dynamic region: the strides of the run's dims */
    if (l->dyn) {
        if (pz_numel(l->out[0]) == 0 || where_plan(l, &now))
            return;   /* nothing, or the inputs do not broadcast (ONNX Runtime fails) */
        if (st->use_fast) pz_where_coalesce(&now);
        d = &now;
    }
    const size_t es = pz_dtype_size(l->out[0]->dtype);
    const void *x = l->in[1]->data, *z = l->in[2]->data;
    pz_where_desc one;
    if (pz_where_reads_one(l)) {
        /* the side not taken may be a branch that did not run (rt/guard.c):
         * both slots read the side taken, at its strides */
        int take = *(const uint8_t *)l->in[0]->data != 0;
        one = *d;
        for (int i = 0; i < one.rank; i++) {
            if (take) one.sb[i] = one.sa[i];
            else one.sa[i] = one.sb[i];
        }
        if (take) z = x;
        else x = z;
        d = &one;
    }
    if (st->use_fast)
        pz_any_where__fast(d, es, l->in[0]->data, x, z, l->out[0]->data, ith, nth);
    else
        pz_any_where__ref(d, es, l->in[0]->data, x, z, l->out[0]->data, ith, nth);
}

int pz_where_reads_one(const pz_layer *l)
{
    return l->kind == PZ_OP_WHERE && !l->dyn && l->in[0] && l->in[0]->dtype == PZ_BOOL &&
           pz_numel(l->in[0]) == 1;
}

const pz_rt_op pz_rt_op_where = {
    .name = "WHERE", .params_size = 0,
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .prepare = where_prepare, .run = where_run,
    .row_rule = pz_row_rule_elementwise, .run_shape = pz_run_shape_bcast,
};
