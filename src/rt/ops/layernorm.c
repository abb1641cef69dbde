/* layernorm.c - the LAYERNORM layer (LayerNormalization): X, Scale, B? ->
 * Y, Mean?, InvStdDev?, over the dims [axis, rank) of X, float32, rows of
 * contiguous floats: the AVX-512 kernel where the CPU (and PZ_ISA) allow,
 * else its scalar twin. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

static pz_layernorm_fn pick(pz_isa isa)
{
    return pz_fast_kernels_for(isa)->layernorm;
}

static int layernorm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_layernorm_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *s = pz_in(l, 1), *b = pz_in(l, 2), *y = pz_out(l, 0);
    if (!x || !s || !y) return pz_layer_fail(l, err, n, "needs X, Scale and Y");
    if (x->dtype != PZ_F32)
        return pz_layer_fail(l, err, n, "X has type %s: only float32 is supported",
                             pz_dtype_name(x->dtype));
    if (pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x) ||
        pz_layer_want_dtype(l, err, n, "Scale", s, PZ_F32) ||
        (b && pz_layer_want_dtype(l, err, n, "B", b, PZ_F32)))
        return 1;
    if (p->axis < 0 || p->axis >= (x->rank > 0 ? x->rank : 1))
        return pz_layer_fail(l, err, n, "axis %d out of range for rank %d", p->axis, x->rank);
    int64_t nn = pz_prod(x->dims + p->axis, x->rank - p->axis), outer = pz_prod(x->dims, p->axis);
    if (!l->dyn && ((pz_numel(s) != nn && pz_numel(s) != 1) ||
                    (b && pz_numel(b) != nn && pz_numel(b) != 1)))
        return pz_layer_fail(l, err, n, "Scale (B) must have %lld elements or 1",
                             (long long)nn);
    for (int i = 1; i < 3; i++) {
        const pz_tensor *t = pz_out(l, i);
        if (t && (t->dtype != PZ_F32 || pz_numel(t) != outer || (l->dyn && t->rank != x->rank)))
            return pz_layer_fail(l, err, n, "output %d must be float32 with %lld elements", i,
                                 (long long)outer);
    }
    pz_layernorm_fn *st = malloc(sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    *st = pick(l->isa);
    l->state = st;
    return 0;
}

static void layernorm_run(const pz_layer *l, int ith, int nth)
{
    const pz_layernorm_params *p = l->params;
    const pz_tensor *x = l->in[0], *s = l->in[1], *b = pz_in(l, 2);
    const pz_tensor *mean = pz_out(l, 1), *inv = pz_out(l, 2);
    int64_t nn = pz_prod(x->dims + p->axis, x->rank - p->axis), outer = pz_prod(x->dims, p->axis);
    const pz_layernorm_fn fn = *(const pz_layernorm_fn *)l->state;
    if (l->dyn && pz_numel(l->out[0]) == 0) return;   /* nothing, or run_shape failed */
    fn(outer, nn, x->data, s->data, pz_numel(s), b ? b->data : NULL, b ? pz_numel(b) : 0,
       p->epsilon, l->out[0]->data, mean ? mean->data : NULL, inv ? inv->data : NULL, ith, nth);
}

/* A dynamic region: Y is X's shape, Mean and InvStdDev X's dims before
 * the axis then 1s; Scale and B must still have the run's count of
 * normalized elements (or 1), else the run fails naming the layer (the
 * outputs empty). */
static void layernorm_run_shape(const pz_layer *l)
{
    const pz_layernorm_params *p = l->params;
    const pz_tensor *x = l->in[0], *s = l->in[1], *b = pz_in(l, 2);
    int64_t nn = pz_prod(x->dims + p->axis, x->rank - p->axis);
    int fit = (pz_numel(s) == nn || pz_numel(s) == 1) &&
              (!b || pz_numel(b) == nn || pz_numel(b) == 1);
    for (int j = 0; j < l->n_out; j++) {
        pz_tensor *t = l->out[j];
        if (!t) continue;
        for (int d = 0; d < x->rank; d++) t->dims[d] = j == 0 || d < p->axis ? x->dims[d] : 1;
        if (!fit) t->dims[0] = 0;
    }
    if (!fit)
        pz_layer_run_fail(l, "X's %lld normalized elements (from axis %d) do not fit Scale's "
                          "%lld", (long long)nn, p->axis, (long long)pz_numel(s));
}

static const pz_param_field layernorm_fields[] = {
    PZ_FIELD(pz_layernorm_params, axis, PZ_F_INT), PZ_FIELD(pz_layernorm_params, epsilon, PZ_F_F32),
};

const pz_rt_op pz_rt_op_layernorm = {
    .name = "LAYERNORM", PZ_OP_PARAMS(pz_layernorm_params, layernorm_fields),
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 3,
    .prepare = layernorm_prepare, .run = layernorm_run, .run_shape = layernorm_run_shape,
};
