/* lrn.c - the LRN layer: local response normalisation across channels. */
#include "rt/ops/ops.h"

static int lrn_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_lrn_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (pz_layer_want_dtype(l, err, n, "X", x, PZ_F32) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x))
        return 1;
    if (x->rank < 2) return pz_layer_fail(l, err, n, "X has rank %d, expected >= 2", x->rank);
    if (p->size < 1) return pz_layer_fail(l, err, n, "size %lld", (long long)p->size);
    return 0;
}

static void lrn_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    pz_f32_lrn__ref(l->params, x->rank, x->dims, x->data, l->out[0]->data, ith, nth);
}

static const pz_param_field lrn_fields[] = {
    PZ_FIELD(pz_lrn_params, size, PZ_F_I64), PZ_FIELD(pz_lrn_params, alpha, PZ_F_F32),
    PZ_FIELD(pz_lrn_params, beta, PZ_F_F32), PZ_FIELD(pz_lrn_params, bias, PZ_F_F32),
};

const pz_rt_op pz_rt_op_lrn = {
    .name = "LRN", PZ_OP_PARAMS(pz_lrn_params, lrn_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = lrn_prepare, .run = lrn_run,
    .row_rule = pz_row_rule_elementwise,
};
