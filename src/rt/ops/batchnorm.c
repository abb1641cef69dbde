/* batchnorm.c - the BATCHNORM layer: X, scale, bias, mean, var -> Y.
 * Inference: the given statistics. Training (pz_bn_params.training): the
 * batch's own statistics, and outputs 1 and 2 (each optional) are the
 * updated running mean and variance [C]. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

static int batchnorm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_bn_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    static const char *const names[] = {"X", "scale", "B", "mean", "var"};
    if (pz_layer_want_clamp_act(l, err, n, &p->act)) return 1;
    for (int i = 0; i < 5; i++) {
        const pz_tensor *t = pz_in(l, i);
        if (!t) return pz_layer_fail(l, err, n, "needs %s", names[i]);
        if (pz_layer_want_dtype(l, err, n, names[i], t, PZ_F32)) return 1;
    }
    if (!y || pz_layer_want_dtype(l, err, n, "Y", y, PZ_F32) ||
        pz_layer_want_same_shape(l, err, n, "Y", y, x))
        return 1;
    if (x->rank < 1) return pz_layer_fail(l, err, n, "X is a scalar");
    int64_t C = x->rank >= 2 ? x->dims[1] : x->dims[0];
    for (int i = 1; i < 5; i++)
        if (pz_numel(pz_in(l, i)) != C)
            return pz_layer_fail(l, err, n, "%s has %lld elements, expected %lld", names[i],
                                 (long long)pz_numel(pz_in(l, i)), (long long)C);
    if (!p->training && l->n_out > 1)
        return pz_layer_fail(l, err, n, "running statistics (outputs 1, 2) are written only in "
                             "training mode");
    for (int k = 1; k < l->n_out; k++) {
        const pz_tensor *r = pz_out(l, k);
        if (!r) continue;
        if (pz_layer_want_dtype(l, err, n, k == 1 ? "running_mean" : "running_var", r, PZ_F32))
            return 1;
        if (pz_numel(r) != C)
            return pz_layer_fail(l, err, n, "output %d has %lld elements, expected %lld", k,
                                 (long long)pz_numel(r), (long long)C);
    }
    /* training reads a whole channel at once: plain layout only */
    if (!p->training && l->in_have[0] == 16 && x->rank == 4) {
        /* the CPU's blocked kernel, chosen here, at compile */
        pz_batchnorm16c_fn *fn = calloc(1, sizeof *fn);
        if (!fn) return pz_layer_fail(l, err, n, "out of memory");
        pz_isa isa = l->isa;
        *fn = pz_fast_kernels_for(isa == PZ_ISA_REF ? PZ_ISA_SCALAR : isa)->batchnorm16c;
        l->state = fn;
        l->in_cblk[0] = l->out_cblk[0] = 16;
    }
    return 0;
}

static void batchnorm_run(const pz_layer *l, int ith, int nth)
{
    const pz_bn_params *p = l->params;
    const pz_tensor *x = l->in[0];
    if (p->training) {
        pz_tensor *rm = l->n_out > 1 ? l->out[1] : NULL, *rv = l->n_out > 2 ? l->out[2] : NULL;
        pz_f32_batchnorm_train__ref(p, x->rank, x->dims, x->data, l->in[1]->data,
                                    l->in[2]->data, l->in[3]->data, l->in[4]->data,
                                    l->out[0]->data, rm ? rm->data : NULL, rv ? rv->data : NULL,
                                    ith, nth);
        return;
    }
    if (l->in_cblk[0] == 16) {
        const pz_batchnorm16c_fn *fn = l->state;
        (*fn)(l->params, x->dims[0], x->dims[1], x->dims[2] * x->dims[3], x->data,
                           l->in[1]->data, l->in[2]->data, l->in[3]->data, l->in[4]->data,
                           l->out[0]->data, ith, nth);
        return;
    }
    pz_f32_batchnorm__ref(l->params, x->rank, x->dims, x->data, l->in[1]->data, l->in[2]->data,
                          l->in[3]->data, l->in[4]->data, l->out[0]->data, ith, nth);
}

static const pz_param_field bn_fields[] = {
    PZ_FIELD(pz_bn_params, epsilon, PZ_F_F32), PZ_FIELD(pz_bn_params, training, PZ_F_INT),
    PZ_FIELD(pz_bn_params, momentum, PZ_F_F32), PZ_FIELD(pz_bn_params, act, PZ_F_ACT),
};

/* Row-local in inference; training normalises with statistics of all rows. */
static int batchnorm_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    if (((const pz_bn_params *)l->params)->training) {
        m->why = "in training mode uses the mean and variance of all rows";
        return 0;
    }
    return 1;
}

const pz_rt_op pz_rt_op_batchnorm = {
    .name = "BATCHNORM", PZ_OP_PARAMS(pz_bn_params, bn_fields),
    .min_in = 5, .max_in = 5, .min_out = 1, .max_out = 3,
    .prepare = batchnorm_prepare, .run = batchnorm_run,
    .row_rule = batchnorm_row_rule,
};
