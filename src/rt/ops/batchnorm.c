/* batchnorm.c - the BATCHNORM layer (inference): X, scale, bias, mean, var -> Y. */
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

static int batchnorm_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    static const char *const names[] = {"X", "scale", "B", "mean", "var"};
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
    if (l->in_have[0] == 16 && x->rank == 4) l->in_cblk[0] = l->out_cblk[0] = 16;
    return 0;
}

static void batchnorm_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0];
    if (l->in_cblk[0] == 16) {
        pz_f32_batchnorm_nchw16c__scalar(l->params, x->dims[0], x->dims[1],
                                         x->dims[2] * x->dims[3], x->data, l->in[1]->data,
                                         l->in[2]->data, l->in[3]->data, l->in[4]->data,
                                         l->out[0]->data, ith, nth);
        return;
    }
    pz_f32_batchnorm__ref(l->params, x->rank, x->dims, x->data, l->in[1]->data, l->in[2]->data,
                          l->in[3]->data, l->in[4]->data, l->out[0]->data, ith, nth);
}

const pz_rt_op pz_rt_op_batchnorm = {
    .name = "BATCHNORM", .params_size = sizeof(pz_bn_params),
    .min_in = 5, .max_in = 5, .min_out = 1, .max_out = 1,
    .prepare = batchnorm_prepare, .run = batchnorm_run,
};
