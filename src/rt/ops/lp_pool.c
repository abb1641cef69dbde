/* lp_pool.c - the LP_POOL layer (ONNX LpPool): X [N, C, D1..Dk] (k 1 to 3)
 * -> Y [N, C, O1..Ok] of X's float type; the window count per axis comes
 * from Y's shape (the compiler applied auto_pad and ceil_mode). */
#include "rt/ops/ops.h"

static int lp_pool_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_lp_pool_params *p = l->params;
    const pz_tensor *x = pz_in(l, 0), *y = pz_out(l, 0);
    if (!x || !y) return pz_layer_fail(l, err, n, "needs X and Y");
    if (!pz_dtype_is_float(x->dtype))
        return pz_layer_fail(l, err, n, "X has type %s, expected a float type",
                             pz_dtype_name(x->dtype));
    if (p->nsp < 1 || p->nsp > PZ_MAX_SPATIAL || x->rank != p->nsp + 2)
        return pz_layer_fail(l, err, n, "X has rank %d, expected %d spatial dims + 2", x->rank,
                             p->nsp);
    if (p->p < 1) return pz_layer_fail(l, err, n, "p is %lld, must be >= 1", (long long)p->p);
    for (int a = 0; a < p->nsp; a++)
        if (p->kernel[a] < 1 || p->stride[a] < 1 || p->dilation[a] < 1)
            return pz_layer_fail(l, err, n, "kernel, stride and dilation must be >= 1");
    if (pz_layer_want_dtype(l, err, n, "Y", y, x->dtype)) return 1;
    if (y->rank != x->rank || y->dims[0] != x->dims[0] || y->dims[1] != x->dims[1])
        return pz_layer_fail(l, err, n, "Y must be [N, C, ...] of X's N and C");
    return 0;
}

static void lp_pool_run(const pz_layer *l, int ith, int nth)
{
    const pz_tensor *x = l->in[0], *y = l->out[0];
    pz_any_lp_pool__ref(l->params, x->dtype, x->dims, y->dims, x->data, y->data, ith, nth);
}

static const pz_param_field lp_pool_fields[] = {
    PZ_FIELD(pz_lp_pool_params, nsp, PZ_F_INT),
    PZ_FIELD_ARRAY(pz_lp_pool_params, kernel, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_lp_pool_params, stride, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_lp_pool_params, dilation, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_lp_pool_params, pad_begin, PZ_F_I64),
    PZ_FIELD_ARRAY(pz_lp_pool_params, pad_end, PZ_F_I64),
    PZ_FIELD(pz_lp_pool_params, p, PZ_F_I64),
};

const pz_rt_op pz_rt_op_lp_pool = {
    .name = "LP_POOL", PZ_OP_PARAMS(pz_lp_pool_params, lp_pool_fields),
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = lp_pool_prepare, .run = lp_pool_run,
};
