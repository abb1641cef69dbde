/* loss.c - the LOSS layer (NegativeLogLikelihoodLoss,
 * SoftmaxCrossEntropyLoss): X [N, C, d...] float, target [N, d...] int32 or
 * int64, weight [C]? -> loss ([N, d...] or a scalar), log_prob? (SCE:
 * X's shape). A reduction sums across every vector: one worker. */
#include "rt/ops/ops.h"

typedef struct {
    int64_t N, C, D;
} loss_state;

static int loss_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_loss_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *t = pz_in(l, 1), *w = pz_in(l, 2);
    const pz_tensor *y = pz_out(l, 0), *lp = pz_out(l, 1);
    if (!x || !t || !y) return pz_layer_fail(l, err, n, "needs X, target and loss");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (t->dtype != PZ_I32 && t->dtype != PZ_I64)
        return pz_layer_fail(l, err, n, "target has type %s, expected int32 or int64",
                             pz_dtype_name(t->dtype));
    if (p->func != PZ_LOSS_NLL && p->func != PZ_LOSS_SCE)
        return pz_layer_fail(l, err, n, "unknown loss %d", (int)p->func);
    if (p->reduction < PZ_LOSS_NONE || p->reduction > PZ_LOSS_MEAN)
        return pz_layer_fail(l, err, n, "unknown reduction %d", (int)p->reduction);
    if (pz_layer_want_dtype(l, err, n, "loss", y, x->dtype) ||
        (w && pz_layer_want_dtype(l, err, n, "weight", w, x->dtype)) ||
        (lp && pz_layer_want_dtype(l, err, n, "log_prob", lp, x->dtype)) ||
        (lp && pz_layer_want_same_shape(l, err, n, "log_prob", lp, x)))
        return 1;
    if (lp && p->func != PZ_LOSS_SCE) return pz_layer_fail(l, err, n, "log_prob is SCE's only");
    if (x->rank < 2 || t->rank != x->rank - 1)
        return pz_layer_fail(l, err, n, "X must be [N, C, d...] and target [N, d...]");
    if (t->dims[0] != x->dims[0])
        return pz_layer_fail(l, err, n, "target's N differs from X's");
    for (int i = 2; i < x->rank; i++)
        if (t->dims[i - 1] != x->dims[i])
            return pz_layer_fail(l, err, n, "target's dim %d differs from X's dim %d", i - 1, i);
    loss_state *st = malloc(sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->N = x->dims[0];
    st->C = x->dims[1];
    st->D = pz_prod(x->dims + 2, x->rank - 2);
    if (w && pz_numel(w) != st->C)
        return pz_layer_fail(l, err, n, "weight has %lld elements, C is %lld",
                             (long long)pz_numel(w), (long long)st->C);
    if (pz_numel(y) != (p->reduction == PZ_LOSS_NONE ? st->N * st->D : 1))
        return pz_layer_fail(l, err, n, "loss has %lld elements", (long long)pz_numel(y));
    if (p->func == PZ_LOSS_SCE && !lp)   /* the log-probabilities go to scratch */
        l->scratch_bytes = (size_t)pz_numel(x) * pz_dtype_size(x->dtype);
    if (p->reduction != PZ_LOSS_NONE) l->nth = 1;
    return 0;
}

static void loss_run(const pz_layer *l, int ith, int nth)
{
    const loss_state *st = l->state;
    const pz_tensor *w = pz_in(l, 2), *lp = pz_out(l, 1);
    pz_any_loss__ref(l->params, l->in[0]->dtype, st->N, st->C, st->D, l->in[0]->data,
                     l->in[1]->dtype, l->in[1]->data, w ? w->data : NULL, l->out[0]->data,
                     lp ? lp->data : l->scratch, ith, nth);
}

static const pz_param_field loss_fields[] = {
    PZ_FIELD(pz_loss_params, func, PZ_F_INT),
    PZ_FIELD(pz_loss_params, reduction, PZ_F_INT),
    PZ_FIELD(pz_loss_params, has_ignore, PZ_F_INT),
    PZ_FIELD(pz_loss_params, ignore_index, PZ_F_I64),
};

const pz_rt_op pz_rt_op_loss = {
    .name = "LOSS", PZ_OP_PARAMS(pz_loss_params, loss_fields),
    .min_in = 2, .max_in = 3, .min_out = 1, .max_out = 2,
    .prepare = loss_prepare, .run = loss_run,
};
